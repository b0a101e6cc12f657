/**
 * The words of a finding's evidence (src/core/diagnose/evidence.ts): each label, and each kind of value
 * with its raw figures formatted here, in English and Simplified Chinese.
 */
import type { Evidence, EvidenceLabel, EvidenceValueParams, MemoryPart } from '../core/diagnose/evidence.js';
import { defineDomain, say, type Words } from './catalog.js';
import { ESTIMATE_ERROR } from './estimate-error.js';
import type { Format } from './format.js';
import type { Lang } from './lang.js';
import { OOM_TERMS } from './oom.js';

/** The labels of evidence lines: a word table, one phrase per label. */
export const EVIDENCE_LABEL_WORDS: Readonly<Record<Lang, Readonly<Record<EvidenceLabel, string>>>> = {
  en: {
    message: 'message',
    requested: 'requested',
    'card-total': 'card total',
    'card-free': 'free on the card',
    'card-used': 'used on the card (total − free)',
    'torch-allocated': 'allocated by PyTorch',
    'reserved-unallocated': 'reserved by PyTorch, unallocated',
    'reserved-total': 'reserved by PyTorch in total',
    'this-process': 'this process (with non-PyTorch memory)',
    process: 'process',
    'processes-total': 'other processes in total',
    unaccounted: 'used by nothing listed',
    allowed: 'allowed (memory fraction)',
    'cuda-context': 'CUDA context (assumed)',
    'free-plus-cache': 'free + reserved-unallocated',
    log: 'log',
    phase: 'phase',
    'estimate-peak': 'estimate for this setup (nvidia-smi level)',
    'estimate-part': 'estimated at the peak',
    'estimate-error': 'estimate against this run (torch allocated)',
    'kept-inputs': 'inputs the 4-bit layers keep (estimate)',
    rank: 'rank',
    allocated: 'allocated',
    'peak-allocated': 'peak allocated',
    reserved: 'reserved',
    'growth-per-step': 'growth per step',
    'rising-steps': 'steps that grew',
    'projected-full': 'card full at about step',
    'inactive-split': 'inactive split blocks (cached, unusable)',
    retries: 'num_alloc_retries',
    'rank-peak': 'peak reserved',
    'first-step-allocated': 'peak allocated at the first step, and at every step after it',
    'peak-phase': 'where its peak falls',
    'step-correlation': 'its per-step peaks against the other ranks’',
    'outside-torch': 'nvidia-smi minus reserved (CUDA contexts, NCCL, outside PyTorch)',
    'smi-used': 'nvidia-smi memory.used',
    'this-run': 'this run’s processes (nvidia-smi)',
  },
  zh: {
    message: '报错信息',
    requested: '请求',
    'card-total': '显卡总量',
    'card-free': '显卡空闲',
    'card-used': '显卡已用（总量 − 空闲）',
    'torch-allocated': 'PyTorch 已分配',
    'reserved-unallocated': 'PyTorch 已预留未分配',
    'reserved-total': 'PyTorch 预留总量',
    'this-process': '本进程（含非 PyTorch 显存）',
    process: '进程',
    'processes-total': '其他进程合计',
    unaccounted: '列出的进程之外的占用',
    allowed: '允许上限（显存比例）',
    'cuda-context': 'CUDA 上下文（假定值）',
    'free-plus-cache': '空闲 + 已预留未分配',
    log: '日志',
    phase: '阶段',
    'estimate-peak': '该配置的估算（nvidia-smi 口径）',
    'estimate-part': '峰值时的估算',
    'estimate-error': '估算与本次运行的对比（torch 已分配）',
    'kept-inputs': '4 位层保留的输入（估算）',
    rank: 'rank',
    allocated: '已分配',
    'peak-allocated': '已分配峰值',
    reserved: '已预留',
    'growth-per-step': '每步增长',
    'rising-steps': '增长的步数',
    'projected-full': '预计占满显卡的步数（约）',
    'inactive-split': '非活动的切分块（已缓存、无法使用）',
    retries: 'num_alloc_retries',
    'rank-peak': '预留峰值',
    'first-step-allocated': '第一步（及其后每一步）的已分配峰值',
    'peak-phase': '峰值所在阶段',
    'step-correlation': '其每步峰值与其他 rank 的相关性',
    'outside-torch': 'nvidia-smi 减去已预留（CUDA 上下文、NCCL 等 PyTorch 之外的占用）',
    'smi-used': 'nvidia-smi memory.used',
    'this-run': '本次运行的进程（nvidia-smi）',
  },
};

