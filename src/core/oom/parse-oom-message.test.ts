/**
 * The grammar against every real case of data/validation/oom_corpus.jsonl, then the same messages made
 * hostile in code (launcher prefixes, mail quoting, CRLF, colours, hard wrapping, truncation), other
 * real layouts, and look-alikes that are not out-of-memory errors.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataFile } from '../../../test/data.js';
import { findLookAlikeErrors, findOomMessages } from './find-oom-messages.js';
import type { OomMessage } from './oom-message.js';
import { findPrimaryOom, parseOomMessage } from './parse-oom-message.js';

interface CorpusCase {
  readonly id: string;
  readonly text: string;
  readonly has_error_text: boolean;
  readonly expected: OomMessage & { readonly acceptableFamilies?: readonly string[] };
}

const CORPUS: readonly CorpusCase[] = readFileSync(dataFile('validation', 'oom_corpus.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as CorpusCase);

const byId = (id: string): CorpusCase => {
  const c = CORPUS.find((x) => x.id === id);
  if (!c) throw new Error(`no corpus case ${id}`);
  return c;
};

/** The expected object without the corpus's own annotation, and the family checked separately. */
function expectMatches(got: OomMessage, expected: CorpusCase['expected']): void {
  const { acceptableFamilies, family, ...fields } = expected;
  const { family: gotFamily, ...gotFields } = got;
  expect([family, ...(acceptableFamilies ?? [])]).toContain(gotFamily);
  expect(gotFields).toEqual(fields);
}

describe('parseOomMessage on the corpus', () => {
  it('has the 49 cases the README counts', () => {
    expect(CORPUS).toHaveLength(49);
  });

  it.each(CORPUS.map((c) => [c.id, c] as const))('%s: every expected field, exactly', (_id, c) => {
    expectMatches(parseOomMessage(c.text), c.expected);
  });
});

// Messages with many figures, to make hostile.
const RICH = [
  'pt-1.0-cached-format',
  'pt-2.x-16417-batch',
  'mygirlgpt-11-4gb',
  'zerodce-52-test',
  'kaito-976-private-pools',
  'lightning-18134-ds-offload',
  'jax-privacy-10-fraction',
  'dcrnn-33-tf-leak',
].map(byId);

const withLines = (text: string, f: (line: string, i: number) => string) =>
  text.split('\n').map(f).join('\n');

/** Hard-wraps at spaces to `width` columns, as mail clients do. */
function hardWrap(text: string, width: number): string {
  return withLines(text, (line) => {
    const out: string[] = [];
    let current = '';
    for (const word of line.split(' ')) {
      if (current !== '' && current.length + 1 + word.length > width) {
        out.push(current);
        current = word;
      } else current = current === '' ? word : `${current} ${word}`;
    }
    out.push(current);
    return out.join('\n');
  });
}

