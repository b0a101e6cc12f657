/**
 * Which parts of an estimate to attack first, and with what. Advice is data: each attack is a part,
 * its bytes and share, and remedies as codes with raw params (src/words/advice.ts words them); the
 * terminal, JSON and the dashboard render the same objects.
 */
import { BITSANDBYTES_INPUTS_DROPPED_FROM, upgradeFreesInputs } from './bitsandbytes.js';
import type { Components, Estimate } from './estimate.js';
import type { MessageOf, NoParams } from './message.js';
import { fusesInTorch, type Scenario } from './scenario.js';
import { STRATEGY_TRAITS } from './sharding.js';

export type Part = keyof Components;

/** The params of each remedy code: the scenario's figures the remedy would change, unformatted. */
export interface AdviceParams {
  /** Upgrade bitsandbytes: 4-bit layers stop keeping their inputs from this release on. */
  readonly 'bitsandbytes-upgrade': { readonly version: string };
  /** A smaller micro-batch with more gradient accumulation (the same tokens per step). */
  readonly 'smaller-micro-batch': { readonly microBatchSize: number };
  readonly 'gradient-checkpointing': NoParams;
  /** A chunked or fused cross-entropy instead of the standard loss. */
  readonly 'chunked-loss': NoParams;
  /** SDPA or flash attention instead of eager. */
  readonly 'sdpa-or-flash': NoParams;
  readonly 'activation-offload': NoParams;
  readonly 'shorter-sequences': { readonly seqLen: number };
  /** Weights stored in 16 bits (bf16-true) instead of fp32 under mixed precision. */
  readonly '16-bit-weights': NoParams;
  /** LoRA on a frozen base instead of a full fine-tune. */
  readonly 'lora-frozen-base': NoParams;
  /** A 4-bit quantized base (QLoRA). */
  readonly '4-bit-base': NoParams;
  /** The embeddings and output head as FSDP units of their own (out of the root unit). */
  readonly 'fsdp-wrap-embeddings': NoParams;
  /** ZeRO-3 or FSDP across GPUs: the weights sharded. */
  readonly 'shard-weights': NoParams;
  readonly 'param-offload': NoParams;
  /** torch's fused optimizer kernel: no state-sized step temporary (its bytes on this GPU). */
  readonly 'fused-optimizer': { readonly tempBytes: number };
  readonly '8-bit-optimizer': NoParams;
  /** LoRA: optimizer states only for the adapters. */
  readonly 'lora-adapter-states': NoParams;
  /** ZeRO-1/2 across GPUs: the optimizer states sharded. */
  readonly 'shard-optimizer': NoParams;
  readonly 'optimizer-offload': NoParams;
  /** Reduce-scatter every micro-batch instead of accumulating unsharded in no_sync(). */
  readonly 'fsdp-sync-each-micro-batch': { readonly gradAccumSteps: number };
  /** Gradients in 16 bits (bf16-true) instead of fp32 under mixed precision. */
  readonly '16-bit-gradients': NoParams;
  /** LoRA: gradients only for the adapters. */
  readonly 'lora-gradients': NoParams;
  /** ZeRO-2 or FSDP across GPUs: the gradients sharded. */
  readonly 'shard-gradients': NoParams;
  /** PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation. */
  readonly 'expandable-segments': NoParams;
}

export type Advice = MessageOf<AdviceParams>;
export type AdviceCode = Advice['code'];

export interface Attack {
  readonly part: Part;
  readonly bytes: number;
  /** Share of the device-level peak. */
  readonly share: number;
  /** Changes that shrink this part, cheapest first, that the scenario does not already use. */
  readonly remedies: readonly Advice[];
}

const NONE = {} as const;

