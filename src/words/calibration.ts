/**
 * The words of a calibration (`headroom calibrate RUN`, `--calibrated RUN`): why a run is refused
 * (src/core/run-calibration.ts), which physical bound acted (src/core/calibrate.ts), what bears on the
 * record, and the lines of the terminal view, in English and Simplified Chinese. What to do about a
 * refusal is calibration-hints.ts's.
 */
import type { CalibrationBound } from '../core/calibrate.js';
import type { Phase } from '../core/estimate.js';
import type { NoParams } from '../core/message.js';
import type { CalibrationNote, CalibrationRefusal } from '../core/run-calibration.js';
import { defineDomain, type Words } from './catalog.js';
import type { Format } from './format.js';
import type { Lang } from './lang.js';
import { OOM_TERMS } from './oom.js';

/** The params map of a union of messages: `{ [code]: params }`. */
export type ParamsOf<M extends { readonly code: string; readonly params: unknown }> = {
  readonly [X in M as X['code']]: X['params'];
};

/** A refusal's figures, and the run it is about. */
export type RefusalParams = {
  readonly [C in keyof ParamsOf<CalibrationRefusal>]: ParamsOf<CalibrationRefusal>[C] & {
    readonly runId: number;
  };
};

/** The lines of the terminal view. */
export interface CalibrationViewParams {
  readonly 'run-head': {
    readonly id: number;
    readonly name: string | null;
    readonly status: string;
    readonly steps: number;
  };
  readonly 'measured-over': {
    readonly first: number;
    readonly last: number;
    readonly used: number;
    readonly warmup: number;
  };
  readonly 'factors-head': { readonly peakPhase: Phase };
  readonly 'activation-factor': {
    readonly factor: number;
    readonly measuredBytes: number;
    readonly estimatedBytes: number;
  };
  readonly 'activation-factor-none': NoParams;
  readonly 'allocator-factor': { readonly factor: number; readonly cacheBytes: number };
  readonly 'outside-torch': { readonly bytes: number; readonly estimatedBytes: number };
  readonly 'outside-torch-none': NoParams;
  readonly stored: { readonly runId: number; readonly ref: string };
  /** "run 1 "trial" (activations 1.30×, allocator 1.50×, 500 MiB outside torch)". */
  readonly describe: {
    readonly runId: number;
    readonly runName: string | null;
    readonly activationFactor: number | null;
    readonly allocatorFactor: number;
    readonly nonTorchBytes: number | null;
  };
  /** Refusals after the first, joined to it: "…; also, …". */
  readonly also: { readonly reasons: readonly string[] };
}

export type CalibrationParams = RefusalParams &
  ParamsOf<CalibrationBound> &
  ParamsOf<CalibrationNote> &
  CalibrationViewParams;

const enTokens = (n: number) => `${n} token${n === 1 ? '' : 's'}`;
const enSteps = (n: number) => `${n} step${n === 1 ? '' : 's'}`;
const quoted = (name: string | null, open: string, close: string) => (name ? `${open}${name}${close}` : '');

function factorList(p: CalibrationViewParams['describe'], f: Format, lang: Lang): string {
  const en = lang === 'en';
  const parts = [
    p.activationFactor === null ? null : `${en ? 'activations' : '激活值'} ${f.times(p.activationFactor)}`,
    `${en ? 'allocator' : '分配器'} ${f.times(p.allocatorFactor)}`,
    p.nonTorchBytes === null
      ? null
      : en
        ? `${f.bytes(p.nonTorchBytes)} outside torch`
        : `torch 之外 ${f.bytes(p.nonTorchBytes)}`,
  ].filter((x) => x !== null);
  return parts.join(en ? ', ' : '，');
}

