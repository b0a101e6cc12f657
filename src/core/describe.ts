/** One-line descriptions of a scenario, for headers, tables and reports. */
import type { Scenario } from './scenario.js';
import { formatElements } from './units.js';

/** "qlora r16 (q_proj,v_proj) nf4 · bf16-true · adamw · b2×2048 · ckpt full · sdpa · standard loss · 1 GPU" */
export function describeScenario(scenario: Scenario, modelId: string): string {
  const method = (() => {
    if (scenario.method === 'freeze') return `freeze (top ${scenario.trainableLayers} layers trained)`;
    if (!scenario.lora) return scenario.method;
    const targets = scenario.lora.targets === 'all-linear' ? 'all-linear' : scenario.lora.targets.join(',');
    const quantDetails = [
      scenario.quantizer === 'torchao' ? 'torchao' : '',
      scenario.quantizeHead ? 'head too' : '',
      scenario.quantizedFrom ? `from ${scenario.quantizedFrom}` : '',
      scenario.quantizedInputsKept && scenario.quantizedInputsKept !== 'none'
        ? `inputs kept ${scenario.quantizedInputsKept === 'step' ? 'for the step' : 'to the next forward'}`
        : '',
    ].filter(Boolean);
    const quant =
      scenario.quantization === 'none'
        ? ''
        : ` ${scenario.quantization}${quantDetails.length > 0 ? ` (${quantDetails.join(', ')})` : ''}`;
    const adapters = scenario.lora.adapterDtype === 'model' ? '; model-dtype adapters' : '';
    return `${scenario.method} r${scenario.lora.rank} (${targets}${adapters})${quant}`;
  })();
  const par = scenario.parallelism;
  const strategyOptions = [
    par.wrapEmbeddings ? 'embeddings wrapped' : '',
    par.syncEachMicroBatch ? 'sync each micro-batch' : '',
    par.reduceBucketSize !== undefined
      ? `reduce bucket ${par.reduceBucketSize === 'auto' ? 'auto' : formatElements(par.reduceBucketSize)}`
      : '',
    par.overlapComm ? 'overlap comm' : '',
  ].filter(Boolean);
  const gpus =
    par.strategy === 'single'
      ? '1 GPU'
      : `${par.strategy} × ${par.gpus} GPU${par.gpus > 1 ? 's' : ''}${strategyOptions.length > 0 ? ` (${strategyOptions.join(', ')})` : ''}`;
  const offload = [
    scenario.offload.optimizer !== 'none' ? `optimizer→${scenario.offload.optimizer}` : '',
    scenario.offload.params !== 'none' ? `params→${scenario.offload.params}` : '',
    scenario.offload.activations ? `activations→${scenario.offload.activations}` : '',
  ].filter(Boolean);
  return [
    modelId,
    method,
    scenario.precision,
    `${scenario.fusedOptimizer ? 'fused ' : ''}${scenario.optimizer}${scenario.optimizerInBackward ? ' in backward' : ''}`,
    `b${scenario.microBatchSize}×${scenario.seqLen}${scenario.gradAccumSteps > 1 ? ` ×${scenario.gradAccumSteps} accum` : ''}`,
    scenario.gradientCheckpointing === 'none' ? 'no ckpt' : `ckpt ${scenario.gradientCheckpointing}`,
    scenario.attention,
    `${scenario.loss} loss`,
    ...(scenario.torchCompile ? ['compiled'] : []),
    gpus,
    ...(offload.length > 0 ? [`offload ${offload.join(' ')}`] : []),
    ...(scenario.expandableSegments ? ['expandable segments'] : []),
  ].join(' · ');
}
