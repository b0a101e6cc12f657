/**
 * Which parts of an estimate to attack first, and with what. Advice is data (part, share, remedies);
 * the terminal, JSON and the dashboard render the same objects.
 */
import { upgradeFreesInputs } from './bitsandbytes.js';
import type { Components, Estimate } from './estimate.js';
import { fusesInTorch, type Scenario } from './scenario.js';

export type Part = keyof Components;

export interface Attack {
  readonly part: Part;
  readonly bytes: number;
  /** Share of the device-level peak. */
  readonly share: number;
  /** Changes that shrink this part, cheapest first, that the scenario does not already use. */
  readonly remedies: readonly string[];
}

function remediesFor(part: Part, scenario: Scenario, result: Estimate): string[] {
  const out: string[] = [];
  const full = scenario.method === 'full' || scenario.method === 'freeze';
  const sharded = scenario.parallelism.strategy !== 'single' && scenario.parallelism.strategy !== 'ddp';
  const fsdp = scenario.parallelism.strategy === 'fsdp' && scenario.parallelism.gpus > 1;
  switch (part) {
    case 'activations':
      // The same training for a pip upgrade: bitsandbytes 0.43.2 stopped keeping 4-bit inputs.
      if (upgradeFreesInputs(scenario))
        out.push('bitsandbytes 0.43.2 or later (4-bit layers stop keeping their inputs)');
      if (scenario.microBatchSize > 1) out.push('smaller micro-batch with more gradient accumulation');
      if (scenario.gradientCheckpointing !== 'full') out.push('gradient checkpointing');
      if (scenario.loss === 'standard') out.push('chunked or fused cross-entropy');
      if (scenario.attention === 'eager') out.push('sdpa or flash attention');
      if (scenario.offload.activations !== 'cpu') out.push('activation offload to CPU');
      out.push('shorter sequences');
      break;
    case 'weights':
      if (scenario.precision.endsWith('-mixed') || scenario.precision === 'fp32')
        out.push('16-bit weights (bf16-true)');
      if (full) out.push('LoRA on a frozen base');
      if (scenario.quantization === 'none') out.push('4-bit base (QLoRA)');
      if (fsdp && !scenario.parallelism.wrapEmbeddings)
        out.push('embeddings and head as FSDP units of their own');
      if (!sharded) out.push('ZeRO-3 / FSDP across GPUs');
      else if (scenario.offload.params === 'none') out.push('parameter offload to CPU');
      break;
    case 'optimizer': {
      // The foreach step temporary is in the peak: torch's fused kernel removes it for free.
      if (
        fusesInTorch(scenario.optimizer) &&
        !scenario.fusedOptimizer &&
        (result.breakdown.optimizerTempBytes ?? 0) > 0
      )
        out.push('fused optimizer kernel (no state-sized step temporary)');
      if (!scenario.optimizer.includes('8bit')) out.push('8-bit optimizer');
      if (full) out.push('LoRA (optimizer states only for adapters)');
      if (!sharded) out.push('ZeRO-1/2 across GPUs');
      if (scenario.offload.optimizer === 'none') out.push('optimizer offload to CPU');
      break;
    }
    case 'gradients':
      if (fsdp && scenario.gradAccumSteps > 1 && !scenario.parallelism.syncEachMicroBatch)
        out.push('reduce-scatter every micro-batch instead of no_sync() (Accelerate sync_each_batch)');
      if (fsdp && !scenario.parallelism.wrapEmbeddings && full)
        out.push('embeddings and head as FSDP units of their own');
      if (scenario.precision.endsWith('-mixed')) out.push('16-bit gradients (bf16-true)');
      if (full) out.push('LoRA');
      if (!sharded) out.push('ZeRO-2 / FSDP across GPUs');
      break;
    case 'runtime':
      if (!scenario.expandableSegments)
        out.push('PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation');
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
