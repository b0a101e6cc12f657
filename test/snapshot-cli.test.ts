/** `headroom snapshot` as a user runs it: the built binary on the real snapshots and on bad files. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shapeFromConfig } from '../src/core/architecture.js';
import { findModel } from '../src/core/catalog/index.js';
import { estimate } from '../src/core/estimate.js';
import { parseScenario } from '../src/core/scenario.js';
import { analyseSnapshot } from '../src/core/snapshot/analyse.js';
import { allocatedParts } from '../src/core/snapshot/compare.js';
import { formatBytes } from '../src/core/units.js';
import { REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const DIR = join(REPO_ROOT, 'data', 'fixtures', 'snapshots');
const FTCOURSE = join(DIR, 'ftcourse_memory_snapshot.pickle');
const EOR = join(DIR, 'eor_nn_snapshot.pickle');

function headroom(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', LANG: 'C', LC_ALL: '', HF_ENDPOINT: 'http://127.0.0.1:9' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('headroom snapshot FILE', () => {
  it('--json carries every fact expected.jsonl names, under its names', () => {
    for (const line of readFileSync(join(DIR, 'expected.jsonl'), 'utf8').trim().split('\n')) {
      const { file, ...facts } = JSON.parse(line) as Record<string, unknown>;
      const r = headroom('snapshot', join(DIR, String(file)), '--json');
      expect(r.code).toBe(0);
      const json = JSON.parse(r.stdout) as Record<string, unknown>;
      for (const [key, value] of Object.entries(facts))
        expect({ key, value: json[key] }).toEqual({ key, value });
    }
  });

  it('shows the totals, the peak, the parts, the rules and the sites', () => {
    const r = headroom('snapshot', FTCOURSE, '--top', '3');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('reserved 6.03 GiB (215 segments) · allocated 2.14 GiB (802 active blocks)');
    expect(r.stdout).toContain('cached (inactive) 3.89 GiB · largest free block 124 MiB');
    expect(r.stdout).toContain(
      `peak of live memory: ${formatBytes(5_888_007_460)} after event 3,698 of 10,307 · reserved then`,
    );
    expect(r.stdout).toMatch(/^ {2}activations +█+.* 4\.45 GiB$/m);
    expect(r.stdout).toContain("made in a module's forward");
    expect(r.stdout).toContain('bitsandbytes/autograd/_functions.py:509 forward');
    // --top 3: three sites.
    const sites = r.stdout.split('largest allocation sites')[1]!.split('findings')[0]!;
    expect(sites.trim().split('\n').slice(2)).toHaveLength(3);
    expect(r.stdout).toContain('is cached but unused (65 %)');
  });

  it('speaks Chinese with --lang zh', () => {
    const r = headroom('snapshot', FTCOURSE, '--lang', 'zh', '--top', '2');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('存活显存峰值');
    expect(r.stdout).toContain('激活');
  });

  it('sets the estimate beside the snapshot with a scenario', () => {
    const fields = {
      model: 'llama-3.2-1b',
      method: 'qlora',
      quantization: 'nf4',
      microBatchSize: 4,
      seqLen: 1024,
    };
    const r = headroom(
      'snapshot',
      FTCOURSE,
      '--model',
      'llama-3.2-1b',
      '--method',
      'qlora',
      '--quantization',
      'nf4',
      '--micro-batch',
      '4',
      '--seq-len',
      '1024',
      '--json',
    );
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as {
      comparison: {
        parts: { part: string; estimateBytes: number; measuredBytes: number; error: number | null }[];
      };
    };
    const e = estimate({
      scenario: parseScenario(fields),
      shape: shapeFromConfig(findModel('llama-3.2-1b')!),
    });
    const expected = allocatedParts(e);
    const measured = analyseSnapshot(readFileSync(FTCOURSE)).peaks[0]!.live.parts;
    const activations = json.comparison.parts.find((p) => p.part === 'activations')!;
    expect(activations.estimateBytes).toBe(expected.activations);
    expect(activations.measuredBytes).toBe(measured.activations);
    expect(activations.error).toBeCloseTo(
      (expected.activations - measured.activations) / measured.activations,
      12,
    );
    const human = headroom(
      'snapshot',
      FTCOURSE,
      '--model',
      'llama-3.2-1b',
      '--method',
      'qlora',
      '--quantization',
      'nf4',
    );
    expect(human.stdout).toContain('the estimate beside the snapshot (torch-allocated bytes)');
    expect(human.stdout).toMatch(
      /the estimate is furthest off on \w+: [\d.]+ \w?i?B estimated, [\d.]+ \w?i?B measured \(([+-]\d+ %|—)\)/,
    );
  });

  it('compares two snapshots: A B', () => {
    const r = headroom('snapshot', EOR, FTCOURSE, '--json');
    expect(r.code).toBe(0);
    const { diff } = JSON.parse(r.stdout) as {
      diff: { facts: { key: string; delta: number }[]; basis: string };
    };
    expect(diff.basis).toBe('trace-peak');
    expect(diff.facts.find((f) => f.key === 'reservedBytes')!.delta).toBe(6_471_811_072 - 134_217_728);
    const human = headroom('snapshot', EOR, FTCOURSE);
    expect(human.stdout).toContain('from the first snapshot to the second');
    expect(human.stdout).toContain('sites that changed most');
  });
});

describe('headroom snapshot: bad input', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'headroom-snapshot-cli-'));

  it.each([
    ['a missing file', [join(tmp, 'nope.pickle')], `no file ${join(tmp, 'nope.pickle')}`],
    ['a folder', [tmp], `${tmp} is a folder, not a snapshot file`],
    ['no file', [], 'snapshot needs the .pickle file of a memory snapshot'],
    ['a setup flag without a model', [FTCOURSE, '--micro-batch', '4'], '--micro-batch describes a setup'],
    ['a bad --top', [FTCOURSE, '--top', '0'], '--top 0: not a whole number of at least 1'],
  ])('%s: a message and a hint, no stack trace', (_name, args, message) => {
    const r = headroom('snapshot', ...args);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('Try: ');
    expect(r.stderr).not.toContain('    at ');
  });

  it('a pickle that would run code: refused, naming the file, the opcode and the offset', () => {
    const file = join(tmp, 'evil.pickle');
    writeFileSync(file, Buffer.from([0x80, 4, 0x63, ...Buffer.from('os\nsystem\n'), 0x2e]));
    const r = headroom('snapshot', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}: byte 2: opcode GLOBAL (0x63) would import or call a Python object`);
  });

  it('a JSON file: not a pickle', () => {
    const file = join(tmp, 'snapshot.json');
    writeFileSync(file, '{"segments": []}');
    expect(headroom('snapshot', file).stderr).toContain('not a pickle of protocol 2 or later');
  });
});
