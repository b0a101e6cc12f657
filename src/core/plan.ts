import { upgradeFreesInputs } from './bitsandbytes.js';
import { calibratedEstimate } from './calibrate.js';
import { type CapacityOption, planCapacity } from './capacity.js';
import { GPUS } from './catalog/index.js';
import { type Estimate, estimate, reduceBucketElements } from './estimate.js';
import { largestFitting } from './fit.js';
import { DEFAULT_MARGIN_FRACTION, fitVerdict, memoryTarget } from './margin.js';
import { pruneLadder } from './plan-prune.js';
import type {
  Plan,
  PlanInput,
  PlanTarget,
  Risk,
  RiskLevel,
  RiskParams,
  Rung,
  RungChange,
  RungChangeParams,
  RungId,
} from './plan-types.js';
import { fusesInTorch, type Scenario, type Strategy } from './scenario.js';
import { stepTime } from './time-model.js';

export type { DroppedNote, DroppedNoteParams } from './plan-prune.js';
export { droppedNote } from './plan-prune.js';
export type {
  ChangeId,
  DroppedRung,
  Plan,
  PlanInput,
  PlanTarget,
  Risk,
  RiskLevel,
  RiskParams,
  Rung,
  RungChange,
  RungChangeParams,
  RungId,
} from './plan-types.js';
export { RUNG_IDS } from './plan-types.js';

/** Shortest sequence the shorter-sequence rung proposes: below this a fine-tune loses its point. */
export const MIN_SEQ_LEN = 256;
/** Sequence lengths the shorter-sequence rung rounds down to. */
export const SEQ_LEN_STEP = 64;
/** Alternatives listed when a rung fits. */
export const MAX_ALTERNATIVES = 3;

interface Context {
  readonly input: PlanInput;
  readonly budget: number;
  readonly gpus: number;
  readonly estimateOf: (s: Scenario) => Estimate;
}

/** What a rung's apply gives: the changed scenario and the figures of the change, or null. */
type Applied<C extends RungId> = { scenario: Scenario; params: RungChangeParams[C] } | null;

interface RungSpec<C extends RungId = RungId> {
  readonly id: C;
  /** The changed scenario and what changed (the change's params), or null where the rung does not apply. */
  readonly apply: (s: Scenario, ctx: Context) => Applied<C>;
  readonly risk: (s: Scenario, next: Scenario, est: Estimate) => Risk;
}

/** A rung of the ladder, its params held to its id; the ladder holds rungs of every id. */
interface LadderRung {
  readonly id: RungId;
  readonly apply: (s: Scenario, ctx: Context) => { scenario: Scenario; change: RungChange } | null;
  readonly risk: (s: Scenario, next: Scenario, est: Estimate) => Risk;
}

function rung<C extends RungId>(spec: RungSpec<C>): LadderRung {
  return {
    id: spec.id,
    apply: (s, ctx) => {
      const applied = spec.apply(s, ctx);
      // The code of a rung's change is its id: TypeScript cannot pair C with its params in the union.
      return applied
        ? {
            scenario: applied.scenario,
            change: { id: spec.id, code: spec.id, params: applied.params } as RungChange,
          }
        : null;
    },
    risk: spec.risk,
  };
}

const risk = <C extends keyof RiskParams>(level: RiskLevel, code: C, params: RiskParams[C]): Risk =>
  ({ level, code, params }) as Risk;
const NONE: Risk = risk('none', 'same-training', {});
const fullWeights = (s: Scenario) => s.method === 'full' || s.method === 'freeze';
/** Rungs that change neither the training nor the layout: kept when asking which hardware would fit. */
const SAFE_FOR_HARDWARE = new Set<RungId>([
  'sdpa-attention',
  'smaller-micro-batch',
  'selective-checkpointing',
  'full-checkpointing',
  'chunked-loss',
  'compile-loss',
  'fused-optimizer',
]);

function sharded(s: Scenario, fullShard: boolean): Strategy {
  const fsdp = s.parallelism.strategy.startsWith('fsdp');
  if (fullShard) return fsdp ? 'fsdp' : 'zero3';
  if (s.parallelism.strategy === 'zero3' || s.parallelism.strategy === 'fsdp') return s.parallelism.strategy;
  return fsdp ? 'fsdp-grad-op' : 'zero2';
}

