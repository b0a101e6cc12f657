/**
 * The words of `diagnose RUN` reading the run's allocator snapshot (src/core/diagnose/snapshot.ts):
 * what was live at the moment of failure, by part, and which part the estimate got wrong.
 */
import type { SnapshotExplainParams, SnapshotMoment } from '../core/diagnose/snapshot.js';
import type { SnapshotPart } from '../core/snapshot/attribute.js';
import { PART_ERROR_SHARE } from '../core/snapshot/compare.js';
import { defineDomain } from './catalog.js';
import { formatError, SNAPSHOT_WORDS } from './snapshot.js';

const MOMENT_EN: Readonly<Record<SnapshotMoment, string>> = {
  'oom-event': 'when the allocation failed',
  'oom-snapshot': 'at the out-of-memory',
  'trace-peak': "at the trace's peak",
  'end-state': 'when the snapshot was written',
};
const MOMENT_ZH: Readonly<Record<SnapshotMoment, string>> = {
  'oom-event': '分配失败时',
  'oom-snapshot': '显存不足时',
  'trace-peak': '在记录的峰值处',
  'end-state': '写快照时',
};

const partEn = (p: SnapshotPart) => SNAPSHOT_WORDS.en.parts[p];
const partZh = (p: SnapshotPart) => SNAPSHOT_WORDS.zh.parts[p];

/** The section's heading and the moment's words, beside the findings. */
export interface DiagnoseSnapshotParams extends SnapshotExplainParams {
  readonly heading: { readonly path: string; readonly rank: number; readonly moment: SnapshotMoment };
  readonly 'sites-heading': Readonly<Record<string, never>>;
}

export const DIAGNOSE_SNAPSHOT = defineDomain<DiagnoseSnapshotParams>({
  name: 'diagnose-snapshot',
  words: {
    en: {
      heading: (p) => `the allocator snapshot (rank ${p.rank}, ${MOMENT_EN[p.moment]}): ${p.path}`,
      'sites-heading': () => 'largest allocation sites then',
      'live-parts': (p, f) =>
        `${MOMENT_EN[p.moment]} ${f.bytes(p.liveBytes)} was live${p.requestedBytes === null ? '' : ` and ${f.bytes(p.requestedBytes)} more was asked for`}; the largest part: ${partEn(p.part)}, ${f.bytes(p.partBytes)} (${f.percent(p.share)})`,
      'unattributed-share': (p, f) =>
        `${f.bytes(p.bytes)} (${f.percent(p.share)}) of it could not be given a part${p.beforeRecordingBytes > 0 ? `; ${f.bytes(p.beforeRecordingBytes)} was allocated before recording began (import headroom_probe right after torch)` : ''}`,
      'estimate-part-low': (p, f) =>
        `the estimate's ${partEn(p.part)} part is too low: ${f.bytes(p.estimateBytes)} estimated, ${f.bytes(p.measuredBytes)} live (${formatError(p.error)}); check the scenario against the run`,
      'estimate-part-high': (p, f) =>
        `the estimate's ${partEn(p.part)} part is too high: ${f.bytes(p.estimateBytes)} estimated, ${f.bytes(p.measuredBytes)} live (${formatError(p.error)})`,
      'estimate-parts-agree': (p, f) =>
        `each part is within ${f.percent(PART_ERROR_SHARE)} of the estimate (${f.bytes(p.estimateBytes)} estimated, ${f.bytes(p.measuredBytes)} live): the scenario describes the run`,
      'snapshot-missing': (p) => `the run points at a snapshot that is not there: ${p.path}`,
      'snapshot-refused': (p) =>
        `the run's snapshot is recorded outside its folders and was not read: ${p.path} (headroom snapshot FILE reads it)`,
      'snapshot-unreadable': (p) => `the run's snapshot could not be read: ${p.path}: ${p.detail}`,
    },
    zh: {
      heading: (p) => `分配器快照（rank ${p.rank}，${MOMENT_ZH[p.moment]}）：${p.path}`,
      'sites-heading': () => '当时最大的分配位置',
      'live-parts': (p, f) =>
        `${MOMENT_ZH[p.moment]}有 ${f.bytes(p.liveBytes)} 在用${p.requestedBytes === null ? '' : `，又申请了 ${f.bytes(p.requestedBytes)}`}；最大的部分：${partZh(p.part)}，${f.bytes(p.partBytes)}（${f.percent(p.share)}）`,
      'unattributed-share': (p, f) =>
        `其中 ${f.bytes(p.bytes)}（${f.percent(p.share)}）无法归入任何部分${p.beforeRecordingBytes > 0 ? `；${f.bytes(p.beforeRecordingBytes)} 在开始记录之前就已分配（在 torch 之后立即 import headroom_probe）` : ''}`,
      'estimate-part-low': (p, f) =>
        `估算的${partZh(p.part)}偏低：估算 ${f.bytes(p.estimateBytes)}，实际在用 ${f.bytes(p.measuredBytes)}（${formatError(p.error)}）；请核对场景与实际运行`,
      'estimate-part-high': (p, f) =>
        `估算的${partZh(p.part)}偏高：估算 ${f.bytes(p.estimateBytes)}，实际在用 ${f.bytes(p.measuredBytes)}（${formatError(p.error)}）`,
      'estimate-parts-agree': (p, f) =>
        `每个部分都与估算相差不到 ${f.percent(PART_ERROR_SHARE)}（估算 ${f.bytes(p.estimateBytes)}，实际在用 ${f.bytes(p.measuredBytes)}）：场景与实际运行相符`,
      'snapshot-missing': (p) => `运行指向的快照不存在：${p.path}`,
      'snapshot-refused': (p) =>
        `运行的快照记录在其文件夹之外，未读取：${p.path}（可用 headroom snapshot FILE 读取）`,
      'snapshot-unreadable': (p) => `无法读取运行的快照：${p.path}：${p.detail}`,
    },
  },
  examples: {
    heading: { path: '/home/me/.headroom/runs/7/memory-snapshot.pickle', rank: 0, moment: 'oom-event' },
    'sites-heading': {},
    'live-parts': {
      moment: 'oom-event',
      liveBytes: 100 * 2 ** 30,
      part: 'activations',
      partBytes: 60 * 2 ** 30,
      share: 0.6,
      requestedBytes: 2 ** 30,
    },
    'unattributed-share': { bytes: 2 ** 30, share: 0.2, beforeRecordingBytes: 2 ** 29 },
    'estimate-part-low': {
      part: 'activations',
      estimateBytes: 30 * 2 ** 30,
      measuredBytes: 60 * 2 ** 30,
      error: -0.5,
    },
    'estimate-part-high': { part: 'optimizer', estimateBytes: 2 ** 33, measuredBytes: 2 ** 32, error: 1 },
    'estimate-parts-agree': { estimateBytes: 2 ** 36, measuredBytes: 2 ** 36 },
    'snapshot-missing': { path: '/runs/7/memory-snapshot.pickle' },
    'snapshot-refused': { path: '/etc/memory-snapshot.pickle' },
    'snapshot-unreadable': { path: '/runs/7/memory-snapshot.pickle', detail: 'byte 2: opcode GLOBAL' },
  },
});