/** The parts of memory a phase points at. */
export const PART_WORDS: Readonly<Record<Lang, Readonly<Record<MemoryPart, string>>>> = {
  en: { weights: 'weights', activations: 'activations', optimizer: 'optimizer' },
  zh: { weights: '权重', activations: '激活值', optimizer: '优化器状态' },
};

/** A share as a whole percent of its whole: "97 %". */
export const share = (part: number, whole: number): string => `${Math.round((100 * part) / whole)} %`;

type P = EvidenceValueParams;

const enAtStep = (figure: string, step: number) => `${figure} at step ${step}`;
const zhAtStep = (figure: string, step: number) => `第 ${step} 步 ${figure}`;
const pool = (p: P['free-plus-cache']) => p.freeBytes + p.cacheBytes;
const poolLine = (p: P['free-plus-cache'], f: Format) =>
  `${f.bytes(p.freeBytes)} + ${f.bytes(p.cacheBytes)} = ${f.bytes(pool(p))} ${pool(p) >= p.requestedBytes ? '≥' : '<'} ${f.bytes(p.requestedBytes)}`;

const EN_OOM = OOM_TERMS.en;
const ZH_OOM = OOM_TERMS.zh;

const EN: Words<P> = {
  bytes: (p, f) => f.bytes(p.bytes),
  count: (p) => String(p.n),
  family: (p) => EN_OOM.families[p.family],
  process: (p, f) => `pid ${p.pid}${p.name ? ` ${p.name}` : ''}: ${f.bytes(p.bytes)}`,
  'share-of-card': (p, f) => `${f.bytes(p.bytes)} (${share(p.bytes, p.cardBytes)} of the card)`,
  'share-of-reserved': (p, f) => `${f.bytes(p.bytes)} (${share(p.bytes, p.reservedBytes)} of reserved)`,
  'part-of-whole': (p, f) =>
    `${f.bytes(p.partBytes)} of ${f.bytes(p.wholeBytes)} (${share(p.partBytes, p.wholeBytes)})`,
  'unaccounted-samples': (p, f) =>
    `${f.bytes(p.bytes)} (${share(p.bytes, p.cardBytes)} of the card; the median of ${p.samples} nvidia-smi samples)`,
  'cached-legacy': (p, f) => `${f.bytes(p.bytes)} ("cached")`,
  'reserved-minus-allocated': (p, f) =>
    `${f.bytes(p.cacheBytes)} (${f.bytes(p.reservedBytes)} reserved − ${f.bytes(p.allocatedBytes)} allocated)`,
  'free-plus-cache': (p, f) => poolLine(p, f),
  'log-line': (p) => `line ${p.line}`,
  phase: (p) => {
    const how = p.reason ? `${EN_OOM.bases[p.basis]}: ${EN_OOM.reasons[p.reason]}` : EN_OOM.bases[p.basis];
    return `${EN_OOM.phases[p.phase]} (${how})`;
  },
  'phase-name': (p) => EN_OOM.phases[p.phase],
  'more-than-exabyte': () => 'more than 1 EB',
  part: (p, f) => `${PART_WORDS.en[p.part]} ${f.bytes(p.bytes)}`,
  'part-of-peak': (p, f) =>
    `${PART_WORDS.en[p.part]} ${f.bytes(p.bytes)} (${share(p.bytes, p.peakBytes)} of the peak)`,
  'estimate-on-card': (p, f) =>
    `${f.bytes(p.estimateBytes)} / ${f.bytes(p.cardBytes)}, ${
      p.estimateBytes <= p.cardBytes
        ? `fits with ${f.bytes(p.cardBytes - p.estimateBytes)} to spare`
        : `${f.bytes(p.estimateBytes - p.cardBytes)} short`
    }`,
  'estimate-against-run': (p) => say(ESTIMATE_ERROR, 'en', { code: 'estimate-against', params: p }),
  'step-range': (p, f) =>
    `${enAtStep(f.bytes(p.fromBytes), p.fromStep)} → ${enAtStep(f.bytes(p.toBytes), p.toStep)}`,
  'bytes-range': (p, f) => `${f.bytes(p.fromBytes)} → ${f.bytes(p.toBytes)}`,
  'retries-range': (p) =>
    `${enAtStep(String(p.fromCount), p.fromStep)} → ${enAtStep(String(p.toCount), p.toStep)} (rank ${p.rank}, GPU ${p.device})`,
  'rank-peak': (p, f) =>
    `${f.bytes(p.bytes)}${p.aboveBytes === null ? '' : ` (+${f.bytes(p.aboveBytes)})`} on rank ${p.rank}`,
  'steps-of': (p) => `${p.rising} of ${p.total}`,
  'rank-vs-others': (p, f) =>
    `rank ${p.rank}: ${f.bytes(p.bytes)}${p.step === null ? '' : ` at step ${p.step}`}, the others ${f.bytes(p.othersBytes)} (median)`,
  'rank-phase': (p, f) =>
    `rank ${p.rank}: ${f.bytes(p.bytes)} in "${p.phase}"${p.step === null ? '' : ` after step ${p.step}`}, where the other ranks’ peaks are not`,
  'rank-correlation': (p) =>
    `rank ${p.rank}: r = ${p.r.toFixed(2)} over ${p.steps} shared steps (they do not rise and fall together)`,
};