/** A new strategy, keeping the FSDP options when it stays FSDP and DeepSpeed's when it stays ZeRO. */
function layout(s: Scenario, to: Strategy, gpus: number): Scenario['parallelism'] {
  const { strategy: from, wrapEmbeddings, syncEachMicroBatch, reduceBucketSize, overlapComm } = s.parallelism;
  if (to.startsWith('fsdp') && from.startsWith('fsdp'))
    return {
      strategy: to,
      gpus,
      ...(wrapEmbeddings ? { wrapEmbeddings } : {}),
      ...(syncEachMicroBatch ? { syncEachMicroBatch } : {}),
    };
  if (to.startsWith('zero') && from.startsWith('zero'))
    return {
      strategy: to,
      gpus,
      ...(reduceBucketSize === undefined ? {} : { reduceBucketSize }),
      ...(overlapComm ? { overlapComm } : {}),
    };
  return { strategy: to, gpus };
}

const hostCpu = (est: Estimate) => est.host?.cpuBytes ?? 0;

/** The ladder, cheapest first. */
const LADDER: readonly LadderRung[] = [
  rung({
    // The allocator setting PyTorch's own OOM message suggests: it keeps less of the churning bytes as
    // reserve (docs/memory-model.md, section 7), the training itself unchanged. Step time on the H200:
    // a median 1.00× over twelve runs (the risk's words say so).
    id: 'expandable-segments',
    apply: (s) =>
      s.expandableSegments ? null : { scenario: { ...s, expandableSegments: true }, params: {} },
    risk: () => risk('none', 'allocator-setting', {}),
  }),
  rung({
    // bitsandbytes 0.43.2 stopped keeping each 4-bit layer's input (PR #1270): the same training, for
    // a pip upgrade. int8's MatMul8bitLt still keeps it.
    id: 'bitsandbytes-upgrade',
    apply: (s) =>
      upgradeFreesInputs(s) ? { scenario: { ...s, quantizedInputsKept: 'none' }, params: {} } : null,
    risk: () => risk('none', 'newer-bitsandbytes', {}),
  }),
  rung({
    id: 'sdpa-attention',
    apply: (s) => (s.attention === 'eager' ? { scenario: { ...s, attention: 'sdpa' }, params: {} } : null),
    risk: () => NONE,
  }),
  rung({
    id: 'smaller-micro-batch',
    apply: (s, ctx) => {
      const b = s.microBatchSize;
      if (b <= 1) return null;
      // The largest divisor of b that fits keeps the effective batch exact; 1 if none does.
      const divisors = Array.from({ length: b - 1 }, (_, i) => b - 1 - i).filter(
        (d) => d >= 1 && b % d === 0,
      );
      const chosen =
        divisors.find((d) => ctx.estimateOf({ ...s, microBatchSize: d }).peak.deviceBytes <= ctx.budget) ?? 1;
      const accum = s.gradAccumSteps * (b / chosen);
      return {
        scenario: { ...s, microBatchSize: chosen, gradAccumSteps: accum },
        params: {
          fromMicroBatch: b,
          toMicroBatch: chosen,
          fromAccumulation: s.gradAccumSteps,
          toAccumulation: accum,
        },
      };
    },
    risk: () => risk('none', 'same-effective-batch', {}),
  }),
  rung({
    id: 'selective-checkpointing',
    apply: (s) =>
      s.gradientCheckpointing === 'none'
        ? { scenario: { ...s, gradientCheckpointing: 'selective' }, params: {} }
        : null,
    risk: () => NONE,
  }),
  rung({
    id: 'full-checkpointing',
    apply: (s) =>
      s.gradientCheckpointing !== 'full'
        ? { scenario: { ...s, gradientCheckpointing: 'full' }, params: {} }
        : null,
    risk: () => NONE,
  }),
  rung({
    id: 'chunked-loss',
    apply: (s) => (s.loss === 'standard' ? { scenario: { ...s, loss: 'chunked' }, params: {} } : null),
    risk: () => NONE,
  }),
  rung({
    // A chunked loss compiled with its upcast keeps no fp32 copy of the logits (torchtune PR #1390).
    id: 'compile-loss',
    apply: (s) =>
      s.loss === 'chunked' && !s.torchCompile ? { scenario: { ...s, torchCompile: true }, params: {} } : null,
    risk: () => risk('low', 'compile-warmup', {}),
  }),
  rung({
    // torch's foreach AdamW builds a state-sized sqrt temporary in the step; the fused kernel does not.
    id: 'fused-optimizer',
    apply: (s) =>
      fusesInTorch(s.optimizer) && !s.fusedOptimizer
        ? { scenario: { ...s, fusedOptimizer: true }, params: { optimizer: s.optimizer } }
        : null,
    risk: () => NONE,
  }),
  rung({
    // DeepSpeed allocates its whole reduce bucket whatever trains: 5e8 elements by default, 1 GB in bf16
    // on every GPU. The Hugging Face integration's "auto" sizes it hidden_size², for more, smaller
    // reductions.
    id: 'zero-reduce-bucket',
    apply: (s, ctx) => {
      if (!s.parallelism.strategy.startsWith('zero') || s.parallelism.reduceBucketSize === 'auto')
        return null;
      const auto = { ...s, parallelism: { ...s.parallelism, reduceBucketSize: 'auto' as const } };
      const from = reduceBucketElements(s, ctx.input.shape);
      const to = reduceBucketElements(auto, ctx.input.shape);
      return to < from ? { scenario: auto, params: { fromElements: from, toElements: to } } : null;
    },
    risk: () => risk('none', 'smaller-reductions', {}),
  }),
  rung({
    // Accumulating inside FSDP's no_sync() holds the whole model's gradients; reduce-scattering every
    // micro-batch keeps one shard, for one more reduce-scatter per micro-batch.
    id: 'fsdp-sync-each-micro-batch',
    apply: (s) =>
      s.parallelism.strategy.startsWith('fsdp') &&
      s.parallelism.gpus > 1 &&
      s.gradAccumSteps > 1 &&
      !s.parallelism.syncEachMicroBatch
        ? { scenario: { ...s, parallelism: { ...s.parallelism, syncEachMicroBatch: true } }, params: {} }
        : null,
    risk: () => risk('none', 'reduce-scatter-each-micro-batch', {}),
  }),
  rung({
    id: 'fsdp-wrap-embeddings',
    apply: (s) =>
      s.parallelism.strategy === 'fsdp' && s.parallelism.gpus > 1 && !s.parallelism.wrapEmbeddings
        ? { scenario: { ...s, parallelism: { ...s.parallelism, wrapEmbeddings: true } }, params: {} }
        : null,
    risk: () => risk('none', 'more-all-gathers', {}),
  }),
  rung({
    id: 'shorter-sequence',
    apply: (s, ctx) => {
      if (!ctx.input.allowShorter) return null;
      const steps = Math.floor((s.seqLen - 1) / SEQ_LEN_STEP);
      const fits = (k: number) =>
        ctx.estimateOf({ ...s, seqLen: k * SEQ_LEN_STEP }).peak.deviceBytes <= ctx.budget;
      const k = largestFitting(fits, steps);
      const seqLen = k * SEQ_LEN_STEP;
      // Only a length that fits is worth the truncation; otherwise later rungs may fit at full length.
      if (k === 0 || seqLen < MIN_SEQ_LEN) return null;
      return { scenario: { ...s, seqLen }, params: { fromSeqLen: s.seqLen, toSeqLen: seqLen } };
    },
    risk: (_s, next) => risk('medium', 'truncated-samples', { seqLen: next.seqLen }),
  }),
  rung({
    id: 'pure-bf16',
    apply: (s, ctx) => {
      if (s.precision === 'bf16-true' || s.precision === 'fp16-true') return null;
      if (!ctx.input.gpu.bf16) return null;
      return { scenario: { ...s, precision: 'bf16-true' }, params: { from: s.precision } };
    },
    risk: (s) =>
      fullWeights(s) ? risk('medium', 'no-fp32-master-weights', {}) : risk('low', 'bf16-frozen-base', {}),
  }),
  rung({
    id: '8bit-optimizer',
    apply: (s) => {
      const to =
        s.optimizer === 'adamw' ? 'adamw-8bit' : s.optimizer === 'paged-adamw' ? 'paged-adamw-8bit' : null;
      // bitsandbytes' 8-bit optimizers are one kernel already: torch's fused flag goes.
      const { fusedOptimizer: _fused, ...rest } = s;
      return to ? { scenario: { ...rest, optimizer: to }, params: { from: s.optimizer, to } } : null;
    },
    // Block-wise 8-bit states matched 32-bit Adam in Dettmers et al. 2022 (8-bit Optimizers via
    // Block-wise Quantization).
    risk: () => risk('low', '8bit-states', {}),
  }),
  rung({
    id: 'lora',
    apply: (s) => {
      if (!fullWeights(s)) return null;
      const { trainableLayers: _dropped, ...rest } = s;
      const rank = 16;
      return {
        scenario: {
          ...rest,
          method: 'lora',
          lora: { rank, alpha: 2 * rank, dropout: 0, targets: 'all-linear', modulesToSave: [] },
        },
        params: { rank },
      };
    },
    risk: () => risk('medium', 'low-rank-adapters', {}),
  }),
  rung({
    id: 'qlora',
    apply: (s) => {
      if (s.method !== 'lora' && s.method !== 'qlora') return null;
      if (
        s.quantization === 'nf4' ||
        s.quantization === 'nf4-dq' ||
        s.quantization === 'fp4' ||
        s.quantization === 'int4-gptq'
      )
        return null;
      return { scenario: { ...s, method: 'qlora', quantization: 'nf4-dq' }, params: {} };
    },
    risk: () => risk('medium', '4bit-base', {}),
  }),
  rung({
    id: 'zero2',
    apply: (s, ctx) => {
      if (ctx.gpus <= 1) return null;
      const to = sharded(s, false);
      if (to === s.parallelism.strategy) return null;
      return {
        scenario: { ...s, parallelism: layout(s, to, ctx.gpus) },
        params: { strategy: to, gpus: ctx.gpus },
      };
    },
    risk: () => risk('none', 'zero2-reduce-scatter', {}),
  }),
  rung({
    id: 'zero3',
    apply: (s, ctx) => {
      if (ctx.gpus <= 1) return null;
      const to = sharded(s, true);
      if (to === s.parallelism.strategy) return null;
      return {
        scenario: { ...s, parallelism: layout(s, to, ctx.gpus) },
        params: { strategy: to, gpus: ctx.gpus },
      };
    },
    risk: () => risk('none', 'zero3-gathers', {}),
  }),
  rung({
    // Saved activations wait in pinned CPU memory (Hugging Face checkpointing offload, TRL and torchtune
    // activation offloading, Unsloth): any strategy, one GPU included; the training is unchanged.
    id: 'offload-activations-cpu',
    apply: (s) =>
      s.offload.activations === 'cpu'
        ? null
        : {
            scenario: { ...s, offload: { ...s.offload, activations: 'cpu' } },
            params: { checkpointing: s.gradientCheckpointing },
          },
    risk: (_s, _next, est) => risk('low', 'pinned-activations', { cpuBytes: hostCpu(est) }),
  }),
  rung({
    id: 'offload-optimizer-cpu',
    apply: (s, ctx) => {
      if (s.offload.optimizer !== 'none') return null;
      const strategy =
        s.parallelism.strategy === 'single' ||
        s.parallelism.strategy === 'ddp' ||
        s.parallelism.strategy === 'zero1'
          ? 'zero2'
          : s.parallelism.strategy;
      return {
        scenario: {
          ...s,
          parallelism: layout(s, strategy, ctx.gpus),
          offload: { ...s.offload, optimizer: 'cpu' },
        },
        params: { strategy },
      };
    },
    risk: (_s, _next, est) => risk('low', 'cpu-optimizer-step', { cpuBytes: hostCpu(est) }),
  }),
  rung({
    id: 'offload-params-cpu',
    apply: (s, ctx) => {
      if (s.offload.params !== 'none') return null;
      const strategy: Strategy = s.parallelism.strategy.startsWith('fsdp') ? 'fsdp' : 'zero3';
      return {
        scenario: {
          ...s,
          parallelism: layout(s, strategy, ctx.gpus),
          offload: {
            ...s.offload,
            optimizer: s.offload.optimizer === 'none' ? 'cpu' : s.offload.optimizer,
            params: 'cpu',
          },
        },
        params: { strategy },
      };
    },
    risk: (_s, _next, est) => risk('low', 'cpu-parameters', { cpuBytes: hostCpu(est) }),
  }),
  rung({
    id: 'offload-nvme',
    apply: (s, ctx) => {
      if (s.offload.params === 'nvme' && s.offload.optimizer === 'nvme') return null;
      // FSDP offloads to CPU only; NVMe needs DeepSpeed ZeRO-Infinity.
      return {
        scenario: {
          ...s,
          parallelism: layout(s, 'zero3', ctx.gpus),
          offload: { ...s.offload, optimizer: 'nvme', params: 'nvme' },
        },
        params: {},
      };
    },
    risk: (_s, _next, est) =>
      risk('medium', 'nvme-bound', { nvmeBytes: est.host?.nvmeBytes ?? 0, cpuBytes: hostCpu(est) }),
  }),
];

