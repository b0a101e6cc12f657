/**
 * Every word `headroom snapshot` and the dashboard's snapshot page show, in English (EN) and Simplified
 * Chinese (ZH): two objects of one `SnapshotWords` type, which TypeScript checks for completeness. The
 * results are data (snapshot/analyse.ts); figures are formatted here, at the edge.
 */

import type { SnapshotFindingCode, SnapshotFindingParams } from '../core/snapshot/analyse.js';
import type { AttributionRule, SiteKind, SnapshotPart } from '../core/snapshot/attribute.js';
import { formatBytes } from '../core/units.js';
import type { Lang } from './lang.js';

export type FindingText<P> = (p: P) => { readonly title: string; readonly hint: string };

export interface SnapshotWords {
  readonly lang: Lang;
  readonly parts: Readonly<Record<SnapshotPart | 'unattributed', string>>;
  /** Why an allocation got its part: one short reason per rule. */
  readonly rules: Readonly<Record<AttributionRule, string>>;
  /** How a site without a Python frame is shown. */
  readonly sites: Readonly<Record<Exclude<SiteKind, 'python'>, string>>;
  readonly findings: { readonly [C in SnapshotFindingCode]: FindingText<SnapshotFindingParams[C]> };
  readonly labels: {
    readonly title: string;
    readonly segments: string;
    readonly reserved: string;
    readonly allocated: string;
    readonly requested: string;
    readonly cached: string;
    readonly largestFree: string;
    readonly activeBlocks: string;
    readonly pendingFree: string;
    readonly trace: string;
    readonly events: string;
    readonly noTrace: string;
    readonly peak: string;
    readonly atEvent: (index: number, events: number) => string;
    readonly beforeFirstEvent: string;
    readonly eventNumber: (index: number) => string;
    readonly reservedThen: string;
    readonly byPartAtPeak: string;
    readonly byPartAtEnd: string;
    readonly live: string;
    readonly topSites: string;
    readonly why: string;
    readonly bytes: string;
    readonly count: string;
    readonly part: string;
    readonly site: string;
    readonly oom: string;
    readonly ooms: string;
    readonly oomLine: (requested: number, free: number, active: number) => string;
    readonly findings: string;
    readonly tryHint: string;
    readonly estimate: string;
    readonly measured: string;
    readonly error: string;
    readonly vsEstimate: string;
    readonly worst: (part: string, estimate: number, measured: number, error: string) => string;
    readonly totalLine: (estimate: number, measured: number, error: string) => string;
    readonly diffTitle: string;
    readonly change: string;
    readonly sitesGrew: string;
    readonly timeline: string;
    readonly active: string;
    readonly pickFile: string;
    readonly dropHere: string;
    readonly reading: string;
    readonly uploadNote: string;
  };
}

const pct = (share: number) => `${(share * 100).toFixed(0)} %`;
const signedPct = (error: number) =>
  Number.isFinite(error) ? `${error >= 0 ? '+' : ''}${(error * 100).toFixed(0)} %` : '—';

/** The error of a comparison as "+12 %", "−40 %", or "—" when nothing was measured. */
export function formatError(error: number | null): string {
  return error === null ? '—' : signedPct(error);
}