const ZH: Words<P> = {
  bytes: (p, f) => f.bytes(p.bytes),
  count: (p) => String(p.n),
  family: (p) => ZH_OOM.families[p.family],
  process: (p, f) => `pid ${p.pid}${p.name ? ` ${p.name}` : ''}：${f.bytes(p.bytes)}`,
  'share-of-card': (p, f) => `${f.bytes(p.bytes)}（占显卡的 ${share(p.bytes, p.cardBytes)}）`,
  'share-of-reserved': (p, f) => `${f.bytes(p.bytes)}（占已预留的 ${share(p.bytes, p.reservedBytes)}）`,
  'part-of-whole': (p, f) =>
    `${f.bytes(p.partBytes)} / ${f.bytes(p.wholeBytes)}（${share(p.partBytes, p.wholeBytes)}）`,
  'unaccounted-samples': (p, f) =>
    `${f.bytes(p.bytes)}（占显卡的 ${share(p.bytes, p.cardBytes)}；${p.samples} 次 nvidia-smi 采样的中位数）`,
  'cached-legacy': (p, f) => `${f.bytes(p.bytes)}（“cached”）`,
  'reserved-minus-allocated': (p, f) =>
    `${f.bytes(p.cacheBytes)}（已预留 ${f.bytes(p.reservedBytes)} − 已分配 ${f.bytes(p.allocatedBytes)}）`,
  'free-plus-cache': (p, f) => poolLine(p, f),
  'log-line': (p) => `第 ${p.line} 行`,
  phase: (p) => {
    const how = p.reason ? `${ZH_OOM.bases[p.basis]}，${ZH_OOM.reasons[p.reason]}` : ZH_OOM.bases[p.basis];
    return `${ZH_OOM.phases[p.phase]}（${how}）`;
  },
  'phase-name': (p) => ZH_OOM.phases[p.phase],
  'more-than-exabyte': () => '超过 1 EB',
  part: (p, f) => `${PART_WORDS.zh[p.part]} ${f.bytes(p.bytes)}`,
  'part-of-peak': (p, f) =>
    `${PART_WORDS.zh[p.part]} ${f.bytes(p.bytes)}（占峰值的 ${share(p.bytes, p.peakBytes)}）`,
  'estimate-on-card': (p, f) =>
    `${f.bytes(p.estimateBytes)} / ${f.bytes(p.cardBytes)}，${
      p.estimateBytes <= p.cardBytes
        ? `放得下，还剩 ${f.bytes(p.cardBytes - p.estimateBytes)}`
        : `还差 ${f.bytes(p.estimateBytes - p.cardBytes)}`
    }`,
  'estimate-against-run': (p) => say(ESTIMATE_ERROR, 'zh', { code: 'estimate-against', params: p }),
  'step-range': (p, f) =>
    `${zhAtStep(f.bytes(p.fromBytes), p.fromStep)} → ${zhAtStep(f.bytes(p.toBytes), p.toStep)}`,
  'bytes-range': (p, f) => `${f.bytes(p.fromBytes)} → ${f.bytes(p.toBytes)}`,
  'retries-range': (p) =>
    `${zhAtStep(String(p.fromCount), p.fromStep)} → ${zhAtStep(String(p.toCount), p.toStep)}（rank ${p.rank}，GPU ${p.device}）`,
  'rank-peak': (p, f) =>
    `rank ${p.rank} 为 ${f.bytes(p.bytes)}${p.aboveBytes === null ? '' : ` (+${f.bytes(p.aboveBytes)})`}`,
  'steps-of': (p) => `${p.total} 步中的 ${p.rising} 步`,
  'rank-vs-others': (p, f) =>
    `rank ${p.rank}：${f.bytes(p.bytes)}${p.step === null ? '' : `（第 ${p.step} 步）`}，其他 rank 为 ${f.bytes(p.othersBytes)}（中位数）`,
  'rank-phase': (p, f) =>
    `rank ${p.rank}：${f.bytes(p.bytes)}，位于“${p.phase}”阶段${p.step === null ? '' : `（第 ${p.step} 步之后）`}，其他 rank 的峰值不在此阶段`,
  'rank-correlation': (p) =>
    `rank ${p.rank}：在共同的 ${p.steps} 步上 r = ${p.r.toFixed(2)}（各 rank 的峰值并不同步起落）`,
};

