/**
 * The words of `headroom estimate`'s terminal view (src/cli/render-estimate.ts), in English and
 * Chinese: the parts and phases, the peak line, the fit verdict, the attacks and notes, and how the
 * peak adds up (--explain). The params are the estimate's own figures, unformatted.
 */
import type { Advice, Part } from '../core/advice.js';
import type { Phase, ReserveBasis } from '../core/estimate.js';
import type { EstimateNote } from '../core/estimate-notes.js';
import type { NoParams } from '../core/message.js';
import { ADVICE } from './advice.js';
import { type Domain, defineDomain, say } from './catalog.js';
import { ESTIMATE_NOTES } from './estimate-notes.js';
import type { Lang } from './lang.js';
import { marginReason } from './margin.js';

/** The params of each line (or label) of the view. */
export interface EstimateViewParams {
  /** One of the five parts, as its bar is labelled. */
  readonly part: { readonly part: Part };
  readonly phase: { readonly phase: Phase };
  /** The model's parameters and how they are known. `source`: how the model was resolved ("catalog", "config.json", ...). */
  readonly 'params-line': {
    readonly total: number;
    readonly trainable: number;
    readonly exactFromWeights: boolean;
    readonly source: string;
  };
  /** The stacked bar's label. */
  readonly total: NoParams;
  readonly 'usable-on': { readonly bytes: number; readonly gpu: string };
  /** Each level as a range: the estimate, then its upper bound (Estimate.upper). */
  readonly 'peak-levels': {
    readonly phase: Phase;
    readonly allocatedBytes: number;
    readonly reservedBytes: number;
    readonly deviceBytes: number;
    readonly allocatedUpperBytes: number;
    readonly reservedUpperBytes: number;
    readonly deviceUpperBytes: number;
  };
  readonly 'peak-levels-hint': NoParams;
  /**
   * Where nvidia-smi's upper bound comes from: the kind of setup (framework, method, layout; null for
   * any), its measured rows and ratio; or, from a calibration, the run's own steps.
   */
  readonly 'upper-basis': {
    readonly framework: string | null;
    readonly method: string | null;
    readonly layout: 'single' | 'multi' | null;
    readonly rows: number;
    /** The sources the rows came from (one published table, one H200 run each). */
    readonly sources: number;
    readonly ratio: number;
    readonly from: 'measured-runs' | 'calibration';
    /** The level whose ratio set nvidia-smi's bound (the levels nest), and the bound ÷ the estimate there. */
    readonly level: 'allocated' | 'reserved' | 'device';
    readonly effective: number;
  };
  /**
   * Padded batches: the ranges' tops carry the reserve's climb over the run on a card with room; the card
   * must hold less (the allocator gives its cache back before it fails), and fits are judged on that.
   */
  readonly 'upper-climb': {
    readonly reservedUpperBytes: number;
    readonly deviceUpperBytes: number;
    readonly neededBytes: number;
  };
  readonly 'host-memory': { readonly cpuBytes: number; readonly nvmeBytes: number };
  readonly 'add-gpu': NoParams;
  readonly 'attack-first': NoParams;
  /** One attack: its part, bytes, share of the device peak and its first three remedies. */
  readonly attack: {
    readonly part: Part;
    readonly bytes: number;
    readonly share: number;
    readonly remedies: readonly Advice[];
  };
  readonly note: { readonly note: EstimateNote };
  readonly 'terms-heading': { readonly phase: Phase };
  readonly 'terms-allocated': NoParams;
  /** The reserve above allocated, named by the term that set it (allocator.ts fixedReserve). */
  readonly 'terms-reserve': { readonly basis: ReserveBasis };
  /** Batches padded to their longest sample: the reserve the allocator adds over the run (allocator.ts). */
  readonly 'terms-reserve-growth': NoParams;
  /** Of that climb, what a card without room must still hold (the allocator gives the rest back). */
  readonly 'terms-reserve-need': NoParams;
  /** FSDP's communication streams' cached blocks, which the compute stream cannot reuse (allocator.ts). */
  readonly 'terms-stream-cache': NoParams;
  readonly 'terms-outside': NoParams;
  readonly 'terms-reserved': { readonly bytes: number };
  readonly 'terms-device': { readonly bytes: number };
  /** Over the card itself. */
  readonly 'fit-over-card': {
    readonly gpu: string;
    readonly requiredBytes: number;
    readonly overBytes: number;
    readonly usableBytes: number;
  };
  /** Inside the card, over the budget the margin leaves. */
  readonly 'fit-over-margin': {
    readonly gpu: string;
    readonly marginFraction: number;
    readonly requiredBytes: number;
    readonly usableBytes: number;
    readonly overBytes: number;
    readonly budgetBytes: number;
  };
  readonly 'margin-budget': { readonly marginFraction: number };
  readonly 'fits-paged': {
    readonly gpu: string;
    readonly marginFraction: number;
    readonly pagedToHostBytes: number;
  };
  readonly fits: {
    readonly gpu: string;
    readonly headroomBytes: number;
    readonly usableBytes: number;
    readonly marginFraction: number;
  };
}