export const EN: SnapshotWords = {
  lang: 'en',
  parts: {
    weights: 'weights',
    gradients: 'gradients',
    optimizer: 'optimizer',
    activations: 'activations',
    runtime: 'runtime',
    unattributed: 'unattributed',
  },
  rules: {
    'library-workspace': 'a cuBLAS/cuDNN workspace',
    'cublas-workspace-size': "no stack, but cuBLAS's workspace size",
    communication: 'NCCL / c10d / DDP buckets',
    'optimizer-step': 'made in the optimizer (states, step temporaries)',
    'weights-load': 'loading or moving the model (from_pretrained, load_state_dict, .to/.cuda)',
    'adapter-weights': 'adapter weights (peft)',
    'dequantized-weight': 'a dequantized copy of a quantized weight',
    'autocast-weight-copy': "autocast's low-precision copy of a weight",
    'fsdp-gathered-weights': "FSDP's all-gathered weights",
    'fsdp-reduced-gradients': "FSDP's reduce-scattered gradients",
    'accumulate-grad': 'accumulated into .grad',
    'backward-kept': 'made in backward and kept after it',
    'backward-transient': 'made and freed inside backward',
    'freed-by-zero-grad': 'allocated before the trace, freed by zero_grad',
    forward: "made in a module's forward (saved for backward or a temporary)",
    'no-stack': 'no stack was recorded',
    'before-recording': 'allocated before recording began',
    'unknown-stack': 'its stack matches no rule',
  },
  sites: {
    autograd: 'autograd',
    cpp: '<C++ only>',
    none: '<no stack recorded>',
  },
  findings: {
    'fragmentation-high': (p) => ({
      title: `${formatBytes(p.inactiveBytes)} of the ${formatBytes(p.reservedBytes)} reserved is cached but unused (${pct(p.share)}); the largest free block is ${formatBytes(p.largestInactiveBlockBytes)}`,
      hint: 'a request larger than the largest free block needs a new segment: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True lets segments grow instead of splitting',
    }),
    'oom-in-trace': (p) => ({
      title: `out of memory at event ${p.eventIndex + 1}: ${formatBytes(p.requestedBytes)} requested, ${formatBytes(p.deviceFreeBytes)} free on the card, ${formatBytes(p.activeBytes)} live, ${formatBytes(p.reservedBytes)} reserved`,
      hint: 'the parts and sites live at that moment are listed below; the largest part is the one to attack first',
    }),
    'no-trace': () => ({
      title: 'the snapshot has no trace: only the state at the moment it was taken',
      hint: 'record the history before the step: torch.cuda.memory._record_memory_history(max_entries=100000), then _dump_snapshot',
    }),
    'unattributed-large': (p) => ({
      title: `${formatBytes(p.bytes)} (${pct(p.share)}) could not be attributed${p.beforeRecordingBytes > 0 ? `; ${formatBytes(p.beforeRecordingBytes)} of it was allocated before recording began` : ''}`,
      hint: 'start _record_memory_history before the model is loaded, so weights and optimizer states keep their stacks',
    }),
    'pending-free': (p) => ({
      title: `${formatBytes(p.bytes)} is freed but waits for another stream (active_pending_free)`,
      hint: 'tensors used on a side stream are held until it syncs (record_stream); synchronize the stream or keep the work on one',
    }),
    'estimate-part-low': (p) => ({
      title: `the estimate's ${EN.parts[p.part]} are too low: ${formatBytes(p.estimateBytes)} estimated, ${formatBytes(p.measuredBytes)} measured (${signedPct(p.error)})`,
      hint: 'check the scenario against the run (micro-batch, sequence length, checkpointing, precision)',
    }),
    'estimate-part-high': (p) => ({
      title: `the estimate's ${EN.parts[p.part]} are too high: ${formatBytes(p.estimateBytes)} estimated, ${formatBytes(p.measuredBytes)} measured (${signedPct(p.error)})${p.unattributedBytes > 0 ? `; ${formatBytes(p.unattributedBytes)} could not be attributed and may hold some of them` : ''}`,
      hint: 'the run may use less than the scenario says (a smaller batch, checkpointing, 8-bit states), or the peak was not in the trace',
    }),
  },
  labels: {
    title: 'memory snapshot',
    segments: 'segments',
    reserved: 'reserved',
    allocated: 'allocated',
    requested: 'requested',
    cached: 'cached (inactive)',
    largestFree: 'largest free block',
    activeBlocks: 'active blocks',
    pendingFree: 'waiting on a stream',
    trace: 'trace',
    events: 'events',
    noTrace: 'no trace recorded',
    peak: 'peak of live memory',
    atEvent: (index, events) =>
      `after event ${(index + 1).toLocaleString('en-US')} of ${events.toLocaleString('en-US')}`,
    beforeFirstEvent: 'before the first event',
    eventNumber: (index) => `event ${(index + 1).toLocaleString('en-US')}`,
    reservedThen: 'reserved then',
    byPartAtPeak: 'live at the peak, by part',
    byPartAtEnd: 'allocated at the snapshot, by part',
    live: 'live',
    topSites: 'largest allocation sites',
    why: 'why',
    bytes: 'bytes',
    count: 'blocks',
    part: 'part',
    site: 'site',
    oom: 'OOM',
    ooms: 'out-of-memory events in the trace',
    oomLine: (requested, free, active) =>
      `${formatBytes(requested)} requested, ${formatBytes(free)} free on the card, ${formatBytes(active)} live`,
    findings: 'findings',
    tryHint: 'Try',
    estimate: 'estimate',
    measured: 'measured',
    error: 'error',
    vsEstimate: 'the estimate beside the snapshot (torch-allocated bytes)',
    worst: (part, estimate, measured, error) =>
      `the estimate is furthest off on ${part}: ${formatBytes(estimate)} estimated, ${formatBytes(measured)} measured (${error})`,
    totalLine: (estimate, measured, error) =>
      `allocated peak: ${formatBytes(estimate)} estimated, ${formatBytes(measured)} measured (${error})`,
    diffTitle: 'from the first snapshot to the second',
    change: 'change',
    sitesGrew: 'sites that changed most',
    timeline: 'live and reserved memory over the trace',
    active: 'live',
    pickFile: 'Choose a snapshot (.pickle)',
    dropHere: 'or drop a file written by torch.cuda.memory._dump_snapshot here',
    reading: 'reading…',
    uploadNote: 'the file goes to this machine’s headroom server (127.0.0.1) and nowhere else',
  },
};

