import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataFile } from '../../test/data.js';
import { findOomInStderr, mentionsOom, OOM_TEXT_MAX_CHARS } from './stderr-oom.js';

interface Case {
  readonly id: string;
  readonly text: string;
  readonly expected: { readonly family: string };
}
const corpus: Case[] = readFileSync(dataFile('validation', 'oom_corpus.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));

describe('OOM text in stderr, on the real corpus (data/validation/oom_corpus.jsonl)', () => {
  const oomFamilies = ['torch-v1', 'torch-v2', 'cuda-runtime', 'nccl', 'xla', 'tensorflow', 'bitsandbytes'];
  const oom = corpus.filter((c) => oomFamilies.includes(c.expected.family));
  const notGpuOom = corpus.filter((c) => c.expected.family === 'not-oom' || c.expected.family === 'host-oom');

  it('has the cases', () => {
    expect(oom).toHaveLength(32);
    expect(notGpuOom.map((c) => c.id)).toEqual([
      'xtuner-247-paged-unsupported',
      'alpaca-546-host-oom-loading',
      'dataloader-dcpdn-12',
    ]);
  });
  it.each(oom.map((c) => [c.id, c]))('finds the out-of-memory in %s', (_id, c) => {
    expect(mentionsOom(c.text)).toBe(true);
    expect(findOomInStderr(c.text)).not.toBeNull();
  });
  it.each(notGpuOom.map((c) => [c.id, c]))('%s is not a GPU out-of-memory', (_id, c) => {
    expect(findOomInStderr(c.text)).toBeNull();
  });

  it('captioning-57: keeps the traceback from its first line to the error', () => {
    const c = corpus.find((x) => x.id === 'captioning-57-validate-nograd')!;
    const found = findOomInStderr(`epoch 3 loss 1.2\n${c.text}\n\nsome later line`)!;
    expect(found.message).toBe('RuntimeError: CUDA error: out of memory');
    expect(found.text).toBe(c.text);
  });
});

describe('findOomInStderr, built in code', () => {
  it('takes the last report, with the lines that follow it up to a blank line', () => {
    const stderr = [
      'Traceback (most recent call last):',
      '  File "a.py", line 1',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.',
      '',
      'retrying with a smaller batch',
      'Traceback (most recent call last):',
      '  File "a.py", line 9, in <module>',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB.',
      '[rank0]: exiting',
      '',
      'W0101 torch/distributed/elastic: failed',
    ].join('\n');
    expect(findOomInStderr(stderr)).toEqual({
      message: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB.',
      text: [
        'Traceback (most recent call last):',
        '  File "a.py", line 9, in <module>',
        'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB.',
        '[rank0]: exiting',
      ].join('\n'),
    });
  });

  it('without a traceback, the OOM line alone; nothing for clean stderr; a cap on size', () => {
    expect(findOomInStderr('warn\nCUDA error: out of memory\n')?.text).toBe('CUDA error: out of memory');
    expect(findOomInStderr('all good\n')).toBeNull();
    const long = `Traceback (most recent call last):\n${'x'.repeat(100_000)}\nCUDA out of memory`;
    expect(findOomInStderr(long)!.text.length).toBe(OOM_TEXT_MAX_CHARS);
  });

  it('leaves a look-alike the OOM grammar knows: a gRPC RESOURCE_EXHAUSTED is not an out-of-memory', () => {
    const grpc =
      'grpc._channel._InactiveRpcError: <_InactiveRpcError of RPC that terminated with:\n\tstatus = StatusCode.RESOURCE_EXHAUSTED\n\tdetails = "Received message larger than max (5242880 vs. 4194304)"\n';
    expect(findOomInStderr(grpc)).toBeNull();
  });
});