const PARTS: Readonly<Record<Lang, Readonly<Record<Part, string>>>> = {
  en: {
    weights: 'weights',
    gradients: 'gradients',
    optimizer: 'optimizer',
    activations: 'activations',
    runtime: 'runtime',
  },
  zh: {
    weights: '权重',
    gradients: '梯度',
    optimizer: '优化器状态',
    activations: '激活值',
    runtime: '运行时开销',
  },
};
const PHASE_WORDS: Readonly<Record<Lang, Readonly<Record<Phase, string>>>> = {
  en: {
    load: 'load',
    forward: 'forward',
    backward: 'backward',
    'optimizer-step': 'optimizer-step',
    eval: 'eval',
    generate: 'generate',
  },
  zh: {
    load: '加载',
    forward: '前向传播',
    backward: '反向传播',
    'optimizer-step': '优化器更新',
    eval: '评估',
    generate: '生成',
  },
};
/** How a model was resolved, in Chinese where ResolvedModel.source is one of these. */
const SOURCES_ZH: Readonly<Record<string, string>> = { catalog: '目录', 'inline config': '内联 config' };

const LEVEL_WORDS: Readonly<Record<Lang, Readonly<Record<'allocated' | 'reserved' | 'device', string>>>> = {
  en: { allocated: 'at torch allocated', reserved: 'at torch reserved', device: 'at nvidia-smi' },
  zh: { allocated: '已分配', reserved: '已保留', device: 'nvidia-smi' },
};

/** A kind of setup in words: "litgpt LoRA runs on one GPU", "any setup". */
function kindWords(
  lang: Lang,
  k: { framework: string | null; method: string | null; layout: 'single' | 'multi' | null },
): string {
  const method =
    k.method === null
      ? null
      : k.method === 'full'
        ? lang === 'en'
          ? 'full'
          : '全参'
        : k.method === 'freeze'
          ? lang === 'en'
            ? 'freeze'
            : '冻结'
          : k.method === 'lora'
            ? 'LoRA'
            : 'QLoRA';
  if (lang === 'en') {
    const what = [k.framework, method].filter(Boolean).join(' ');
    const where = k.layout === 'single' ? ' on one GPU' : k.layout === 'multi' ? ' on several GPUs' : '';
    return what === '' && where === '' ? 'any setup' : `${what === '' ? 'all' : what} runs${where}`;
  }
  const what = [k.framework, method].filter(Boolean).join(' ');
  const where = k.layout === 'single' ? '单卡' : k.layout === 'multi' ? '多卡' : '';
  return what === '' && where === '' ? '所有设置' : `${where}${what === '' ? '' : ` ${what}`} 设置`.trim();
}

/** A share of the GPU kept free, as a whole percent ("10"). */
const pct = (fraction: number): number => Math.round(fraction * 100);

