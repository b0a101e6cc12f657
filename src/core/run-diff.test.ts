import { describe, expect, it } from 'vitest';
import { say } from '../words/catalog.js';
import { RUNS } from '../words/runs.js';
import { commandOptions, diffRuns, type RunDiffWarning } from './run-diff.js';
import { runRecord } from './test-helpers/run-record.js';
import { GIB, MIB } from './units.js';

/** The warning in English, as `runs diff` prints it. */
const english = (warning: RunDiffWarning | null) => (warning === null ? null : say(RUNS, 'en', warning));
const peak = (bytes: number) => ({ bytes, atMs: 0, step: null, gpu: 0 });

describe('commandOptions', () => {
  it('reads --key value, --key=value, flags and positionals', () => {
    expect([
      ...commandOptions([
        'torchrun',
        '--nproc-per-node=2',
        'train.py',
        '--batch-size',
        '8',
        '--bf16',
        '--lr',
        '-1e-4',
        'cfg.yaml',
      ]),
    ]).toEqual([
      ['program', 'torchrun'],
      ['--nproc-per-node', '2'],
      ['arg1', 'train.py'],
      ['--batch-size', '8'],
      ['--bf16', 'true'],
      ['--lr', '-1e-4'],
      ['arg2', 'cfg.yaml'],
    ]);
  });
});

describe('diffRuns', () => {
  it('one changed command option: no warning, peak deltas', () => {
    const a = runRecord({
      id: 3,
      command: ['python', 'train.py', '--batch-size', '4'],
      peakAllocated: peak(10 * GIB),
      peakReserved: peak(11 * GIB),
    });
    const b = runRecord({
      id: 4,
      command: ['python', 'train.py', '--batch-size', '8'],
      peakAllocated: peak(12 * GIB),
      peakReserved: peak(11 * GIB),
    });
    expect(diffRuns(a, b)).toEqual({
      a: 3,
      b: 4,
      comparedBy: 'command',
      changes: [{ name: '--batch-size', a: '4', b: '8' }],
      peaks: [
        { layer: 'allocated', aBytes: 10 * GIB, bBytes: 12 * GIB, deltaBytes: 2 * GIB, deltaPercent: 20 },
        { layer: 'reserved', aBytes: 11 * GIB, bBytes: 11 * GIB, deltaBytes: 0, deltaPercent: 0 },
        { layer: 'device', aBytes: null, bBytes: null, deltaBytes: null, deltaPercent: null },
      ],
      warning: null,
    });
  });

  it('scenario fields name the variables; more than one changed gets the warning', () => {
    const a = runRecord({
      id: 1,
      scenario: {
        model: 'llama-3.1-8b',
        microBatchSize: 4,
        seqLen: 2048,
        lora: { rank: 16, targets: ['q_proj', 'v_proj'] },
      },
    });
    const b = runRecord({
      id: 2,
      scenario: {
        model: 'llama-3.1-8b',
        microBatchSize: 8,
        seqLen: 2048,
        lora: { rank: 32, targets: ['q_proj', 'v_proj'] },
      },
    });
    const diff = diffRuns(a, b);
    expect(diff.comparedBy).toBe('scenario');
    expect(diff.changes).toEqual([
      { name: 'microBatchSize', a: '4', b: '8' },
      { name: 'lora.rank', a: '16', b: '32' },
    ]);
    expect(english(diff.warning)).toBe(
      '2 variables changed (microBatchSize, lora.rank): the change in peak memory cannot be put down to one of them; change one at a time',
    );
  });

  it('the same scenario but another script flag: the command line says what changed; so does the GPU', () => {
    const scenario = { model: 'qwen2.5-7b', microBatchSize: 4 };
    const a = runRecord({
      id: 1,
      scenario,
      command: ['python', 't.py', '--packing', 'false'],
      env: { gpus: [{ name: 'NVIDIA A10G' }] },
    });
    const b = runRecord({
      id: 2,
      scenario,
      command: ['python', 't.py', '--packing', 'true'],
      env: { gpus: [{ name: 'NVIDIA L40S' }] },
    });
    const diff = diffRuns(a, b);
    expect(diff.comparedBy).toBe('command');
    expect(diff.changes).toEqual([
      { name: '--packing', a: 'false', b: 'true' },
      { name: 'gpu', a: 'NVIDIA A10G', b: 'NVIDIA L40S' },
    ]);
    expect(english(diff.warning)).toMatch(/^2 variables changed \(--packing, gpu\)/);
  });

  it('nothing recorded differs: says so', () => {
    const a = runRecord({ id: 5, command: ['python', 't.py'], peakAllocated: peak(100 * MIB) });
    const b = runRecord({ id: 6, command: ['python', 't.py'], peakAllocated: peak(90 * MIB) });
    const diff = diffRuns(a, b);
    expect(diff.changes).toEqual([]);
    expect(diff.peaks[0]).toEqual({
      layer: 'allocated',
      aBytes: 100 * MIB,
      bBytes: 90 * MIB,
      deltaBytes: -10 * MIB,
      deltaPercent: -10,
    });
    expect(english(diff.warning)).toBe(
      'nothing recorded differs between runs 5 and 6: a difference in memory comes from something not recorded (data, library versions) or is noise',
    );
  });
});
