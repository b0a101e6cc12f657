/**
 * What a framework profile decided (a parsed scenario's `profile`, src/core/frameworks/decision.ts), in
 * words: one line for `estimate` and the dashboard ("litgpt profile: adapters in bf16, head untied, loss
 * chunked — 2 assumed for unknown versions (give --versions)"), and for --explain one line per fact
 * with its id (docs/frameworks.md lists the same ids).
 */
import type { BehaviourField, BehaviourValue } from '../core/frameworks/types.js';
import type { AssumptionReason, Precision, ScenarioProfile } from '../core/scenario.js';
import { defineDomain, say } from './catalog.js';
import type { Lang } from './lang.js';

/** One field the profile set, as the summary names it. */
export interface ProfileField {
  readonly field: BehaviourField;
  readonly value: BehaviourValue;
}

export interface FrameworkProfileParams {
  /** The line: the fields set, in the profile's order; the counts of assumptions and of mechanisms. */
  summary: {
    framework: string;
    fields: readonly ProfileField[];
    /** The scenario's precision: "model" adapters are in its 16-bit type. */
    precision: Precision;
    assumed: number;
    mechanisms: number;
  };
  'explain-heading': { framework: string };
  'explain-applied': { field: BehaviourField; value: BehaviourValue; factId: string };
  'explain-assumed': {
    target: string;
    value: string;
    package: string;
    why: AssumptionReason;
    factId: string;
  };
  'explain-mechanism': { code: string; factId: string };
}

/** The dtype "model" adapters take under a precision: its 16-bit type, fp32 under fp32. */
function modelDtype(precision: Precision): string {
  return precision.startsWith('bf16') ? 'bf16' : precision.startsWith('fp16') ? 'fp16' : 'fp32';
}

type Phrase = (value: BehaviourValue, precision: Precision) => string;

