/**
 * The estimator's figure for each change that shrinks a part of memory: the scenario is re-estimated
 * with the change (src/core/estimate.ts) and compared, at the nvidia-smi level, with the card the OOM
 * happened on (its total capacity) or the scenario's --gpu.
 */
import type { ModelShape } from '../architecture.js';
import { upgradeFreesInputs } from '../bitsandbytes.js';
import type { GpuSpec } from '../catalog/gpu-spec.js';
import { isUserError } from '../errors.js';
import { type Estimate, estimate } from '../estimate.js';
import { fitVerdict, targetOf } from '../margin.js';
import { fusesInTorch, parseScenario, SCENARIO_DEFAULTS, type Scenario } from '../scenario.js';
import type { MemoryPart } from './evidence.js';
import type { Remedy } from './finding.js';
import type { RemedyChange, RemedyCode } from './remedy-codes.js';

/** A scenario the diagnosis can estimate: what `headroom estimate` needs. */
export interface ScenarioContext {
  readonly scenario: Scenario;
  readonly shape: ModelShape;
  readonly exactParams?: number | null;
  readonly gpu?: GpuSpec | null;
}

/** The part of memory a phase points at. */
export type RemediedPart = MemoryPart;

interface Variant {
  /** The change as data: its code and what it moves between. */
  readonly message: RemedyChange;
  readonly flags: string;
  /** The fields the change sets. */
  readonly change: Readonly<Record<string, unknown>>;
  /** The whole scenario with the change. */
  readonly raw: Record<string, unknown>;
}

/** The flags of the bitsandbytes upgrade: the same run, with the 4-bit inputs no longer kept. */
export const UPGRADE_FLAGS = '--quantized-inputs-kept none';

const SHARDED = new Set(['zero1', 'zero2', 'zero3', 'fsdp', 'fsdp-grad-op']);

/** The changes worth trying for a part, least disruptive first, that the scenario does not already use. */
function variantsFor(part: RemediedPart, s: Scenario): Variant[] {
  const base = { ...s } as Record<string, unknown>;
  const out: Variant[] = [];
  const add = (message: RemedyChange, flags: string, change: Record<string, unknown>) => {
    const raw: Record<string, unknown> = { ...base, ...change };
    if (raw.method !== 'freeze') delete raw.trainableLayers;
    out.push({ message, flags, change, raw });
  };
  const gpus = s.parallelism.gpus;
  const full = s.method === 'full' || s.method === 'freeze';
  const lora = s.lora ?? { ...SCENARIO_DEFAULTS.lora, modulesToSave: [] };
  switch (part) {
    case 'activations':
      // An old bitsandbytes keeps every 4-bit layer's input: upgrading frees them with the same training.
      if (upgradeFreesInputs(s))
        add({ code: 'bitsandbytes-upgrade', params: {} }, UPGRADE_FLAGS, { quantizedInputsKept: 'none' });
      if (s.microBatchSize > 1) {
        const accum = s.gradAccumSteps * s.microBatchSize;
        add(
          { code: 'micro-batch', params: { from: s.microBatchSize, to: 1 } },
          `--micro-batch 1 --grad-accum ${accum}`,
          { microBatchSize: 1, gradAccumSteps: accum },
        );
      }
      if (s.gradientCheckpointing !== 'full')
        add(
          { code: 'gradient-checkpointing', params: { from: s.gradientCheckpointing, to: 'full' } },
          '--gradient-checkpointing full',
          { gradientCheckpointing: 'full' },
        );
      if (s.loss === 'standard') add({ code: 'fused-loss', params: {} }, '--loss fused', { loss: 'fused' });
      if (s.loss === 'chunked' && !s.torchCompile)
        add({ code: 'compile-loss', params: {} }, '--torch-compile', { torchCompile: true });
      if (s.attention === 'eager')
        add({ code: 'sdpa', params: {} }, '--attention sdpa', { attention: 'sdpa' });
      if (s.offload.activations !== 'cpu')
        add({ code: 'offload-activations', params: {} }, '--offload-activations cpu', {
          offload: { ...s.offload, activations: 'cpu' },
        });
      if (s.seqLen >= 1024) {
        const half = Math.floor(s.seqLen / 2);
        add({ code: 'shorter-seq', params: { from: s.seqLen, to: half } }, `--seq-len ${half}`, {
          seqLen: half,
        });
      }
      break;
    case 'weights':
      if (s.precision === 'fp32' || s.precision.endsWith('-mixed')) {
        const to = s.precision === 'fp16-mixed' ? 'fp16-true' : 'bf16-true';
        add({ code: 'bf16-true', params: { from: s.precision, to } }, `--precision ${to}`, { precision: to });
      }
      if (full) add({ code: 'lora', params: {} }, '--method lora', { method: 'lora', lora });
      if (s.quantization === 'none')
        add({ code: 'qlora', params: {} }, '--method qlora --quantization nf4', {
          method: 'qlora',
          quantization: 'nf4',
          lora,
        });
      if (gpus > 1 && !SHARDED.has(s.parallelism.strategy))
        add({ code: 'zero3', params: { gpus } }, '--strategy zero3', {
          parallelism: { strategy: 'zero3', gpus },
        });
      break;
    case 'optimizer':
      // torch's fused kernel: the same optimizer without its state-sized step temporary.
      if (fusesInTorch(s.optimizer) && !s.fusedOptimizer)
        add({ code: 'fused-optimizer', params: {} }, '--fused-optimizer', {
          fusedOptimizer: true,
        });
      if (s.optimizer === 'adamw' || s.optimizer === 'paged-adamw') {
        const to = s.optimizer === 'paged-adamw' ? 'paged-adamw-8bit' : 'adamw-8bit';
        // bitsandbytes' 8-bit optimizers are one kernel already: torch's fused flag goes.
        add({ code: 'adamw-8bit', params: { from: s.optimizer, to } }, `--optimizer ${to}`, {
          optimizer: to,
          fusedOptimizer: false,
        });
      }
      if (full) add({ code: 'lora', params: {} }, '--method lora', { method: 'lora', lora });
      if (gpus > 1 && !SHARDED.has(s.parallelism.strategy))
        add({ code: 'zero2', params: { gpus } }, '--strategy zero2', {
          parallelism: { strategy: 'zero2', gpus },
        });
      if (s.offload.optimizer === 'none') {
        const strategy = SHARDED.has(s.parallelism.strategy) ? s.parallelism.strategy : 'zero2';
        add(
          { code: 'offload-optimizer', params: {} },
          `${strategy === s.parallelism.strategy ? '' : `--strategy ${strategy} `}--offload-optimizer cpu`,
          {
            // The run's own strategy keeps its settings (FSDP's options, DeepSpeed's buckets).
            parallelism: strategy === s.parallelism.strategy ? s.parallelism : { strategy, gpus },
            offload: { ...s.offload, optimizer: 'cpu' },
          },
        );
      }
      break;
  }
  return out;
}