export const ZH: SnapshotWords = {
  lang: 'zh',
  parts: {
    weights: '权重',
    gradients: '梯度',
    optimizer: '优化器',
    activations: '激活',
    runtime: '运行时',
    unattributed: '未归类',
  },
  rules: {
    'library-workspace': 'cuBLAS/cuDNN 工作区',
    'cublas-workspace-size': '无调用栈，但大小等于 cuBLAS 工作区',
    communication: 'NCCL / c10d / DDP 通信桶',
    'optimizer-step': '在优化器中分配（状态、step 临时量）',
    'weights-load': '加载或移动模型（from_pretrained、load_state_dict、.to/.cuda）',
    'adapter-weights': '适配器权重（peft）',
    'dequantized-weight': '量化权重的反量化副本',
    'autocast-weight-copy': 'autocast 的低精度权重副本',
    'fsdp-gathered-weights': 'FSDP all-gather 出的权重',
    'fsdp-reduced-gradients': 'FSDP reduce-scatter 的梯度',
    'accumulate-grad': '累加进 .grad',
    'backward-kept': '在反向传播中分配并在其后保留',
    'backward-transient': '在反向传播中分配并释放',
    'freed-by-zero-grad': '在记录前分配，由 zero_grad 释放',
    forward: '在模块 forward 中分配（为反向保存或临时量）',
    'no-stack': '没有记录调用栈',
    'before-recording': '在开始记录之前分配',
    'unknown-stack': '调用栈不匹配任何规则',
  },
  sites: {
    autograd: 'autograd',
    cpp: '<仅 C++>',
    none: '<没有记录调用栈>',
  },
  findings: {
    'fragmentation-high': (p) => ({
      title: `已保留的 ${formatBytes(p.reservedBytes)} 中有 ${formatBytes(p.inactiveBytes)} 被缓存但未使用（${pct(p.share)}）；最大的空闲块为 ${formatBytes(p.largestInactiveBlockBytes)}`,
      hint: '大于最大空闲块的请求需要新的段：PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True 让段扩展而不是切分',
    }),
    'oom-in-trace': (p) => ({
      title: `第 ${p.eventIndex + 1} 个事件内存不足：请求 ${formatBytes(p.requestedBytes)}，显卡空闲 ${formatBytes(p.deviceFreeBytes)}，存活 ${formatBytes(p.activeBytes)}，已保留 ${formatBytes(p.reservedBytes)}`,
      hint: '下面列出那一刻存活的各部分和分配位置；最大的部分最先处理',
    }),
    'no-trace': () => ({
      title: '快照没有轨迹：只有拍摄那一刻的状态',
      hint: '在训练步之前开始记录：torch.cuda.memory._record_memory_history(max_entries=100000)，然后 _dump_snapshot',
    }),
    'unattributed-large': (p) => ({
      title: `${formatBytes(p.bytes)}（${pct(p.share)}）无法归类${p.beforeRecordingBytes > 0 ? `；其中 ${formatBytes(p.beforeRecordingBytes)} 在开始记录之前分配` : ''}`,
      hint: '在加载模型之前调用 _record_memory_history，权重和优化器状态才会保留调用栈',
    }),
    'pending-free': (p) => ({
      title: `${formatBytes(p.bytes)} 已释放但在等待另一个流（active_pending_free）`,
      hint: '在副流上使用的张量要等该流同步后才释放（record_stream）；同步该流或只用一个流',
    }),
    'estimate-part-low': (p) => ({
      title: `估算的${ZH.parts[p.part]}偏低：估算 ${formatBytes(p.estimateBytes)}，实测 ${formatBytes(p.measuredBytes)}（${signedPct(p.error)}）`,
      hint: '核对场景与实际运行（微批大小、序列长度、检查点、精度）',
    }),
    'estimate-part-high': (p) => ({
      title: `估算的${ZH.parts[p.part]}偏高：估算 ${formatBytes(p.estimateBytes)}，实测 ${formatBytes(p.measuredBytes)}（${signedPct(p.error)}）${p.unattributedBytes > 0 ? `；有 ${formatBytes(p.unattributedBytes)} 无法归类，其中可能有一部分属于此项` : ''}`,
      hint: '实际运行可能比场景用得少（更小的批、检查点、8 位状态），或峰值不在轨迹中',
    }),
  },
  labels: {
    title: '显存快照',
    segments: '段',
    reserved: '已保留',
    allocated: '已分配',
    requested: '请求',
    cached: '缓存（未使用）',
    largestFree: '最大空闲块',
    activeBlocks: '活动块',
    pendingFree: '等待流',
    trace: '轨迹',
    events: '事件',
    noTrace: '没有记录轨迹',
    peak: '存活显存峰值',
    atEvent: (index, events) => `在第 ${index + 1} 个事件之后（共 ${events} 个）`,
    beforeFirstEvent: '在第一个事件之前',
    eventNumber: (index) => `第 ${index + 1} 个事件`,
    reservedThen: '当时已保留',
    byPartAtPeak: '峰值时存活的显存，按部分',
    byPartAtEnd: '快照时已分配的显存，按部分',
    live: '存活',
    topSites: '最大的分配位置',
    why: '依据',
    bytes: '字节',
    count: '块数',
    part: '部分',
    site: '位置',
    oom: 'OOM',
    ooms: '轨迹中的内存不足事件',
    oomLine: (requested, free, active) =>
      `请求 ${formatBytes(requested)}，显卡空闲 ${formatBytes(free)}，存活 ${formatBytes(active)}`,
    findings: '发现',
    tryHint: '建议',
    estimate: '估算',
    measured: '实测',
    error: '误差',
    vsEstimate: '估算与快照对比（torch 分配的字节）',
    worst: (part, estimate, measured, error) =>
      `估算偏差最大的是${part}：估算 ${formatBytes(estimate)}，实测 ${formatBytes(measured)}（${error}）`,
    totalLine: (estimate, measured, error) =>
      `已分配峰值：估算 ${formatBytes(estimate)}，实测 ${formatBytes(measured)}（${error}）`,
    diffTitle: '从第一个快照到第二个',
    change: '变化',
    sitesGrew: '变化最大的分配位置',
    timeline: '轨迹中的存活与已保留显存',
    active: '存活',
    pickFile: '选择快照文件（.pickle）',
    dropHere: '或把 torch.cuda.memory._dump_snapshot 写出的文件拖到这里',
    reading: '读取中…',
    uploadNote: '文件只发送到本机的 headroom 服务器（127.0.0.1）',
  },
};

export const SNAPSHOT_WORDS: Readonly<Record<Lang, SnapshotWords>> = { en: EN, zh: ZH };

/** The words of a language code ("zh", "zh-CN", "en_US.UTF-8"); English for anything else. */
export function snapshotWords(lang: string | null | undefined): SnapshotWords {
  return /^zh/i.test(lang ?? '') ? ZH : EN;
}

/** The text of a finding in a language. */
export function findingText<C extends SnapshotFindingCode>(
  words: SnapshotWords,
  finding: { readonly code: C; readonly params: SnapshotFindingParams[C] },
): { title: string; hint: string } {
  return (words.findings[finding.code] as FindingText<SnapshotFindingParams[C]>)(finding.params);
}