const EN: Words<CalibrationParams> = {
  'no-measured-peak': (p) =>
    `run ${p.runId} recorded no training step with memory figures, so there is nothing to calibrate against`,
  'too-few-steps': (p) =>
    `run ${p.runId} recorded ${p.steps} training step${p.steps === 1 ? '' : 's'}; a calibration needs at least ${p.needed}: the first step creates the optimizer states and warms the allocator up, so only the steps after it show the run's peak`,
  'reserved-below-allocated': (p, f) =>
    `run ${p.runId} recorded a reserved peak (${f.bytes(p.reservedBytes)}) below its allocated peak (${f.bytes(p.allocatedBytes)}), which torch's caching allocator cannot show: the step records are not torch's max_memory_reserved / max_memory_allocated`,
  'below-model-states': (p, f) => {
    const parts = [
      `weights (${f.bytes(p.weightsBytes)})`,
      p.optimizerBytes > 0 ? `optimizer states (${f.bytes(p.optimizerBytes)})` : null,
      p.gradientBytes > 0 ? `gradients (${f.bytes(p.gradientBytes)})` : null,
    ].filter((x) => x !== null);
    return `run ${p.runId} peaked at ${f.bytes(p.measuredBytes)} allocated, below the ${f.bytes(p.stateBytes)} that the scenario's ${parts.join(' and ')} take on their own: the run is not this scenario, or it never reached its peak (no optimizer step yet)`;
  },
  'activations-beyond-setup': (p, f) =>
    `run ${p.runId} kept ${f.bytes(p.measuredBytes)} of activations at its peak (${f.times(p.factor)} the estimate's), more than this model keeps at this micro-batch and sequence in its most memory-hungry form (${f.bytes(p.ceilingBytes)}, ${f.times(p.maxFactor)}: fp32, eager attention, no checkpointing, the standard loss): the run used more tokens or another model than the scenario says`,
  'setup-differs': (p) =>
    `the calibration of run ${p.runId} is for ${p.field} ${p.run}, not ${p.target}: a factor measured on one ${p.field} says nothing about the tensors of another`,
  'tokens-beyond-range': (p) =>
    `the calibration of run ${p.runId} was measured at ${enTokens(p.runTokens)} per micro-batch; ${enTokens(p.targetTokens)} is beyond the ${p.maxRatio}× either way it is carried across`,
  'activation-floor': (p, f) =>
    `activations held at ${f.times(p.to)}, not the ${f.times(p.from)} measured: no run of this setup keeps less than every layer's input (${f.bytes(p.floorBytes)}, what full checkpointing keeps)`,
  'allocator-floor': (p, f) =>
    `allocator held at 0×, not the ${f.times(p.from)} measured: the cache above allocated is never negative`,
  'non-torch-floor': (p, f) =>
    `outside torch held at the estimate's ${f.bytes(p.toBytes)}: nvidia-smi's highest sample was ${f.bytes(-p.fromBytes)} below torch's reserved peak, which nvidia-smi always contains, so the samples missed the peak`,
  'batch-differs': (p) =>
    `the probe reported micro-batch ${p.recorded} but the scenario says ${p.scenario}: the estimate is the scenario's (add --micro-batch ${p.recorded} if the probe is right)`,
  'seq-len-differs': (p) =>
    `the probe reported sequence length ${p.recorded} but the scenario says ${p.scenario}: the estimate is the scenario's (add --seq-len ${p.recorded} if the probe is right)`,
  'ended-in-oom': () =>
    'the run ended in an out-of-memory error: its peaks stop at the card, so the factors may be low',
  'no-device-samples': () =>
    "no nvidia-smi sample fell within a measured step: the nvidia-smi level keeps the estimate's memory outside torch",
  'few-steps': (p) => `only ${enSteps(p.steps)} after the warm-up: a few more give a steadier peak`,
  'run-head': (p) => `run ${p.id}${quoted(p.name, ' "', '"')} · ${p.status} · ${p.steps} steps`,
  'measured-over': (p) =>
    `measured over steps ${p.first}–${p.last} (${enSteps(p.used)}${p.warmup > 0 ? `; the first ${p.warmup === 1 ? 'step is' : `${p.warmup} steps are`} left out: optimizer states, allocator warm-up` : ''})`,
  'factors-head': (p) => `the run's own factors (peak at ${p.peakPhase}):`,
  'activation-factor': (p, f) =>
    `${p.factor.toFixed(2)} × the estimate's (${f.bytes(p.measuredBytes)} at the peak where ${f.bytes(p.estimatedBytes)} were estimated)`,
  'activation-factor-none': () => '— (the estimate peaks where no activations are alive)',
  'allocator-factor': (p, f) =>
    `${p.factor.toFixed(2)} × the modelled cache (reserved − allocated: ${f.bytes(p.cacheBytes)})`,
  'outside-torch': (p, f) =>
    `${f.bytes(p.bytes)} (nvidia-smi − reserved: CUDA context, NCCL, other libraries; estimated ${f.bytes(p.estimatedBytes)})`,
  'outside-torch-none': () => '— (no nvidia-smi figure for the run)',
  stored: (p) =>
    `stored with run ${p.runId}: headroom fit --calibrated ${p.ref} --gpu ID and headroom plan --calibrated ${p.ref} --gpu ID predict from it`,
  describe: (p, f) => `run ${p.runId}${quoted(p.runName, ' "', '"')} (${factorList(p, f, 'en')})`,
  also: (p) => p.reasons.map((r, i) => (i === 0 ? r : `also, ${r}`)).join('; '),
};