const PHRASES: Readonly<Record<Lang, Readonly<Record<BehaviourField, Phrase>>>> = {
  en: {
    quantizer: (v) => `base quantized by ${v}`,
    loadDtype: (v) => (v === 'fp32' ? 'base loaded in fp32' : 'base loaded in its checkpoint dtype'),
    'parallelism.fsdpVersion': (v) => (v === 2 ? 'FSDP2 (fully_shard)' : 'FSDP1 (flat parameters)'),
    'parallelism.frozenParamGrads': (v) =>
      v ? 'frozen weights get FSDP gradients' : 'no gradients for frozen weights',
    'parallelism.gatherDtype': (v) =>
      v === 'fp32' ? 'FSDP gathers in fp32' : 'FSDP gathers in the compute dtype',
    'parallelism.reduceDtype': (v) =>
      v === 'fp32' ? 'gradients reduced in fp32' : 'gradients reduced in the compute dtype',
    prepareKbitUpcast: (v) =>
      v === 'kept'
        ? 'norms, embeddings and head upcast to fp32 for the run'
        : 'norms, embeddings and head upcast to fp32 at load',
    cachingAllocatorWarmup: (v) =>
      v ? 'weights loaded into one reserved block' : 'no allocator warm-up at load',
    'evaluation.microBatchSize': (v) => `evaluates at batch ${v}`,
    'evaluation.generateTokens': (v) => `generates up to ${v} tokens`,
    'evaluation.generateBatch': (v) => `generation batch ${v}`,
    precision: (v) => `${v} precision`,
    'lora.adapterDtype': (v, p) => `adapters in ${v === 'model' ? modelDtype(p) : v}`,
    'lora.rank': (v) => `LoRA rank ${v}`,
    'lora.targets': (v) => (v === 'all-linear' ? 'LoRA on every linear layer' : `LoRA on ${v}`),
    'lora.dropout': (v) => `LoRA dropout ${v}`,
    modelCode: (v) => (v === 'litgpt' ? "litgpt's own model code (fused qkv)" : 'transformers model code'),
    quantizeHead: (v) => (v ? 'head quantized' : 'head kept in 16 bits'),
    quantizedFrom: (v) => `quantized from ${v}`,
    quantizedInputsKept: (v) =>
      v === 'none'
        ? 'quantized layers keep no input'
        : `quantized layers' inputs kept ${v === 'step' ? 'for the step' : 'to the next forward'}`,
    fusedOptimizer: (v) => (v ? 'fused optimizer' : 'unfused optimizer'),
    gradientCheckpointing: (v) => (v === 'none' ? 'no checkpointing' : `checkpointing ${v}`),
    'offload.activations': (v) => (v === 'cpu' ? 'activations offloaded to CPU' : 'activations on the GPU'),
    loss: (v) => `loss ${v}`,
    padding: (v) =>
      v === 'longest'
        ? 'batches padded to their longest'
        : v === 'packed'
          ? 'samples packed'
          : 'padded to seqLen',
    'parallelism.syncEachMicroBatch': (v) =>
      v ? 'gradients reduced every micro-batch' : 'gradients accumulated',
    'parallelism.reduceBucketSize': (v) => `reduce bucket ${v}`,
    expandableSegments: (v) => (v ? 'expandable segments' : 'default allocator'),
    'modelConfig.tie_word_embeddings': (v) => (v ? 'head tied' : 'head untied'),
  },
  zh: {
    quantizer: (v) => `基座由 ${v} 量化`,
    loadDtype: (v) => (v === 'fp32' ? '基座以 fp32 加载' : '基座以检查点的数据类型加载'),
    'parallelism.fsdpVersion': (v) => (v === 2 ? 'FSDP2（fully_shard）' : 'FSDP1（扁平参数）'),
    'parallelism.frozenParamGrads': (v) => (v ? '冻结权重也有 FSDP 梯度' : '冻结权重没有梯度'),
    'parallelism.gatherDtype': (v) => (v === 'fp32' ? 'FSDP 以 fp32 收集参数' : 'FSDP 以计算精度收集参数'),
    'parallelism.reduceDtype': (v) => (v === 'fp32' ? '梯度以 fp32 归约' : '梯度以计算精度归约'),
    prepareKbitUpcast: (v) =>
      v === 'kept' ? '归一化层、嵌入和输出头整个训练期间为 fp32' : '归一化层、嵌入和输出头在加载时升为 fp32',
    cachingAllocatorWarmup: (v) => (v ? '权重加载到一个预留块中' : '加载时不预热分配器'),
    'evaluation.microBatchSize': (v) => `评估批大小 ${v}`,
    'evaluation.generateTokens': (v) => `最多生成 ${v} 个 token`,
    'evaluation.generateBatch': (v) => `生成批大小 ${v}`,
    precision: (v) => `${v} 精度`,
    'lora.adapterDtype': (v, p) => `适配器为 ${v === 'model' ? modelDtype(p) : v}`,
    'lora.rank': (v) => `LoRA 秩 ${v}`,
    'lora.targets': (v) => (v === 'all-linear' ? 'LoRA 作用于所有线性层' : `LoRA 作用于 ${v}`),
    'lora.dropout': (v) => `LoRA dropout 为 ${v}`,
    modelCode: (v) => (v === 'litgpt' ? 'litgpt 自己的模型代码（融合 qkv）' : 'transformers 模型代码'),
    quantizeHead: (v) => (v ? '输出头也量化' : '输出头保持 16 位'),
    quantizedFrom: (v) => `由 ${v} 量化`,
    quantizedInputsKept: (v) =>
      v === 'none' ? '量化层不保留输入' : `量化层输入保留${v === 'step' ? '到本步结束' : '到下一次前向'}`,
    fusedOptimizer: (v) => (v ? '融合优化器' : '非融合优化器'),
    gradientCheckpointing: (v) => (v === 'none' ? '无检查点' : `检查点 ${v}`),
    'offload.activations': (v) => (v === 'cpu' ? '激活卸载到 CPU' : '激活留在 GPU'),
    loss: (v) => `损失 ${v}`,
    padding: (v) => (v === 'longest' ? '批次填充到最长样本' : v === 'packed' ? '样本打包' : '填充到 seqLen'),
    'parallelism.syncEachMicroBatch': (v) => (v ? '每个 micro-batch 归约梯度' : '梯度累积后归约'),
    'parallelism.reduceBucketSize': (v) => `归约桶 ${v}`,
    expandableSegments: (v) => (v ? '可扩展段' : '默认分配器'),
    'modelConfig.tie_word_embeddings': (v) => (v ? '输出头与嵌入共享' : '输出头不与嵌入共享'),
  },
};

const WHY: Readonly<Record<Lang, Readonly<Record<AssumptionReason, string>>>> = {
  en: {
    'current-release': "today's release",
    'more-memory': 'the behaviour that needs more memory',
    'pinned-by-framework': 'the version the framework pins',
  },
  zh: {
    'current-release': '当前发行版的行为',
    'more-memory': '更耗显存的行为',
    'pinned-by-framework': '框架固定的版本',
  },
};