function remediesFor(part: Part, scenario: Scenario, result: Estimate): Advice[] {
  const out: Advice[] = [];
  const full = scenario.method === 'full' || scenario.method === 'freeze';
  const traits = STRATEGY_TRAITS[scenario.parallelism.strategy];
  const sharded = traits.shards.optimizer;
  const fsdpRoot = traits.rootUnitGathered && scenario.parallelism.gpus > 1;
  switch (part) {
    case 'activations':
      // The same training for a pip upgrade: bitsandbytes 0.43.2 stopped keeping 4-bit inputs.
      if (upgradeFreesInputs(scenario))
        out.push({ code: 'bitsandbytes-upgrade', params: { version: BITSANDBYTES_INPUTS_DROPPED_FROM } });
      if (scenario.microBatchSize > 1)
        out.push({ code: 'smaller-micro-batch', params: { microBatchSize: scenario.microBatchSize } });
      if (scenario.gradientCheckpointing !== 'full')
        out.push({ code: 'gradient-checkpointing', params: NONE });
      if (scenario.loss === 'standard') out.push({ code: 'chunked-loss', params: NONE });
      if (scenario.attention === 'eager') out.push({ code: 'sdpa-or-flash', params: NONE });
      if (scenario.offload.activations !== 'cpu') out.push({ code: 'activation-offload', params: NONE });
      out.push({ code: 'shorter-sequences', params: { seqLen: scenario.seqLen } });
      break;
    case 'weights':
      if (scenario.precision.endsWith('-mixed') || scenario.precision === 'fp32')
        out.push({ code: '16-bit-weights', params: NONE });
      if (full) out.push({ code: 'lora-frozen-base', params: NONE });
      if (scenario.quantization === 'none') out.push({ code: '4-bit-base', params: NONE });
      if (fsdpRoot && !scenario.parallelism.wrapEmbeddings)
        out.push({ code: 'fsdp-wrap-embeddings', params: NONE });
      if (!sharded) out.push({ code: 'shard-weights', params: NONE });
      else if (scenario.offload.params === 'none') out.push({ code: 'param-offload', params: NONE });
      break;
    case 'optimizer': {
      // The foreach step temporary is in the peak: torch's fused kernel removes it for free.
      const tempBytes = result.breakdown.optimizerTempBytes;
      if (fusesInTorch(scenario.optimizer) && !scenario.fusedOptimizer && tempBytes > 0)
        out.push({ code: 'fused-optimizer', params: { tempBytes } });
      if (!scenario.optimizer.includes('8bit')) out.push({ code: '8-bit-optimizer', params: NONE });
      if (full) out.push({ code: 'lora-adapter-states', params: NONE });
      if (!sharded) out.push({ code: 'shard-optimizer', params: NONE });
      if (scenario.offload.optimizer === 'none') out.push({ code: 'optimizer-offload', params: NONE });
      break;
    }
    case 'gradients':
      // Offered under FULL_SHARD only, though SHARD_GRAD_OP accumulates inside no_sync() as well.
      if (fsdpRoot && scenario.gradAccumSteps > 1 && !scenario.parallelism.syncEachMicroBatch)
        out.push({ code: 'fsdp-sync-each-micro-batch', params: { gradAccumSteps: scenario.gradAccumSteps } });
      if (fsdpRoot && !scenario.parallelism.wrapEmbeddings && full)
        out.push({ code: 'fsdp-wrap-embeddings', params: NONE });
      if (scenario.precision.endsWith('-mixed')) out.push({ code: '16-bit-gradients', params: NONE });
      if (full) out.push({ code: 'lora-gradients', params: NONE });
      if (!sharded) out.push({ code: 'shard-gradients', params: NONE });
      break;
    case 'runtime':
      if (!scenario.expandableSegments) out.push({ code: 'expandable-segments', params: NONE });
      break;
  }
  return out;
}

/** The two largest parts worth attacking, with remedies; runtime comes last since little of it can be cut. */
export function attackFirst(result: Estimate, scenario: Scenario, count = 2): Attack[] {
  const total = result.peak.deviceBytes;
  const parts = (Object.keys(result.components) as Part[])
    .map((part) => ({ part, bytes: result.components[part] }))
    .sort((a, b) => (a.part === 'runtime' ? 1 : 0) - (b.part === 'runtime' ? 1 : 0) || b.bytes - a.bytes);
  return parts
    .map((p) => ({
      ...p,
      share: total > 0 ? p.bytes / total : 0,
      remedies: remediesFor(p.part, scenario, result),
    }))
    .filter((p) => p.remedies.length > 0 && p.bytes > 0)
    .slice(0, count);
}