const ZH: Words<CalibrationParams> = {
  'no-measured-peak': (p) => `运行 ${p.runId} 没有记录任何带显存数字的训练步，因此没有可以校准的依据`,
  'too-few-steps': (p) =>
    `运行 ${p.runId} 只记录了 ${p.steps} 个训练步；校准至少需要 ${p.needed} 个：第一步会创建优化器状态并让分配器预热，只有之后的步才显示运行的峰值`,
  'reserved-below-allocated': (p, f) =>
    `运行 ${p.runId} 记录的预留峰值（${f.bytes(p.reservedBytes)}）低于已分配峰值（${f.bytes(p.allocatedBytes)}），torch 的缓存分配器不可能出现这种情况：这些步记录不是 torch 的 max_memory_reserved / max_memory_allocated`,
  'below-model-states': (p, f) => {
    const parts = [
      `权重（${f.bytes(p.weightsBytes)}）`,
      p.optimizerBytes > 0 ? `优化器状态（${f.bytes(p.optimizerBytes)}）` : null,
      p.gradientBytes > 0 ? `梯度（${f.bytes(p.gradientBytes)}）` : null,
    ].filter((x) => x !== null);
    return `运行 ${p.runId} 的已分配峰值为 ${f.bytes(p.measuredBytes)}，低于该配置的${f.list(parts)}本身就要占用的 ${f.bytes(p.stateBytes)}：这次运行不是这个配置，或者从未达到峰值（还没有执行优化器步骤）`;
  },
  'activations-beyond-setup': (p, f) =>
    `运行 ${p.runId} 在峰值时保留了 ${f.bytes(p.measuredBytes)} 的激活值（估算的 ${f.times(p.factor)}），超过该模型在这个 micro-batch 和序列长度下最耗显存的形式所能保留的量（${f.bytes(p.ceilingBytes)}，${f.times(p.maxFactor)}：fp32、eager 注意力、不用检查点、标准损失）：这次运行用的 token 比配置所说的多，或者是另一个模型`,
  'setup-differs': (p) =>
    `运行 ${p.runId} 的校准针对的是 ${p.field} ${p.run}，而不是 ${p.target}：在一种 ${p.field} 上测得的系数不能说明另一种的张量`,
  'tokens-beyond-range': (p) =>
    `运行 ${p.runId} 的校准是在每个 micro-batch ${p.runTokens} 个 token 下测得的；${p.targetTokens} 个 token 超出了它可以沿用的前后 ${p.maxRatio}× 范围`,
  'activation-floor': (p, f) =>
    `激活值系数保持为 ${f.times(p.to)}，而不是测得的 ${f.times(p.from)}：这个配置的任何运行保留的都不会少于每一层的输入（${f.bytes(p.floorBytes)}，即完整检查点保留的量）`,
  'allocator-floor': (p, f) =>
    `分配器系数保持为 0×，而不是测得的 ${f.times(p.from)}：已分配之外的缓存永远不会是负数`,
  'non-torch-floor': (p, f) =>
    `torch 之外的显存保持为估算的 ${f.bytes(p.toBytes)}：nvidia-smi 的最高采样比 torch 的预留峰值低 ${f.bytes(-p.fromBytes)}，而 nvidia-smi 总是包含这部分，说明采样错过了峰值`,
  'batch-differs': (p) =>
    `探针报告的 micro-batch 为 ${p.recorded}，而配置写的是 ${p.scenario}：估算按配置计算（如果探针是对的，请加上 --micro-batch ${p.recorded}）`,
  'seq-len-differs': (p) =>
    `探针报告的序列长度为 ${p.recorded}，而配置写的是 ${p.scenario}：估算按配置计算（如果探针是对的，请加上 --seq-len ${p.recorded}）`,
  'ended-in-oom': () => '这次运行以显存不足错误结束：它的峰值止于显卡容量，因此系数可能偏低',
  'no-device-samples': () =>
    '没有 nvidia-smi 采样落在测量的步之内：nvidia-smi 一级沿用估算的 torch 之外的显存',
  'few-steps': (p) => `预热之后只有 ${p.steps} 步：再多几步可以得到更稳定的峰值`,
  'run-head': (p) => `运行 ${p.id}${quoted(p.name, '“', '”')} · ${p.status} · ${p.steps} 步`,
  'measured-over': (p) =>
    `测量范围为第 ${p.first}–${p.last} 步（${p.used} 步${p.warmup > 0 ? `；${p.warmup === 1 ? '第一步' : `前 ${p.warmup} 步`}不计入：优化器状态、分配器预热` : ''}）`,
  'factors-head': (p) =>
    `这次运行自身的系数（峰值在${p.peakPhase === 'generate' ? '生成' : OOM_TERMS.zh.phases[p.peakPhase === 'eval' ? 'evaluation' : p.peakPhase]}）：`,
  'activation-factor': (p, f) =>
    `估算的 ${p.factor.toFixed(2)} 倍（峰值处估算 ${f.bytes(p.estimatedBytes)}，实测 ${f.bytes(p.measuredBytes)}）`,
  'activation-factor-none': () => '—（估算的峰值处没有存活的激活值）',
  'allocator-factor': (p, f) =>
    `模型缓存的 ${p.factor.toFixed(2)} 倍（预留 − 已分配：${f.bytes(p.cacheBytes)}）`,
  'outside-torch': (p, f) =>
    `${f.bytes(p.bytes)}（nvidia-smi − 预留：CUDA 上下文、NCCL、其他库；估算为 ${f.bytes(p.estimatedBytes)}）`,
  'outside-torch-none': () => '—（这次运行没有 nvidia-smi 数字）',
  stored: (p) =>
    `已随运行 ${p.runId} 保存：headroom fit --calibrated ${p.ref} --gpu ID 和 headroom plan --calibrated ${p.ref} --gpu ID 会据此预测`,
  describe: (p, f) => `运行 ${p.runId}${quoted(p.runName, '“', '”')}（${factorList(p, f, 'zh')}）`,
  also: (p) => p.reasons.map((r, i) => (i === 0 ? r : `另外，${r}`)).join('；'),
};

