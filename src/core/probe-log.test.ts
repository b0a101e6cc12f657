import { describe, expect, it } from 'vitest';
import { MAX_PROBE_LINE_BYTES, parseProbeLine } from './probe-log.js';

const base = '"v":1,"t":1767225600.25,"pid":4242,"rank":1,"localRank":1,"worldSize":2';
const device =
  '{"index":0,"allocatedBytes":1048576000,"reservedBytes":1363148800,"peakAllocatedBytes":1363148800,"peakReservedBytes":1363148800,"inactiveSplitBytes":314572800,"numAllocRetries":0,"numOoms":0}';

describe('parseProbeLine', () => {
  it('reads a step with its devices, exactly', () => {
    const line = `{${base},"event":"step","step":12,"phase":"train","loss":2.5,"lr":0.0001,"batchSize":4,"seqLen":512,"durationS":0.41,"devices":[${device}]}`;
    expect(parseProbeLine(line)).toEqual({
      ok: true,
      event: {
        v: 1,
        t: 1767225600.25,
        pid: 4242,
        rank: 1,
        localRank: 1,
        worldSize: 2,
        event: 'step',
        step: 12,
        phase: 'train',
        loss: 2.5,
        lossText: null,
        lr: 0.0001,
        batchSize: 4,
        seqLen: 512,
        durationS: 0.41,
        devices: [
          {
            index: 0,
            allocatedBytes: 1048576000,
            reservedBytes: 1363148800,
            peakAllocatedBytes: 1363148800,
            peakReservedBytes: 1363148800,
            inactiveSplitBytes: 314572800,
            numAllocRetries: 0,
            numOoms: 0,
          },
        ],
      },
    });
  });

  it('reads an OOM with its text, traceback, phase and peaks', () => {
    const line = JSON.stringify({
      v: 1,
      t: 1,
      pid: 7,
      rank: 0,
      localRank: 0,
      worldSize: 1,
      event: 'oom',
      type: 'torch.OutOfMemoryError',
      message: 'CUDA out of memory. Tried to allocate 2.00 GiB.',
      traceback:
        'Traceback (most recent call last):\n  ...\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n',
      phase: 'eval',
      step: 40,
      thread: null,
      devices: [JSON.parse(device)],
    });
    const parsed = parseProbeLine(line);
    expect(parsed.ok && parsed.event).toMatchObject({
      event: 'oom',
      type: 'torch.OutOfMemoryError',
      phase: 'eval',
      step: 40,
      thread: null,
      devices: [{ peakAllocatedBytes: 1363148800 }],
    });
  });

  it('reads start, device, phase and end records, and keeps an unknown kind whole', () => {
    const kinds = [
      `{${base},"event":"start","probeVersion":"1","host":"gpu1","argv":["train.py"],"python":"3.11.7","torch":"2.5.1","cuda":"12.4","bitsandbytes":"0.42.0","cudaVisibleDevices":"0,1"}`,
      `{${base},"event":"device","index":0,"name":"NVIDIA H200","totalBytes":150754820096,"uuid":"GPU-1"}`,
      `{${base},"event":"phase","phase":"eval","previous":"train","step":3,"devices":[]}`,
      `{${base},"event":"end","reason":"exit","steps":3}`,
      `{${base},"event":"checkpoint","path":"/ckpt/3"}`,
    ].map(parseProbeLine);
    expect(kinds.map((k) => (k.ok ? k.event.event : k.problem.code))).toEqual([
      'start',
      'device',
      'phase',
      'end',
      'other',
    ]);
    const other = kinds[4]!;
    expect(other.ok && other.event.event === 'other' && [other.event.kind, other.event.raw.path]).toEqual([
      'checkpoint',
      '/ckpt/3',
    ]);
    expect(kinds[0]!.ok && kinds[0]!.event).toMatchObject({
      argv: ['train.py'],
      torch: '2.5.1',
      bitsandbytes: '0.42.0',
      cudaVisibleDevices: '0,1',
    });
  });

  it('reads a snapshot record: its file, size, reason and bound; an older probe\'s "request" is manual', () => {
    const line = (reason: string) =>
      parseProbeLine(
        `{${base},"event":"snapshot","path":"/runs/7/memory-snapshot.pickle","bytes":4096,"reason":"${reason}","entries":100000,"step":3}`,
      );
    const oom = line('oom');
    expect(oom.ok && oom.event).toMatchObject({
      event: 'snapshot',
      path: '/runs/7/memory-snapshot.pickle',
      bytes: 4096,
      reason: 'oom',
      entries: 100000,
      step: 3,
    });
    const asked = line('request');
    expect(asked.ok && asked.event.event === 'snapshot' && asked.event.reason).toBe('manual');
    const bad = line('bored');
    expect(!bad.ok && bad.problem.detail).toBe('"reason" is "bored", not oom, exit or manual');
  });

  it('a non-finite loss arrives as null with its text', () => {
    const parsed = parseProbeLine(
      `{${base},"event":"step","step":1,"loss":null,"lossText":"nan","devices":[]}`,
    );
    expect(parsed.ok && parsed.event.event === 'step' && [parsed.event.loss, parsed.event.lossText]).toEqual([
      null,
      'nan',
    ]);
  });

  it.each([
    ['a line cut by a killed writer', `{${base},"event":"step","step":12,"devi`, 'truncated'],
    ['garbage', 'Segmentation fault (core dumped)', 'not-json'],
    ['an empty object', '{}', 'invalid'],
    ['an array', '[1,2]', 'invalid'],
    ['a step without its number', `{${base},"event":"step","devices":[]}`, 'invalid'],
    ['devices that are not a list', `{${base},"event":"step","step":1,"devices":{}}`, 'invalid'],
    ['a device without bytes', `{${base},"event":"step","step":1,"devices":[{"index":0}]}`, 'invalid'],
    ['an end with an unknown reason', `{${base},"event":"end","reason":"bored","steps":1}`, 'invalid'],
    ['a line longer than the limit', `{"x":"${'a'.repeat(MAX_PROBE_LINE_BYTES)}"}`, 'too-long'],
  ])('reports %s as a problem, never throws', (_name, line, code) => {
    const parsed = parseProbeLine(line);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problem.code).toBe(code);
    expect(!parsed.ok && parsed.problem.excerpt.length).toBeLessThanOrEqual(201);
  });

  it('names the field at fault', () => {
    const parsed = parseProbeLine(`{${base},"event":"step","step":"twelve"}`);
    expect(!parsed.ok && parsed.problem.message).toBe('not a probe event: "step" is not a number');
  });
});