export const ESTIMATE_VIEW: Domain<EstimateViewParams> = defineDomain<EstimateViewParams>({
  name: 'estimate-view',
  words: {
    en: {
      part: (p) => PARTS.en[p.part],
      phase: (p) => PHASE_WORDS.en[p.phase],
      'params-line': (p, f) =>
        `${f.params(p.total)} parameters (${p.exactFromWeights ? 'exact, from the weight files' : p.source}), ${f.params(p.trainable)} trained; every figure is per GPU`,
      total: () => 'total',
      'usable-on': (p, f) => `${f.bytes(p.bytes)} usable on ${p.gpu}`,
      'peak-levels': (p, f) =>
        `peak at ${PHASE_WORDS.en[p.phase]}:  allocated ${f.bytesRange(p.allocatedBytes, p.allocatedUpperBytes)}  ·  reserved ${f.bytesRange(p.reservedBytes, p.reservedUpperBytes)}  ·  nvidia-smi ${f.bytesRange(p.deviceBytes, p.deviceUpperBytes)}`,
      'peak-levels-hint': () =>
        '(torch.cuda.max_memory_allocated · max_memory_reserved · what nvidia-smi shows for the process; each from the estimate to its upper bound)',
      'upper-basis': (p, f) =>
        p.from === 'calibration'
          ? `upper bound ${f.times(p.effective, 3)} the estimate at nvidia-smi: the spread of the calibrating run's ${p.rows} steps (${f.times(p.ratio, 3)} ${LEVEL_WORDS.en[p.level]}); fits are judged on it`
          : `upper bound ${f.times(p.effective, 3)} the estimate at nvidia-smi: in each of the ${p.sources} sources of ${p.rows} measured ${kindWords('en', p)}, nine runs in ten stayed under ${f.times(p.ratio, 3)} their estimate ${LEVEL_WORDS.en[p.level]}; fits are judged on it`,
      'upper-climb': (p, f) =>
        `padded batches: on a card with room the reserve may climb to ${f.bytes(p.reservedUpperBytes)} over the run (nvidia-smi ${f.bytes(p.deviceUpperBytes)}, the tops of the ranges above); the allocator gives that cache back before it fails, so the card must hold ${f.bytes(p.neededBytes)}: fits are judged on it`,
      'host-memory': (p, f) =>
        `host memory for offload: ${f.bytes(p.cpuBytes)} CPU RAM${p.nvmeBytes > 0 ? `, ${f.bytes(p.nvmeBytes)} NVMe` : ''} per node`,
      'add-gpu': () => 'add --gpu ID to check the fit (headroom gpus lists them)',
      'attack-first': () => 'attack first:',
      attack: (p, f) =>
        `${PARTS.en[p.part]} (${f.bytes(p.bytes)}, ${f.percent(p.share)}): ${p.remedies
          .slice(0, 3)
          .map((r) => say(ADVICE, 'en', r))
          .join('; ')}`,
      note: (p) => `note: ${say(ESTIMATE_NOTES, 'en', p.note)}`,
      'terms-heading': (p) =>
        `how the ${PHASE_WORDS.en[p.phase]} peak adds up (torch allocated, then above it):`,
      'terms-allocated': () => '= allocated',
      'terms-reserve': (p) =>
        p.basis === 'loss-block'
          ? "+ allocator reserve (the loss's cached logits block)"
          : p.basis === 'optimizer-states'
            ? "+ allocator reserve (cache blocks the first step's states took)"
            : p.basis === 'step-temporaries'
              ? '+ allocator reserve (step temporaries beside the cache)'
              : '+ allocator reserve and fragmentation',
      'terms-reserve-growth': () =>
        '  (+ reserve climb if padded batches keep reaching the cap, on a card with room)',
      'terms-reserve-need': () =>
        '  (of it, what a full card must hold, the rest given back: in the upper bound)',
      'terms-stream-cache': () => "+ FSDP streams' cached blocks (gradient shards, all-gather buffer)",
      'terms-outside': () => '+ outside torch (CUDA context, NCCL, paged states)',
      'terms-reserved': (p, f) => `= reserved ${f.bytes(p.bytes)}`,
      'terms-device': (p, f) => `= nvidia-smi ${f.bytes(p.bytes)}`,
      'fit-over-card': (p, f) =>
        `does not fit on ${p.gpu}: needs up to ${f.bytes(p.requiredBytes)} (the upper bound), ${f.bytes(p.overBytes)} over its ${f.bytes(p.usableBytes)}`,
      'fit-over-margin': (p, f) =>
        `does not fit on ${p.gpu} with the ${pct(p.marginFraction)} % margin: needs up to ${f.bytes(p.requiredBytes)} (the upper bound) of its ${f.bytes(p.usableBytes)}, ${f.bytes(p.overBytes)} over the ${f.bytes(p.budgetBytes)} budget`,
      'margin-budget': (p) =>
        `the budget keeps the ${pct(p.marginFraction)} % margin free (--headroom): ${marginReason('en')}`,
      'fits-paged': (p, f) =>
        `fits on ${p.gpu} with the ${pct(p.marginFraction)} % margin only with ${f.bytes(p.pagedToHostBytes)} of the paged optimizer states in CPU RAM: they are paged in for every optimizer step (slower)`,
      fits: (p, f) =>
        `fits on ${p.gpu} with ${f.bytes(p.headroomBytes)} to spare at the upper bound (${((p.headroomBytes / p.usableBytes) * 100).toFixed(0)} % free; the budget keeps the ${pct(p.marginFraction)} % margin)`,
    },
    zh: {
      part: (p) => PARTS.zh[p.part],
      phase: (p) => PHASE_WORDS.zh[p.phase],
      'params-line': (p, f) =>
        `${f.params(p.total)} 参数（${p.exactFromWeights ? '精确值，读自权重文件' : (SOURCES_ZH[p.source] ?? p.source)}），训练其中 ${f.params(p.trainable)}；所有数字均为每块 GPU`,
      total: () => '合计',
      'usable-on': (p, f) => `${p.gpu} 可用 ${f.bytes(p.bytes)}`,
      'peak-levels': (p, f) =>
        `峰值在${PHASE_WORDS.zh[p.phase]}：已分配 ${f.bytesRange(p.allocatedBytes, p.allocatedUpperBytes)}  ·  已保留 ${f.bytesRange(p.reservedBytes, p.reservedUpperBytes)}  ·  nvidia-smi ${f.bytesRange(p.deviceBytes, p.deviceUpperBytes)}`,
      'peak-levels-hint': () =>
        '（torch.cuda.max_memory_allocated · max_memory_reserved · nvidia-smi 显示的进程占用；每项从估计值到其上界）',
      'upper-basis': (p, f) =>
        p.from === 'calibration'
          ? `上界：nvidia-smi 估计值的 ${f.times(p.effective, 3)}，来自校准运行 ${p.rows} 步之间的波动（${LEVEL_WORDS.zh[p.level]} ${f.times(p.ratio, 3)}）；是否放得下按它判断`
          : `上界：nvidia-smi 估计值的 ${f.times(p.effective, 3)}：${kindWords('zh', p)}的 ${p.rows} 次实测运行来自 ${p.sources} 个来源，每个来源中十次有九次低于其估计值的 ${f.times(p.ratio, 3)}（${LEVEL_WORDS.zh[p.level]}）；是否放得下按它判断`,
      'upper-climb': (p, f) =>
        `批次按最长样本填充：显存充裕时，整个运行中预留可能一路涨到 ${f.bytes(p.reservedUpperBytes)}（nvidia-smi ${f.bytes(p.deviceUpperBytes)}，即上面各范围的上端）；这些缓存在分配失败前会被释放，显卡真正要容纳的是 ${f.bytes(p.neededBytes)}，是否放得下按它判断`,
      'host-memory': (p, f) =>
        `卸载所需的主机内存：每个节点 ${f.bytes(p.cpuBytes)} CPU 内存${p.nvmeBytes > 0 ? `、${f.bytes(p.nvmeBytes)} NVMe` : ''}`,
      'add-gpu': () => '加上 --gpu ID 即可检查是否放得下（headroom gpus 列出可选的 GPU）',
      'attack-first': () => '优先削减：',
      attack: (p, f) =>
        `${PARTS.zh[p.part]}（${f.bytes(p.bytes)}，${f.percent(p.share)}）：${p.remedies
          .slice(0, 3)
          .map((r) => say(ADVICE, 'zh', r))
          .join('；')}`,
      note: (p) => `注：${say(ESTIMATE_NOTES, 'zh', p.note)}`,
      'terms-heading': (p) => `${PHASE_WORDS.zh[p.phase]}峰值的构成（先是 torch 已分配的各项，再往上）：`,
      'terms-allocated': () => '= 已分配（allocated）',
      'terms-reserve': (p) =>
        p.basis === 'loss-block'
          ? '+ 分配器预留（损失的 logits 缓存块）'
          : p.basis === 'optimizer-states'
            ? '+ 分配器预留（首步优化器状态占走的缓存块）'
            : p.basis === 'step-temporaries'
              ? '+ 分配器预留（优化器临时张量在缓存之外）'
              : '+ 分配器预留与碎片',
      'terms-reserve-growth': () => '  （若填充后的批次反复达到上限，显存充裕时预留还会增长）',
      'terms-reserve-need': () => '  （其中显存占满时仍须保留的部分，其余会被释放：已计入上界）',
      'terms-stream-cache': () => '+ FSDP 通信流的缓存块（梯度分片、all-gather 缓冲）',
      'terms-outside': () => '+ torch 之外（CUDA 上下文、NCCL、分页状态）',
      'terms-reserved': (p, f) => `= 已保留（reserved）${f.bytes(p.bytes)}`,
      'terms-device': (p, f) => `= nvidia-smi 显示 ${f.bytes(p.bytes)}`,
      'fit-over-card': (p, f) =>
        `${p.gpu} 放不下：最多需要 ${f.bytes(p.requiredBytes)}（上界），比它的 ${f.bytes(p.usableBytes)} 多 ${f.bytes(p.overBytes)}`,
      'fit-over-margin': (p, f) =>
        `保留 ${pct(p.marginFraction)} % 余量时 ${p.gpu} 放不下：最多需要 ${f.bytes(p.requiredBytes)}（上界；显存共 ${f.bytes(p.usableBytes)}），比 ${f.bytes(p.budgetBytes)} 的预算多 ${f.bytes(p.overBytes)}`,
      'margin-budget': (p) =>
        `预算保留 ${pct(p.marginFraction)} % 的余量（--headroom）：${marginReason('zh')}`,
      'fits-paged': (p, f) =>
        `保留 ${pct(p.marginFraction)} % 余量时 ${p.gpu} 放得下，但要把 ${f.bytes(p.pagedToHostBytes)} 分页优化器状态留在 CPU 内存：每次优化器更新都要换入（更慢）`,
      fits: (p, f) =>
        `${p.gpu} 放得下，按上界还剩 ${f.bytes(p.headroomBytes)}（${((p.headroomBytes / p.usableBytes) * 100).toFixed(0)} % 空闲；预算保留 ${pct(p.marginFraction)} % 的余量）`,
    },
  },
  examples: {
    part: { part: 'activations' },
    phase: { phase: 'optimizer-step' },
    'params-line': { total: 8_030_261_248, trainable: 6_815_744, exactFromWeights: false, source: 'catalog' },
    total: {},
    'usable-on': { bytes: 25_757_220_864, gpu: 'rtx-4090' },
    'peak-levels': {
      phase: 'backward',
      allocatedBytes: 13_690_000_000,
      reservedBytes: 14_670_000_000,
      deviceBytes: 15_180_000_000,
      allocatedUpperBytes: 14_310_000_000,
      reservedUpperBytes: 15_730_000_000,
      deviceUpperBytes: 16_390_000_000,
    },
    'peak-levels-hint': {},
    'upper-basis': {
      framework: 'litgpt',
      method: 'lora',
      layout: 'single',
      rows: 32,
      sources: 3,
      ratio: 1.07,
      from: 'measured-runs',
      level: 'allocated',
      effective: 1.08,
    },
    'upper-climb': {
      reservedUpperBytes: 27_270_000_000,
      deviceUpperBytes: 27_800_000_000,
      neededBytes: 10_950_000_000,
    },
    'host-memory': { cpuBytes: 2 ** 37, nvmeBytes: 2 ** 38 },
    'add-gpu': {},
    'attack-first': {},
    attack: {
      part: 'activations',
      bytes: 7_440_000_000,
      share: 0.49,
      remedies: [
        { code: 'smaller-micro-batch', params: { microBatchSize: 2 } },
        { code: 'chunked-loss', params: {} },
      ],
    },
    note: { note: { code: 'eager-attention', params: {} } },
    'terms-heading': { phase: 'backward' },
    'terms-allocated': {},
    'terms-reserve': { basis: 'loss-block' },
    'terms-reserve-growth': {},
    'terms-reserve-need': {},
    'terms-stream-cache': {},
    'terms-outside': {},
    'terms-reserved': { bytes: 14_670_000_000 },
    'terms-device': { bytes: 15_180_000_000 },
    'fit-over-card': {
      gpu: 'NVIDIA GeForce RTX 4090',
      requiredBytes: 2 ** 35,
      overBytes: 2 ** 33,
      usableBytes: 25_757_220_864,
    },
    'fit-over-margin': {
      gpu: 'NVIDIA GeForce RTX 4090',
      marginFraction: 0.1,
      requiredBytes: 24_000_000_000,
      usableBytes: 25_757_220_864,
      overBytes: 818_501_222,
      budgetBytes: 23_181_498_777,
    },
    'margin-budget': { marginFraction: 0.1 },
    'fits-paged': { gpu: 'NVIDIA GeForce RTX 4090', marginFraction: 0.1, pagedToHostBytes: 2 ** 32 },
    fits: {
      gpu: 'NVIDIA GeForce RTX 4090',
      headroomBytes: 10_570_000_000,
      usableBytes: 25_757_220_864,
      marginFraction: 0.1,
    },
  },
});