const GIB = 2 ** 30;

export const CALIBRATION = defineDomain<CalibrationParams>({
  name: 'calibration',
  words: { en: EN, zh: ZH },
  examples: {
    'no-measured-peak': { runId: 1, steps: 0 },
    'too-few-steps': { runId: 1, steps: 1, needed: 2 },
    'reserved-below-allocated': { runId: 1, allocatedBytes: 9 * GIB, reservedBytes: 8 * GIB },
    'below-model-states': {
      runId: 1,
      measuredBytes: 3 * GIB,
      stateBytes: 6 * GIB,
      weightsBytes: 2 * GIB,
      optimizerBytes: 3 * GIB,
      gradientBytes: GIB,
    },
    'activations-beyond-setup': {
      runId: 1,
      factor: 9.5,
      maxFactor: 4.2,
      measuredBytes: 40 * GIB,
      ceilingBytes: 18 * GIB,
    },
    'setup-differs': { runId: 1, field: 'method', run: 'lora', target: 'full' },
    'tokens-beyond-range': { runId: 1, runTokens: 512, targetTokens: 16384, maxRatio: 16 },
    'activation-floor': { from: 0.4, to: 0.62, floorBytes: 3 * GIB, estimatedBytes: 5 * GIB },
    'allocator-floor': { from: -0.2, to: 0 },
    'non-torch-floor': { fromBytes: -0.3 * GIB, toBytes: 0.74 * GIB },
    'batch-differs': { recorded: 4, scenario: 2 },
    'seq-len-differs': { recorded: 2048, scenario: 1024 },
    'ended-in-oom': {},
    'no-device-samples': {},
    'few-steps': { steps: 2 },
    'run-head': { id: 1, name: 'trial', status: 'ok', steps: 8 },
    'measured-over': { first: 2, last: 8, used: 7, warmup: 1 },
    'factors-head': { peakPhase: 'backward' },
    'activation-factor': { factor: 1.3, measuredBytes: 6.5 * GIB, estimatedBytes: 5 * GIB },
    'activation-factor-none': {},
    'allocator-factor': { factor: 1.5, cacheBytes: 0.9 * GIB },
    'outside-torch': { bytes: 0.49 * GIB, estimatedBytes: 0.74 * GIB },
    'outside-torch-none': {},
    stored: { runId: 1, ref: 'trial' },
    describe: {
      runId: 1,
      runName: 'trial',
      activationFactor: 1.3,
      allocatorFactor: 1.5,
      nonTorchBytes: 500 * 2 ** 20,
    },
    also: { reasons: ['run 1 recorded 1 training step', 'run 1 peaked below its weights'] },
  },
});

/** The levels of the view's table, and its header. */
export const CALIBRATION_TABLE: Readonly<
  Record<
    Lang,
    {
      readonly level: string;
      readonly estimated: string;
      readonly measured: string;
      readonly against: string;
      readonly levels: Readonly<Record<'allocated' | 'reserved' | 'nvidia-smi', string>>;
      /** The factor lines' labels, padded by the view to one column. */
      readonly factors: Readonly<Record<'activations' | 'allocator' | 'outside', string>>;
    }
  >
> = {
  en: {
    level: 'level',
    estimated: 'estimated',
    measured: 'measured',
    against: 'estimate against the run',
    levels: { allocated: 'allocated', reserved: 'reserved', 'nvidia-smi': 'nvidia-smi' },
    factors: { activations: 'activations', allocator: 'allocator', outside: 'outside torch' },
  },
  zh: {
    level: '层级',
    estimated: '估算',
    measured: '实测',
    against: '估算与本次运行的对比',
    levels: { allocated: '已分配', reserved: '已预留', 'nvidia-smi': 'nvidia-smi' },
    factors: { activations: '激活值', allocator: '分配器', outside: 'torch 之外' },
  },
};