const GIB = 2 ** 30;
const MIB = 2 ** 20;

export const EVIDENCE = defineDomain<P>({
  name: 'evidence',
  words: { en: EN, zh: ZH },
  examples: {
    bytes: { bytes: 22 * MIB },
    count: { n: 3 },
    family: { family: 'torch-v2' },
    process: { pid: 4242, name: 'python3', bytes: 2.5 * GIB },
    'share-of-card': { bytes: 10 * GIB, cardBytes: 80 * GIB },
    'share-of-reserved': { bytes: 1.5 * GIB, reservedBytes: 6 * GIB },
    'part-of-whole': { partBytes: 22.9 * GIB, wholeBytes: 23.65 * GIB },
    'unaccounted-samples': { bytes: 10 * GIB, cardBytes: 80 * GIB, samples: 10 },
    'cached-legacy': { bytes: 3 * GIB },
    'reserved-minus-allocated': { cacheBytes: GIB, reservedBytes: 9 * GIB, allocatedBytes: 8 * GIB },
    'free-plus-cache': { freeBytes: 514 * MIB, cacheBytes: 737 * MIB, requestedBytes: 546 * MIB },
    'log-line': { line: 12 },
    phase: { phase: 'backward', basis: 'traceback', reason: 'traced-frame' },
    'phase-name': { phase: 'evaluation' },
    'more-than-exabyte': {},
    part: { part: 'weights', bytes: 14.96 * GIB },
    'part-of-peak': { part: 'activations', bytes: 6.1 * GIB, peakBytes: 16 * GIB },
    'estimate-on-card': { estimateBytes: 31.95 * GIB, cardBytes: 23.65 * GIB },
    'estimate-against-run': { side: 'under', percent: 20, estimatedBytes: 8 * GIB, measuredBytes: 10 * GIB },
    'step-range': { fromBytes: 6 * GIB, fromStep: 4, toBytes: 9 * GIB, toStep: 30 },
    'bytes-range': { fromBytes: 6 * GIB, toBytes: 6.02 * GIB },
    'retries-range': { fromCount: 0, fromStep: 2, toCount: 10, toStep: 30, rank: 0, device: 0 },
    'rank-peak': { rank: 0, bytes: 9 * GIB, aboveBytes: 2 * GIB },
    'rank-vs-others': { rank: 1, step: 1, bytes: 9 * GIB, othersBytes: 7 * GIB },
    'rank-phase': { rank: 0, phase: 'eval', bytes: 9 * GIB, step: 500 },
    'rank-correlation': { rank: 2, r: 0.08, steps: 40 },
    'steps-of': { rising: 12, total: 16 },
  },
});

/** One evidence line in words. */
export interface EvidenceWords {
  readonly label: string;
  readonly value: string;
  /** The log text it was read from, as it was. */
  readonly quote?: string;
}

/** One evidence line in a language: its label, its value, and the quote it was read from. */
export function evidenceWords(e: Evidence, lang: Lang): EvidenceWords {
  return {
    label: EVIDENCE_LABEL_WORDS[lang][e.label],
    value: say(EVIDENCE, lang, e.value),
    ...(e.quote === undefined ? {} : { quote: e.quote }),
  };
}