/** Estimates a scenario; null when the change makes it invalid for this model. */
function tryEstimate(raw: Record<string, unknown>, ctx: ScenarioContext): Estimate | null {
  try {
    const scenario = parseScenario(raw);
    return estimate({ scenario, shape: ctx.shape, exactParams: ctx.exactParams ?? null, gpu: null });
  } catch (error) {
    if (isUserError(error)) return null;
    throw error;
  }
}

/** The scenario's own estimate (nvidia-smi level is `peak.deviceBytes`). */
export function baselineEstimate(ctx: ScenarioContext): Estimate {
  return estimate({
    scenario: ctx.scenario,
    shape: ctx.shape,
    exactParams: ctx.exactParams ?? null,
    gpu: null,
  });
}

/** Remedy codes that change the data or the method rather than how the same run is computed. */
const NOT_COMBINED: ReadonlySet<RemedyCode> = new Set(['shorter-seq', 'lora', 'qlora']);
/** Remedy codes that move memory to the host. */
const OFFLOADED: ReadonlySet<RemedyCode> = new Set(['offload-activations', 'offload-optimizer']);

/**
 * The changes that shrink `part`, each with the estimator's saving and the headroom it leaves on a card
 * of `capacityBytes` (null: unknown card). Changes that save nothing are left out. When none fits alone,
 * the changes that keep the same training (not shorter sequences, not a new method) are stacked in
 * order — this part's first, then the other parts' — until the estimate fits, and that combination
 * is added last.
 */
export function priceRemedies(
  part: RemediedPart,
  ctx: ScenarioContext,
  capacityBytes: number | null,
): Remedy[] {
  const before = baselineEstimate(ctx).peak.deviceBytes;
  const out: Remedy[] = [];
  const variants = variantsFor(part, ctx.scenario);
  const priced = (changes: readonly RemedyChange[], flags: string, after: Estimate): Remedy => ({
    changes,
    flags,
    savedBytes: before - after.peak.deviceBytes,
    // The one verdict (margin.ts): paged optimizer states wait in host RAM rather than fail, and the
    // margin is kept as every other command keeps it.
    fitsAfter: capacityBytes === null ? null : fitVerdict(after, targetOf('', '', capacityBytes)).ok,
    headroomAfterBytes:
      capacityBytes === null ? null : fitVerdict(after, targetOf('', '', capacityBytes)).headroomBytes,
  });
  for (const v of variants) {
    const after = tryEstimate(v.raw, ctx);
    if (!after) continue;
    if (before - after.peak.deviceBytes <= 0) continue;
    out.push(priced([v.message], v.flags, after));
  }
  if (capacityBytes === null || out.some((r) => r.fitsAfter)) return out;
  // Stack this part's changes, then the other parts' (the estimate's floor may be the optimizer step).
  const others = (['optimizer', 'weights', 'activations'] as const).filter((p) => p !== part);
  const stack: Variant[] = [];
  for (const v of [...variants, ...others.flatMap((p) => variantsFor(p, ctx.scenario))])
    if (!NOT_COMBINED.has(v.message.code) && !stack.some((x) => x.message.code === v.message.code))
      stack.push(v);
  // Offloads cost PCIe time and host memory: the ladder's last step, so the stack's last changes too.
  stack.sort((a, b) => Number(OFFLOADED.has(a.message.code)) - Number(OFFLOADED.has(b.message.code)));
  const apply = (list: readonly Variant[]) =>
    tryEstimate(
      Object.assign({ ...ctx.scenario } as Record<string, unknown>, ...list.map((v) => v.change)),
      ctx,
    );
  const target = targetOf('', '', capacityBytes);
  const fits = (e: Estimate | null): e is Estimate => e !== null && fitVerdict(e, target).ok;
  for (let n = 2; n <= stack.length; n++) {
    if (!fits(apply(stack.slice(0, n)))) continue;
    // The first stack that fits, without the changes it does not need.
    let used = stack.slice(0, n);
    for (const v of [...used]) {
      const without = used.filter((u) => u !== v);
      if (without.length > 0 && fits(apply(without))) used = without;
    }
    const after = apply(used);
    if (fits(after))
      out.push(
        priced(
          used.map((u) => u.message),
          used.map((u) => u.flags).join(' '),
          after,
        ),
      );
    break;
  }
  return out;
}
