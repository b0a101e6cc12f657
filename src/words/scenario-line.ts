/**
 * A scenario in one line, for headers, tables and reports, in English or Chinese:
 * "qlora r16 (q_proj,v_proj) nf4 · bf16-true · adamw · b2×2048 · ckpt full · sdpa · standard loss · 1 GPU".
 * Values (methods, precisions, optimizers, module names) stay as the scenario spells them.
 */
import type { Scenario } from '../core/scenario.js';
import { formatElements } from '../core/units.js';
import type { Lang } from './lang.js';

/** The words around the values, per language. */
interface LineWords {
  readonly freeze: (layers: number | undefined) => string;
  readonly torchao: string;
  readonly headToo: string;
  readonly quantizedFrom: (from: string) => string;
  readonly inputsKept: (kept: 'step' | 'next-forward') => string;
  readonly modelDtypeAdapters: string;
  readonly list: (items: readonly string[]) => string;
  readonly wrapped: string;
  readonly syncEach: string;
  readonly bucket: (size: string) => string;
  readonly overlap: string;
  readonly oneGpu: string;
  readonly gpus: (strategy: string, gpus: number) => string;
  readonly optimizer: (optimizer: string, fused: boolean, inBackward: boolean) => string;
  readonly accum: (steps: number) => string;
  readonly noCkpt: string;
  readonly ckpt: (kind: string) => string;
  readonly loss: (loss: string) => string;
  readonly compiled: string;
  readonly offload: (parts: readonly string[]) => string;
  readonly expandable: string;
}

const WORDS: Readonly<Record<Lang, LineWords>> = {
  en: {
    freeze: (n) => `freeze (top ${n} layers trained)`,
    torchao: 'torchao',
    headToo: 'head too',
    quantizedFrom: (from) => `from ${from}`,
    inputsKept: (kept) => `inputs kept ${kept === 'step' ? 'for the step' : 'to the next forward'}`,
    modelDtypeAdapters: '; model-dtype adapters',
    list: (items) => ` (${items.join(', ')})`,
    wrapped: 'embeddings wrapped',
    syncEach: 'sync each micro-batch',
    bucket: (size) => `reduce bucket ${size}`,
    overlap: 'overlap comm',
    oneGpu: '1 GPU',
    gpus: (strategy, n) => `${strategy} × ${n} GPU${n > 1 ? 's' : ''}`,
    optimizer: (o, fused, inBackward) => `${fused ? 'fused ' : ''}${o}${inBackward ? ' in backward' : ''}`,
    accum: (n) => ` ×${n} accum`,
    noCkpt: 'no ckpt',
    ckpt: (kind) => `ckpt ${kind}`,
    loss: (loss) => `${loss} loss`,
    compiled: 'compiled',
    offload: (parts) => `offload ${parts.join(' ')}`,
    expandable: 'expandable segments',
  },
  zh: {
    freeze: (n) => `freeze（训练顶部 ${n} 层）`,
    torchao: 'torchao',
    headToo: '含输出头',
    quantizedFrom: (from) => `由 ${from} 量化`,
    inputsKept: (kept) => (kept === 'step' ? '输入保留到本步结束' : '输入保留到下一次前向'),
    modelDtypeAdapters: '；适配器使用模型的类型',
    list: (items) => `（${items.join('，')}）`,
    wrapped: '嵌入层单独包装',
    syncEach: '每个 micro-batch 同步',
    bucket: (size) => `归约桶 ${size}`,
    overlap: 'overlap comm',
    oneGpu: '1 块 GPU',
    gpus: (strategy, n) => `${strategy} × ${n} 块 GPU`,
    optimizer: (o, fused, inBackward) => `${fused ? '融合 ' : ''}${o}${inBackward ? '（反向中更新）' : ''}`,
    accum: (n) => ` ×${n} 累积`,
    noCkpt: '无检查点',
    ckpt: (kind) => `检查点 ${kind}`,
    loss: (loss) => `${loss} 损失`,
    compiled: '已编译',
    offload: (parts) => `卸载 ${parts.join(' ')}`,
    expandable: '可扩展段',
  },
};

/** "qlora r16 (q_proj,v_proj) nf4 · bf16-true · adamw · b2×2048 · ckpt full · sdpa · standard loss · 1 GPU" */
export function describeScenario(scenario: Scenario, modelId: string, lang: Lang = 'en'): string {
  const w = WORDS[lang];
  const method = (() => {
    if (scenario.method === 'freeze') return w.freeze(scenario.trainableLayers);
    if (!scenario.lora) return scenario.method;
    const targets = scenario.lora.targets === 'all-linear' ? 'all-linear' : scenario.lora.targets.join(',');
    const quantDetails = [
      scenario.quantizer === 'torchao' ? w.torchao : '',
      scenario.quantizeHead ? w.headToo : '',
      scenario.quantizedFrom ? w.quantizedFrom(scenario.quantizedFrom) : '',
      scenario.quantizedInputsKept && scenario.quantizedInputsKept !== 'none'
        ? w.inputsKept(scenario.quantizedInputsKept)
        : '',
    ].filter(Boolean);
    const quant =
      scenario.quantization === 'none'
        ? ''
        : ` ${scenario.quantization}${quantDetails.length > 0 ? w.list(quantDetails) : ''}`;
    const adapters = scenario.lora.adapterDtype === 'model' ? w.modelDtypeAdapters : '';
    return `${scenario.method} r${scenario.lora.rank} (${targets}${adapters})${quant}`;
  })();
  const par = scenario.parallelism;
  const strategyOptions = [
    par.wrapEmbeddings ? w.wrapped : '',
    par.syncEachMicroBatch ? w.syncEach : '',
    par.reduceBucketSize !== undefined
      ? w.bucket(par.reduceBucketSize === 'auto' ? 'auto' : formatElements(par.reduceBucketSize))
      : '',
    par.overlapComm ? w.overlap : '',
  ].filter(Boolean);
  const gpus =
    par.strategy === 'single'
      ? w.oneGpu
      : `${w.gpus(par.strategy, par.gpus)}${strategyOptions.length > 0 ? w.list(strategyOptions) : ''}`;
  const offload = [
    scenario.offload.optimizer !== 'none' ? `optimizer→${scenario.offload.optimizer}` : '',
    scenario.offload.params !== 'none' ? `params→${scenario.offload.params}` : '',
    scenario.offload.activations ? `activations→${scenario.offload.activations}` : '',
  ].filter(Boolean);
  return [
    modelId,
    method,
    scenario.precision,
    w.optimizer(scenario.optimizer, scenario.fusedOptimizer === true, scenario.optimizerInBackward === true),
    `b${scenario.microBatchSize}×${scenario.seqLen}${scenario.gradAccumSteps > 1 ? w.accum(scenario.gradAccumSteps) : ''}`,
    scenario.gradientCheckpointing === 'none' ? w.noCkpt : w.ckpt(scenario.gradientCheckpointing),
    scenario.attention,
    w.loss(scenario.loss),
    ...(scenario.torchCompile ? [w.compiled] : []),
    gpus,
    ...(offload.length > 0 ? [w.offload(offload)] : []),
    ...(scenario.expandableSegments ? [w.expandable] : []),
  ].join(' · ');
}