describe('parseOomMessage on hostile copies of real messages', () => {
  const variants: readonly (readonly [string, (t: string) => string])[] = [
    ['torchrun [rank3]: on every line', (t) => withLines(t, (l) => `[rank3]: ${l}`)],
    ['torchrun --tee [default0]:', (t) => withLines(t, (l) => `[default0]:${l}`)],
    ['srun --label 0: ', (t) => withLines(t, (l) => `0: ${l}`)],
    ['Open MPI [1,0]<stderr>:', (t) => withLines(t, (l) => `[1,0]<stderr>:${l}`)],
    ['mail quoting "> "', (t) => withLines(t, (l) => `> ${l}`)],
    ['nested quoting "> > "', (t) => withLines(t, (l) => `> > ${l}`)],
    ['CRLF line ends', (t) => t.replace(/\n/g, '\r\n')],
    [
      'ANSI colours',
      (t) => `\u001b[31m${t.replace(/out of memory/g, '\u001b[1mout of memory\u001b[0m')}\u001b[0m`,
    ],
    ['hard-wrapped at 45 columns, then quoted', (t) => withLines(hardWrap(t, 45), (l) => `> ${l}`)],
    ['hard-wrapped at 30 columns, rank-tagged', (t) => withLines(hardWrap(t, 30), (l) => `[rank1]: ${l}`)],
    ['hard-wrapped at 40 columns, srun-tagged', (t) => withLines(hardWrap(t, 40), (l) => `12: ${l}`)],
    [
      'CRLF, colours and quoting together',
      (t) => withLines(hardWrap(t, 50), (l) => `> \u001b[2m${l}\u001b[0m`).replace(/\n/g, '\r\n'),
    ],
    ['HTML entities from a scraped page', (t) => t.replace(/'/g, '&#39;').replace(/"/g, '&quot;')],
    [
      'inside a longer log',
      (t) => `step 1 loss 2.3\nstep 2 loss 2.1\n${t}\nwandb: Waiting for W&B process to finish`,
    ],
  ];
  for (const c of RICH) {
    it.each(variants)(`${c.id} with %s parses the same`, (_name, transform) => {
      expectMatches(parseOomMessage(transform(c.text)), c.expected);
    });
  }

  it('keeps the rank of a rank-tagged message', () => {
    const text = withLines(byId('pt-2.x-16417-batch').text, (l) => `[rank5]: ${l}`);
    expect(findPrimaryOom(text)?.rank).toBe(5);
    expect(findPrimaryOom(withLines(byId('fsdp-70b-optimizer-step').text, (l) => `0: ${l}`))?.rank).toBe(0);
  });

  it('reads interleaved ranks apart: each rank’s wrapped message stays whole', () => {
    const a = hardWrap(byId('pt-2.x-16417-batch').text, 40).split('\n');
    const b = hardWrap(byId('lerf-73-reserved').text, 40).split('\n');
    const lines: string[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (a[i] !== undefined) lines.push(`[rank0]: ${a[i]}`);
      if (b[i] !== undefined) lines.push(`[rank1]: ${b[i]}`);
    }
    const found = findOomMessages(lines.join('\n'));
    expect(found.map((m) => m.rank)).toEqual([0, 1]);
    expectMatches(found[0]!.oom, byId('pt-2.x-16417-batch').expected);
    expectMatches(found[1]!.oom, byId('lerf-73-reserved').expected);
  });

  it('counts a message printed twice on one rank (traceback, then the launcher summary) once', () => {
    const text = `${byId('kaito-976-private-pools').text}\n...\n${byId('kaito-976-private-pools').text}`;
    expect(findOomMessages(text)).toHaveLength(1);
  });

  it('never reads a wrong number from a message cut anywhere', () => {
    for (const c of RICH) {
      const full = parseOomMessage(c.text) as unknown as Record<string, unknown>;
      for (let cut = 1; cut < c.text.length; cut += 3) {
        const got = parseOomMessage(c.text.slice(0, cut)) as unknown as Record<string, unknown>;
        for (const [key, value] of Object.entries(got)) {
          if (key === 'family' || value === null) continue;
          if (key === 'processes') {
            // A cut list keeps whole entries only.
            expect(full.processes).toEqual(expect.arrayContaining(value as unknown[]));
            continue;
          }
          expect({ id: c.id, cut, key, value }).toEqual({ id: c.id, cut, key, value: full[key] });
        }
      }
    }
  });
});

describe('parseOomMessage on other real layouts', () => {
  it('XPU (c10/xpu/XPUCachingAllocator.cpp; a captured Intel Arc message)', () => {
    const text = [
      'torch.OutOfMemoryError: XPU out of memory. Tried to allocate 20.00 MiB.',
      'GPU 0 has a total capacity of 11.93 GiB of which 5.62 MiB is free.',
      'Of the allocated memory 10.43 GiB is allocated by PyTorch,',
      'and 94.57 MiB is reserved by PyTorch but unallocated.',
    ].join('\n');
    expect(parseOomMessage(text)).toEqual({
      family: 'torch-v2',
      requestedBytes: 20971520,
      totalBytes: Math.round(11.93 * 2 ** 30),
      freeBytes: Math.round(5.62 * 2 ** 20),
      allocatedByTorchBytes: Math.round(10.43 * 2 ** 30),
      reservedUnallocatedBytes: Math.round(94.57 * 2 ** 20),
      reservedTotalBytes: null,
      gpuIndex: 0,
      processes: null,
    });
    expect(findPrimaryOom(text)?.backend).toBe('xpu');
  });

  it('ROCm/HIP, loading with nothing allocated yet', () => {
    const text =
      'torch.OutOfMemoryError: HIP out of memory. Tried to allocate 978.00 MiB. GPU 0 has a total capacity of 15.98 GiB of which 630.00 MiB is free. Of the allocated memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.';
    const m = findPrimaryOom(text)!;
    expect(m.backend).toBe('hip');
    expect(m.oom).toMatchObject({
      family: 'torch-v2',
      requestedBytes: 978 * 2 ** 20,
      freeBytes: 630 * 2 ** 20,
      allocatedByTorchBytes: 0,
      reservedUnallocatedBytes: 0,
    });
  });

  it('two processes, CUDA graphs in private pools, sizes in KiB', () => {
    const text =
      'OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 47.53 GiB of which 896.00 KiB is free. Process 1686436 has 47.51 GiB memory in use. Process 22 has 512.00 MiB memory in use. Of the allocated memory 47.00 GiB is allocated by PyTorch, with 46.22 GiB allocated in private pools (e.g., CUDA Graphs), and 149.10 MiB is reserved by PyTorch but unallocated.';
    expect(parseOomMessage(text)).toMatchObject({
      freeBytes: 896 * 1024,
      processes: [
        { pid: 1686436, bytes: Math.round(47.51 * 2 ** 30) },
        { pid: 22, bytes: 512 * 2 ** 20 },
      ],
      privatePoolsBytes: Math.round(46.22 * 2 ** 30),
      reservedUnallocatedBytes: Math.round(149.1 * 2 ** 20),
    });
  });

  it('Ascend NPU (torch_npu) in the 1.x list layout, with an item PyTorch does not print', () => {
    expect(
      parseOomMessage(
        'RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity; 57.41 GiB already allocated; 57.41 GiB current active; 1.06 GiB free; 58.88 GiB reserved in total by PyTorch)',
      ),
    ).toEqual({
      family: 'torch-v1',
      requestedBytes: 2 * 2 ** 30,
      totalBytes: Math.round(60.97 * 2 ** 30),
      freeBytes: Math.round(1.06 * 2 ** 30),
      allocatedByTorchBytes: Math.round(57.41 * 2 ** 30),
      reservedUnallocatedBytes: null,
      reservedTotalBytes: Math.round(58.88 * 2 ** 30),
      gpuIndex: 0,
      processes: null,
    });
  });

  it('set_per_process_memory_fraction adds "allowed" in both layouts', () => {
    expect(
      parseOomMessage(
        'CUDA out of memory. Tried to allocate 1.00 GiB. GPU 1 has a total capacity of 79.15 GiB of which 60.00 GiB is free. Including non-PyTorch memory, this process has 19.00 GiB memory in use. 20.00 GiB allowed; Of the allocated memory 18.00 GiB is allocated by PyTorch, and 100.00 MiB is reserved by PyTorch but unallocated.',
      ),
    ).toMatchObject({ gpuIndex: 1, allowedBytes: 20 * 2 ** 30, thisProcessInUseBytes: 19 * 2 ** 30 });
    expect(
      parseOomMessage(
        'RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total capacity; 9.00 GiB already allocated; 13.00 GiB free; 10.00 GiB allowed; 9.50 GiB reserved in total by PyTorch)',
      ),
    ).toMatchObject({ family: 'torch-v1', allowedBytes: 10 * 2 ** 30, reservedTotalBytes: 9.5 * 2 ** 30 });
  });

  it('the cudaMallocAsync backend’s table (c10/cuda/CUDAMallocAsyncAllocator.cpp)', () => {
    const text = [
      'torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)',
      'Currently allocated     : 22.43 GiB',
      'Requested               : 4.07 GiB',
      'Device limit            : 16.00 GiB',
      'Free (according to CUDA): 0 bytes',
      'PyTorch limit (set by user-supplied memory fraction)',
      '                        : 17179869184.00 GiB',
    ].join('\n');
    expect(parseOomMessage(text)).toEqual({
      family: 'torch-v2',
      requestedBytes: Math.round(4.07 * 2 ** 30),
      totalBytes: 16 * 2 ** 30,
      freeBytes: 0,
      allocatedByTorchBytes: Math.round(22.43 * 2 ** 30),
      reservedUnallocatedBytes: null,
      reservedTotalBytes: null,
      gpuIndex: 0,
      processes: null,
    });
  });

  it('Apple MPS (aten/src/ATen/mps/MPSAllocator.mm)', () => {
    const m = findPrimaryOom(
      'RuntimeError: MPS backend out of memory (MPS allocated: 18.12 GB, other allocations: 1.05 GB, max allowed: 18.13 GB). Tried to allocate 20.00 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations (may cause system failure).',
    )!;
    expect(m.backend).toBe('mps');
    expect(m.oom).toMatchObject({
      family: 'torch-v2',
      requestedBytes: 20 * 2 ** 20,
      allocatedByTorchBytes: Math.round(18.12 * 2 ** 30),
      allowedBytes: Math.round(18.13 * 2 ** 30),
    });
  });

  it.each([
    [
      'RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510',
      'cuda-runtime',
    ],
    ['torch.AcceleratorError: CUDA error: out of memory', 'cuda-runtime'],
    [
      'RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`',
      'cuda-runtime',
    ],
    ['RuntimeError: Triton Error [CUDA]: out of memory', 'cuda-runtime'],
    [
      'RuntimeError: cublas runtime error : resource allocation failed at /pytorch/aten/src/THC/THCGeneral.cpp:250',
      'cuda-runtime',
    ],
    [
      'host:1:2 [3] NCCL INFO\nhost:1:2 [3] include/alloc.h:48 NCCL WARN Failed to CUDA calloc 4194304 bytes',
      'nccl',
    ],
    ['Error out of memory at line 351 in file /src/csrc/pythonInterface.c', 'bitsandbytes'],
    [
      'RuntimeError: [enforce fail at alloc_cpu.cpp:114] data. DefaultCPUAllocator: not enough memory: you tried to allocate 8589934592 bytes.',
      'host-oom',
    ],
    [
      'numpy.core._exceptions._ArrayMemoryError: Unable to allocate 3.20 GiB for an array with shape (429496730,) and data type float64',
      'host-oom',
    ],
    ['[12345.678] Out of memory: Killed process 4242 (python) total-vm:123456kB', 'host-oom'],
    [
      'torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n  exitcode  : -9 (pid: 1234)',
      'host-oom',
    ],
    [
      'ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).',
      'host-oom',
    ],
    ['./train.sh: line 12: 48213 Killed                  python train.py', 'host-oom'],
    [
      'E external/xla/xla/pjrt/pjrt_stream_executor_client.cc:2809] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory allocating 8589934592 bytes.',
      'xla',
    ],
    [
      'E tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate 3.58G (3840000000 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory',
      'tensorflow',
    ],
  ])('%s → %s', (text, family) => {
    expect(parseOomMessage(text).family).toBe(family);
  });

  it('reads the exact byte counts the other families print', () => {
    expect(parseOomMessage('NCCL WARN Failed to CUDA calloc 4194304 bytes').requestedBytes).toBe(4194304);
    expect(
      parseOomMessage(
        'DefaultCPUAllocator: can’t allocate memory: you tried to allocate 123 bytes'.replace('’', "'"),
      ).requestedBytes,
    ).toBe(123);
    expect(
      parseOomMessage('failed to allocate 3.58G (3840000000 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY')
        .requestedBytes,
    ).toBe(3840000000);
    expect(
      parseOomMessage('XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 8589934592 bytes.'),
    ).toMatchObject({
      family: 'xla',
      requestedBytes: 8589934592,
    });
  });
});

describe('look-alikes and prose', () => {
  it.each([
    'Error operation not supported at line 380 in file /mmfs1/bitsandbytes/csrc/pythonInterface.c',
    'RuntimeError: CUDA error: an illegal memory access was encountered',
    'RuntimeError: CUDA error: device-side assert triggered',
    'RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THC/generic/THCTensorMath.cu:26',
    'grpc._channel._InactiveRpcError: status = StatusCode.RESOURCE_EXHAUSTED details = "Received message larger than max (4194308 vs. 4194304)"',
    'RuntimeError: DataLoader worker (pid 2814) is killed by signal: Segmentation fault.',
    "host:1:2 [0] NCCL WARN Cuda failure 'invalid device ordinal'",
  ])('not an out-of-memory error: %s', (text) => {
    expect(parseOomMessage(text).family).toBe('not-oom');
    expect(findLookAlikeErrors(text)).toHaveLength(1);
  });

  it.each([
    'I keep getting CUDA out of memory errors with batch size 8',
    'we catch torch.cuda.OutOfMemoryError and retry with a smaller batch',
    '"out of memory" during validation',
    'It tried to allocate 3 GiB more than I expected',
    'Loading checkpoint shards: 100%|██████████| 2/2 [00:03<00:00,  1.55s/it]',
  ])('no error message at all: %s', (text) => {
    expect(parseOomMessage(text).family).toBe('none');
  });

  it.each([
    ['anchors repeated on one line', 'CUDA out of memory '.repeat(20_000), 'none'],
    [
      'a v1 list that never closes',
      `Tried to allocate 1.00 GiB (GPU 0; ${'1.00 GiB free; '.repeat(50_000)}`,
      'torch-v1',
    ],
    ['RESOURCE_EXHAUSTED 50 000 times', 'RESOURCE_EXHAUSTED: '.repeat(50_000), 'not-oom'],
    ['200 000 "Killed" lines', 'Killed\n'.repeat(200_000), 'host-oom'],
    ['a 4 MB log of noise', `${'x'.repeat(200)}\n`.repeat(20_000), 'none'],
  ])('hostile sizes stay linear: %s', (_name, text, family) => {
    expect(parseOomMessage(text).family).toBe(family);
  });

  it('prefers the real OOM to a look-alike in the same log', () => {
    const text = `RuntimeError: CUDA error: device-side assert triggered\n${byId('pt-2.x-16417-batch').text}`;
    expect(parseOomMessage(text).family).toBe('torch-v2');
  });
});