const SPEC_BY_ID: ReadonlyMap<RungId, LadderRung> = new Map(LADDER.map((spec) => [spec.id, spec]));

const RISK_ORDER: Readonly<Record<Risk['level'], number>> = { none: 0, low: 1, medium: 2, high: 3 };

/**
 * Climbs the ladder for a scenario on a GPU (×gpus) until it fits with the margin.
 * @example makePlan({ scenario, shape, gpu: findGpu('rtx-4090')! }).rungs.at(-1)?.fits
 */
export function makePlan(input: PlanInput): Plan {
  const base = input.scenario;
  const gpu = input.gpu;
  const memory = memoryTarget(gpu, input.marginFraction ?? DEFAULT_MARGIN_FRACTION);
  const cache = new Map<string, Estimate>();
  const estimateOf = (s: Scenario): Estimate => {
    const key = JSON.stringify(s);
    let est = cache.get(key);
    if (!est) {
      est = estimate({ scenario: s, shape: input.shape, exactParams: input.exactParams ?? null, gpu });
      if (input.calibration) est = calibratedEstimate(est, input.calibration);
      cache.set(key, est);
    }
    return est;
  };
  const secondsPerToken = (s: Scenario): number => {
    const t = stepTime({ scenario: s, shape: input.shape, gpu, estimate: estimateOf(s) });
    return t.stepSeconds / (t.tokensPerStepPerGpu * s.parallelism.gpus);
  };
  const baseEstimate = estimateOf(base);
  const baseSeconds = secondsPerToken(base);
  const baseFit = fitVerdict(baseEstimate, memory);
  const target: PlanTarget = {
    ...memory,
    gpus: base.parallelism.gpus,
    startPeakBytes: baseEstimate.peak.deviceBytes,
    startUpperBytes: baseEstimate.upper.deviceBytes,
    headroomBytes: baseFit.headroomBytes,
    beyondMarginBytes: baseFit.budgetBytes - baseFit.requiredBytes,
    pagedToHostBytes: baseFit.pagedToHostBytes,
  };
  const fits = (est: Estimate) => fitVerdict(est, memory).ok;
  if (fits(baseEstimate))
    return { scenario: base, target, fitsAlready: true, rungs: [], alternatives: [], dropped: [] };

  const ctx: Context = { input, budget: target.budgetBytes, gpus: target.gpus, estimateOf };
  // The pruning climbs again over the same scenarios (the same objects: each climb's steps are the
  // rungs built before), so each rung is built on each scenario once.
  const built = new Map<Scenario, Map<RungId, Rung | null>>();
  const build = (spec: LadderRung, from: Scenario): Rung | null => {
    const onFrom = built.get(from) ?? new Map<RungId, Rung | null>();
    built.set(from, onFrom);
    if (!onFrom.has(spec.id)) onFrom.set(spec.id, buildNew(spec, from));
    return onFrom.get(spec.id)!;
  };
  const buildNew = (spec: LadderRung, from: Scenario): Rung | null => {
    const applied = spec.apply(from, ctx);
    if (!applied) return null;
    const before = estimateOf(from);
    const est = estimateOf(applied.scenario);
    const saved = before.peak.deviceBytes - est.peak.deviceBytes;
    if (saved <= 0) return null;
    return {
      change: applied.change,
      scenario: applied.scenario,
      estimate: est,
      savedBytes: saved,
      relativeStepTime: secondsPerToken(applied.scenario) / baseSeconds,
      risk: spec.risk(from, applied.scenario, est),
      fits: fits(est),
    };
  };

  // Each step applies the cheapest rung not yet applied that saves memory now: a rung that changed
  // nothing earlier (checkpointing while the optimizer step was the peak) is tried again later. The
  // climb stops at the first rung that fits; `allowed` limits it to some rungs (to prune the ladder).
  const climb = (allowed: (id: RungId) => boolean): Rung[] => {
    const out: Rung[] = [];
    const taken = new Set<RungId>();
    let current = base;
    for (;;) {
      let next: Rung | null = null;
      for (const spec of LADDER) {
        if (taken.has(spec.id) || !allowed(spec.id)) continue;
        next = build(spec, current);
        if (next) break;
      }
      if (!next) return out;
      taken.add(next.change.id as RungId);
      out.push(next);
      if (next.fits) return out;
      current = next.scenario;
    }
  };
  const rungs = climb(() => true);
  const applied = new Set(rungs.map((r) => r.change.id));

  if (rungs.at(-1)?.fits) {
    const shown = pruneLadder({
      climbed: rungs,
      climbOnly: (ids) => climb((id) => ids.has(id)),
      build: (id, from) => build(SPEC_BY_ID.get(id)!, from),
      base,
    });
    // Alternatives: every rung not climbed, applied instead of the winning one on the ladder shown.
    const before = shown.rungs.length >= 2 ? shown.rungs.at(-2)!.scenario : base;
    const alternatives: Rung[] = [];
    for (const spec of LADDER) {
      if (applied.has(spec.id)) continue;
      const rung = build(spec, before);
      if (rung?.fits) alternatives.push(rung);
    }
    alternatives.sort(
      (a, b) =>
        RISK_ORDER[a.risk.level] - RISK_ORDER[b.risk.level] || a.relativeStepTime - b.relativeStepTime,
    );
    return {
      scenario: base,
      target,
      fitsAlready: false,
      rungs: shown.rungs,
      alternatives: alternatives.slice(0, MAX_ALTERNATIVES),
      dropped: shown.dropped,
    };
  }

  // Nothing on the ladder fits: the hardware that runs the scenario with only the risk-free rungs applied.
  // (applied whether or not they save memory on this GPU: on another layout they will).
  let safe = base;
  for (const spec of LADDER) {
    if (SAFE_FOR_HARDWARE.has(spec.id)) safe = spec.apply(safe, ctx)?.scenario ?? safe;
  }
  const capacity = planCapacity({
    scenario: safe,
    shape: input.shape,
    exactParams: input.exactParams ?? null,
    gpus: input.catalog ?? GPUS,
    marginFraction: target.marginFraction,
  });
  const alternatives = capacity.options
    .slice(0, MAX_ALTERNATIVES)
    .map((o) => hardwareRung(o, estimateOf(base), baseSeconds));
  return { scenario: base, target, fitsAlready: false, rungs, alternatives, dropped: [] };
}

function hardwareRung(option: CapacityOption, base: Estimate, baseSeconds: number): Rung {
  const perToken = option.time.stepSeconds / (option.time.tokensPerStepPerGpu * option.gpus);
  return {
    change: {
      id: 'hardware',
      code: 'hardware',
      params: { gpu: option.gpu, gpuName: option.gpuName, gpus: option.gpus, strategy: option.strategy },
    },
    scenario: option.scenario,
    estimate: option.estimate,
    savedBytes: base.peak.deviceBytes - option.estimate.peak.deviceBytes,
    relativeStepTime: perToken / baseSeconds,
    risk: risk('none', 'other-hardware', {}),
    fits: true,
  };
}
