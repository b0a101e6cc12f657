/**
 * The words of a run's allocator snapshots: `headroom run --snapshot` saying it records, the lines
 * `run`, `runs show` and the run page give each snapshot the probe wrote. Codes and figures come from
 * src/core/run/snapshot.ts and src/core/run-record.ts (RunSnapshot).
 */
import type { NoParams } from '../core/message.js';
import type { SnapshotReason } from '../core/run-record.js';
import { defineDomain } from './catalog.js';

export interface RunSnapshotParams {
  readonly recording: { readonly entries: number; readonly dir: string };
  readonly heading: NoParams;
  readonly line: {
    readonly reason: SnapshotReason;
    readonly rank: number;
    readonly step: number | null;
    readonly bytes: number;
    readonly path: string;
  };
  readonly read: { readonly runId: number };
  readonly 'open-link': { readonly reason: SnapshotReason; readonly rank: number };
}

const REASON_EN: Readonly<Record<SnapshotReason, string>> = {
  oom: 'at the out-of-memory',
  exit: 'at exit',
  manual: 'on request',
};
const REASON_ZH: Readonly<Record<SnapshotReason, string>> = {
  oom: '显存不足时',
  exit: '退出时',
  manual: '按请求',
};

export const RUN_SNAPSHOT = defineDomain<RunSnapshotParams>({
  name: 'run-snapshot',
  words: {
    en: {
      recording: (p, f) =>
        `headroom: recording PyTorch's memory history (at most ${f.count(p.entries)} entries); an out-of-memory writes the allocator snapshot to ${p.dir}`,
      heading: () => 'allocator snapshots:',
      line: (p, f) =>
        `${REASON_EN[p.reason]}, rank ${p.rank}${p.step === null ? '' : `, after step ${p.step}`}: ${p.path} (${f.bytes(p.bytes)})`,
      read: (p) => `which tensors: headroom diagnose ${p.runId} · headroom snapshot FILE`,
      'open-link': (p) => `Allocator snapshot ${REASON_EN[p.reason]} (rank ${p.rank})`,
    },
    zh: {
      recording: (p, f) =>
        `headroom：正在记录 PyTorch 显存历史（最多 ${f.count(p.entries)} 条）；显存不足时把分配器快照写到 ${p.dir}`,
      heading: () => '分配器快照：',
      line: (p, f) =>
        `${REASON_ZH[p.reason]}，rank ${p.rank}${p.step === null ? '' : `，第 ${p.step} 步之后`}：${p.path}（${f.bytes(p.bytes)}）`,
      read: (p) => `是哪些张量：headroom diagnose ${p.runId} · headroom snapshot FILE`,
      'open-link': (p) => `分配器快照（${REASON_ZH[p.reason]}，rank ${p.rank}）`,
    },
  },
  examples: {
    recording: { entries: 100_000, dir: '/home/me/.headroom/runs/7' },
    heading: {},
    line: {
      reason: 'oom',
      rank: 0,
      step: 12,
      bytes: 12_582_912,
      path: '/home/me/.headroom/runs/7/memory-snapshot.pickle',
    },
    read: { runId: 7 },
    'open-link': { reason: 'oom', rank: 0 },
  },
});