export const FRAMEWORK_PROFILE = defineDomain<FrameworkProfileParams>({
  name: 'framework-profile',
  words: {
    en: {
      summary: (p) => {
        const set =
          p.fields.length === 0
            ? 'nothing beyond the defaults'
            : p.fields.map((x) => PHRASES.en[x.field](x.value, p.precision)).join(', ');
        const assumed =
          p.assumed === 0 ? '' : ` — ${p.assumed} assumed for unknown versions (give --versions)`;
        const mechanisms =
          p.mechanisms === 0
            ? ''
            : `; ${p.mechanisms} behaviour${p.mechanisms === 1 ? '' : 's'} not modelled yet (--explain)`;
        return `${p.framework} profile: ${set}${assumed}${mechanisms}`;
      },
      'explain-heading': (p) => `What the ${p.framework} profile decided (docs/frameworks.md):`,
      'explain-applied': (p) => `${p.field} = ${String(p.value)}   (${p.factId})`,
      'explain-assumed': (p) =>
        `assumed ${p.target} = ${p.value}: ${p.package} version not given, so ${WHY.en[p.why]}   (${p.factId})`,
      'explain-mechanism': (p) => `not modelled yet: ${p.code}   (${p.factId})`,
    },
    zh: {
      summary: (p) => {
        const set =
          p.fields.length === 0
            ? '除默认值外未设置任何字段'
            : p.fields.map((x) => PHRASES.zh[x.field](x.value, p.precision)).join('，');
        const assumed = p.assumed === 0 ? '' : `——${p.assumed} 项因版本未知而假定（请给出 --versions）`;
        const mechanisms = p.mechanisms === 0 ? '' : `；${p.mechanisms} 项行为尚未建模（--explain）`;
        return `${p.framework} 配置：${set}${assumed}${mechanisms}`;
      },
      'explain-heading': (p) => `${p.framework} 配置的决定（docs/frameworks.md）：`,
      'explain-applied': (p) => `${p.field} = ${String(p.value)}（${p.factId}）`,
      'explain-assumed': (p) =>
        `假定 ${p.target} = ${p.value}：未给出 ${p.package} 版本，因此采用${WHY.zh[p.why]}（${p.factId}）`,
      'explain-mechanism': (p) => `尚未建模：${p.code}（${p.factId}）`,
    },
  },
  examples: {
    summary: {
      framework: 'litgpt',
      fields: [
        { field: 'lora.adapterDtype', value: 'model' },
        { field: 'modelConfig.tie_word_embeddings', value: false },
        { field: 'loss', value: 'chunked' },
      ],
      precision: 'bf16-true',
      assumed: 2,
      mechanisms: 1,
    },
    'explain-heading': { framework: 'litgpt' },
    'explain-applied': { field: 'quantizeHead', value: true, factId: 'litgpt.quantize-head' },
    'explain-assumed': {
      target: 'quantizedInputsKept',
      value: 'none',
      package: 'bitsandbytes',
      why: 'current-release',
      factId: 'bnb.inputs-kept-none',
    },
    'explain-mechanism': { code: 'eval-forward', factId: 'litgpt.eval-forward' },
  },
});

/** A parameter value as the explain lines show it: a word, a number, or key=value pairs. */
function shownValue(value: unknown): string {
  if (value !== null && typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', ');
  }
  return String(value);
}

/**
 * The one line of what the profile decided: assumptions counted once per field or mechanism.
 * @example profileLine(parseScenario({ model: 'llama-2-7b', method: 'lora', framework: 'litgpt' }).profile!, 'bf16-true', 'en')
 */
export function profileLine(profile: ScenarioProfile, precision: Precision, lang: Lang): string {
  return say(FRAMEWORK_PROFILE, lang, {
    code: 'summary',
    params: {
      framework: profile.framework,
      fields: profile.applied.map(({ field, value }) => ({ field, value })),
      precision,
      assumed: new Set(profile.assumed.map((a) => a.target)).size,
      mechanisms: profile.mechanisms.length,
    },
  });
}

/** Every fact the profile applied, assumed or implies, one line each with its id (--explain). */
export function profileExplain(profile: ScenarioProfile, lang: Lang): string[] {
  const line = (message: Parameters<typeof say<FrameworkProfileParams>>[2]) =>
    say(FRAMEWORK_PROFILE, lang, message);
  return [
    line({ code: 'explain-heading', params: { framework: profile.framework } }),
    ...profile.applied.map((a) => `  ${line({ code: 'explain-applied', params: a })}`),
    ...profile.assumed.map(
      (a) =>
        `  ${line({ code: 'explain-assumed', params: { target: a.target, value: shownValue(a.value), package: a.package, why: a.why, factId: a.factId } })}`,
    ),
    ...profile.mechanisms.map(
      (m) => `  ${line({ code: 'explain-mechanism', params: { code: m.code, factId: m.factId } })}`,
    ),
  ];
}
