/**
 * fit, plan and gpus --for print memory as a range, the estimate then its upper bound, as estimate does:
 * the verdict judges the upper end, so a single point figure beside "✓" would be a false one. Each
 * human figure is checked against the same command's --json.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORMATS } from '../src/words/format.js';
import { REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const range = FORMATS.en.bytesRange;

function headroom(args: readonly string[]): string {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', HF_ENDPOINT: 'http://127.0.0.1:9' },
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout;
}
const json = <T>(args: readonly string[]): T => JSON.parse(headroom([...args, '--json'])) as T;

interface Levels {
  readonly deviceBytes: number;
}
interface WithRange {
  readonly peak: Levels;
  readonly upper: Levels;
  readonly breakdown: Record<string, number>;
}

const QLORA = [
  'llama-3.1-8b',
  '--method',
  'qlora',
  '--quantization',
  'nf4',
  '--gradient-checkpointing',
  'full',
];
const LORA = ['llama-3.1-8b', '--method', 'lora', '--seq-len', '2048'];

describe('the range in fit, plan and gpus --for', () => {
  it('fit prints each limit from its estimate to its upper bound, and says what the range means', () => {
    const args = ['fit', ...QLORA, '--seq-len', '2048', '--gpu', 'rtx-4090'];
    const out = json<{ microBatch: { value: number; estimate: WithRange } }>(args);
    const e = out.microBatch.estimate;
    expect(e.upper.deviceBytes).toBeGreaterThan(e.peak.deviceBytes);
    const text = headroom(args);
    const line = text.split('\n').find((l) => l.includes('micro-batch')) ?? '';
    expect(line).toContain(`${out.microBatch.value} × 2048`);
    expect(line).toContain(range(e.peak.deviceBytes, e.upper.deviceBytes));
    expect(line).toContain('▒');
    expect(text).toContain('the upper bound nine runs in ten of its kind stayed under');
    expect(headroom([...args, '--lang', 'zh'])).toContain('显存以范围表示');
  });

  it('plan prints each rung as a range, and the free memory at the upper bound', () => {
    const args = ['plan', ...LORA, '--gpu', 'rtx-4090'];
    const plan = json<{
      target: { usableBytes: number };
      rungs: { estimate: WithRange; fits: boolean }[];
    }>(args);
    const last = plan.rungs.at(-1);
    expect(last?.fits).toBe(true);
    if (!last) return;
    const text = headroom(args);
    const { peak, upper } = last.estimate;
    expect(text).toContain(range(peak.deviceBytes, upper.deviceBytes));
    expect(text).toContain(
      `per GPU, ${FORMATS.en.bytes(plan.target.usableBytes - upper.deviceBytes)} free at the upper bound`,
    );
  });

  it('gpus --for prints the range per GPU and carries the upper bound in --json', () => {
    const args = ['gpus', '--for', ...LORA];
    const out = json<{ options: { gpu: string; peak: Levels; upper: Levels }[] }>(args);
    const first = out.options[0];
    expect(first).toBeDefined();
    if (!first) return;
    expect(first.upper.deviceBytes).toBeGreaterThan(first.peak.deviceBytes);
    const row = headroom(args)
      .split('\n')
      .find((l) => l.startsWith(first.gpu));
    expect(row).toContain(range(first.peak.deviceBytes, first.upper.deviceBytes));
  });
});
