/**
 * The field table: one declaration per scenario field (docs/scenario.md is the contract). Each says
 * what the field holds and accepts, its default, the flags that set it, when it applies and what a
 * change of method, strategy or quantization drops, and how the web form shows it. Parsing, the CLI
 * flags and their help, "which flag set this" in errors, the drop rules, the form and the scenario URL
 * are derived from it; its words (labels, help lines, limits) are src/words/fields.ts, by path.
 *
 * Adding a field: declare it here (under its path, where help and the form should list it), give it
 * words in src/words/fields.ts, and add it to the `Scenario` interface (types.ts). TypeScript holds
 * the three to each other; fields.test.ts parses a scenario with every field set.
 */
import { GPUS_DATA } from '../catalog/gpus.data.js';
import {
  catalogId,
  choice,
  count,
  elementsOrAuto,
  flag,
  modelRef,
  moduleList,
  number,
  numberChoice,
  targets,
  versions,
} from './kinds.js';
import type { FieldDecl, FieldTable, GroupDecl, Rule } from './table.js';
import type { FieldPath, GroupKey, ScenarioView } from './types.js';
import {
  ACTIVATION_OFFLOADS,
  ADAPTER_DTYPES,
  ATTENTIONS,
  BITSANDBYTES_QUANTIZATIONS,
  CHECKPOINTING,
  DEEPSPEED_STRATEGIES,
  defaultPrecision,
  FRAMEWORKS,
  FSDP_DTYPES,
  FSDP_STRATEGIES,
  FSDP_VERSIONS,
  fusesInTorch,
  KBIT_UPCASTS,
  LOAD_DTYPES,
  LOSSES,
  METHODS,
  type Method,
  MODEL_CODES,
  OFFLOADS,
  OPTIMIZERS,
  PADDINGS,
  PARAM_SHARDED_STRATEGIES,
  PRECISIONS,
  QUANTIZATIONS,
  QUANTIZED_FROM,
  QUANTIZED_INPUTS_KEPT,
  QUANTIZERS,
  type Quantization,
  SHARDED_STRATEGIES,
  STRATEGIES,
  torchaoQuantizes,
  usesBitsandbytes,
  VERSION_KEYS,
} from './values.js';

type V = ScenarioView;
type Decl = FieldDecl<V>;

const strategyOf = (v: V): string => String(v['parallelism.strategy']);
const loraMethod = (v: V): boolean => v.method === 'lora' || v.method === 'qlora';

/** The fields that mean something only with a bitsandbytes base (not torchao's, not GPTQ). */
function bitsandbytesBase(reason: 'bnb-head' | 'bnb-from' | 'bnb-inputs'): Rule<V> {
  return {
    reason,
    kind: 'applies',
    ok: (v) =>
      usesBitsandbytes({
        quantization: String(v.quantization),
        ...(v.quantizer === 'torchao' ? { quantizer: 'torchao' } : {}),
      }),
    params: (v) => ({ quantization: String(v.quantization), quantizer: String(v.quantizer ?? '') }),
  };
}

const onlyFsdp = (reason: 'sync-needs-fsdp' | 'wrap-needs-fsdp' | 'needs-fsdp'): Rule<V> => ({
  reason,
  kind: 'applies',
  ok: (v) => FSDP_STRATEGIES.has(strategyOf(v)),
  params: (v) => ({ strategy: strategyOf(v) }),
});

const onlyZero: Rule<V> = {
  reason: 'needs-zero',
  kind: 'applies',
  ok: (v) => DEEPSPEED_STRATEGIES.has(strategyOf(v)),
  params: (v) => ({ strategy: strategyOf(v) }),
};

/** A field that is there only when true (docs/scenario.md: "present only when true"). */
const onlyTrue = { off: false, keep: (value: unknown) => value === true } as const;

/**
 * The largest value each count takes, without knowing the model. Past these a figure describes no
 * training run, only a slip of the keyboard (1e12 for 1e4), and its estimate would mean nothing.
 * Limits that depend on the model (a rank above its hidden size) are checked where the model is
 * known: scenario-limits.ts. The words (unit, why) are src/words/fields.ts's.
 */
export const LIMITS = {
  /** 10 × 2^20: Llama 4 Scout's 10M-token context (Meta, "The Llama 4 herd", 2025-04-05) is the longest of any released model. */
  seqLen: 10_485_760,
  /** 2^16 sequences per GPU: far past the per-GPU batches fine-tuning recipes use (tens to a few thousand short ones). */
  microBatchSize: 65_536,
  /** 2^16 micro-batches per optimizer step: far past any recipe's accumulation. */
  gradAccumSteps: 65_536,
  /** The largest training clusters hold about 100,000 GPUs (xAI Colossus, 2024: 100k H100). */
  'parallelism.gpus': 100_000,
  /** 2^16: above every model's hidden size (the widest in the catalog, Llama-3.1-405B, is 16,384), where a rank adds nothing. */
  'lora.rank': 65_536,
  /** Decoder blocks: the deepest models have a few hundred at most (Llama-3.1-405B: 126). */
  trainableLayers: 1024,
  /** As microBatchSize: an evaluation batch per GPU. */
  'evaluation.microBatchSize': 65_536,
  /** 2^16 evaluation batches per GPU: 2^16 × 8 sequences is far past any evaluation set. */
  'evaluation.batches': 65_536,
  /** As seqLen: the longest context of any released model. */
  'evaluation.generateTokens': 10_485_760,
  /** As microBatchSize. */
  'evaluation.generateBatch': 65_536,
  /** A checkpointing period past the deepest model's layer count checkpoints no layer at all. */
  checkpointEvery: 1024,
} as const;

export const SCENARIO_GROUPS = {
  lora: {
    optional: true,
    unknown: 'unknown-lora-field',
    rules: [
      {
        reason: 'only-lora-method',
        kind: 'applies',
        ok: loraMethod,
        params: (v) => ({ method: String(v.method) }),
      },
    ],
  },
  parallelism: { unknown: 'unknown-sub-field' },
  offload: { unknown: 'unknown-sub-field' },
  // The run evaluates when the group says at what batch: a framework profile fills in its default
  // (the Hugging Face Trainer's per_device_eval_batch_size, 8) for a scenario that gives `evaluation: {}`.
  evaluation: {
    optional: true,
    unknown: 'unknown-sub-field',
    rules: [
      {
        reason: 'eval-needs-batch',
        kind: 'applies',
        ok: (v) => v['evaluation.microBatchSize'] !== undefined,
        params: () => ({}),
      },
    ],
  },
} as const satisfies { readonly [G in GroupKey]: GroupDecl<V> };

export const SCENARIO_FIELDS = {
  model: {
    kind: modelRef(),
    required: true,
    flags: [{ name: 'model', metavar: 'ID', positional: 'MODEL' }],
    form: { key: 'model', control: 'model', testId: 'model-search', initial: 'llama-3.1-8b' },
  },
  method: {
    kind: choice(METHODS, { 'peft-other': 'not-modelled' }),
    default: 'full',
    flags: [{ name: 'method', metavar: 'M' }],
    form: { key: 'method', control: 'select', testId: 'method', initial: 'lora' },
  },
  'lora.rank': {
    kind: count(LIMITS['lora.rank']),
    default: 16,
    flags: [{ name: 'lora-rank', metavar: 'N', example: '16' }],
    form: { key: 'loraRank', control: 'number', testId: 'lora-rank' },
  },
  'lora.alpha': {
    kind: number((n) => n > 0, 'not-positive'),
    flags: [{ name: 'lora-alpha', metavar: 'N', example: '32' }],
  },
  'lora.dropout': {
    kind: number((n) => n >= 0 && n < 1, 'not-fraction'),
    default: 0,
    flags: [{ name: 'lora-dropout', metavar: 'P', example: '0.05' }],
  },
  'lora.targets': {
    kind: targets(),
    default: ['q_proj', 'v_proj'],
    flags: [{ name: 'lora-targets', metavar: 'LIST', example: 'q_proj,v_proj' }],
    form: { key: 'loraTargets', control: 'text', testId: 'lora-targets' },
  },
  'lora.adapterDtype': {
    kind: choice(ADAPTER_DTYPES),
    keep: (value) => value === 'model',
    flags: [{ name: 'lora-adapter-dtype', metavar: 'D' }],
    form: { key: 'loraAdapterDtype', control: 'select', testId: 'lora-adapter-dtype', initial: 'fp32' },
  },
  'lora.modulesToSave': {
    kind: moduleList(),
    default: [],
    flags: [{ name: 'modules-to-save', metavar: 'LIST', example: 'embed_tokens,lm_head' }],
  },
  trainableLayers: {
    kind: count(LIMITS.trainableLayers),
    default: 2,
    rules: [
      {
        reason: 'only-freeze-method',
        kind: 'applies',
        ok: (v) => v.method === 'freeze',
        params: (v) => ({ method: String(v.method) }),
      },
    ],
    flags: [{ name: 'trainable-layers', metavar: 'N', example: '2' }],
  },
  quantization: {
    kind: choice(QUANTIZATIONS),
    default: 'none',
    off: 'none',
    rules: [
      {
        reason: 'qlora-needs-quantization',
        kind: 'conflict',
        values: ['none'],
        ok: (v) => v.method !== 'qlora',
        params: (v) => ({ quantization: String(v.quantization) }),
      },
      {
        reason: 'trains-base',
        kind: 'applies',
        values: QUANTIZATIONS.filter((q) => q !== 'none'),
        ok: loraMethod,
        params: (v) => ({ method: String(v.method), quantization: String(v.quantization) }),
      },
    ],
    flags: [{ name: 'quantization', metavar: 'Q' }],
    form: { key: 'quantization', control: 'select', testId: 'quantization', fallback: 'nf4' },
  },
  quantizer: {
    kind: choice(QUANTIZERS),
    keep: (value) => value === 'torchao',
    rules: [
      {
        reason: 'torchao-needs-nf4',
        kind: 'applies',
        values: ['torchao'],
        ok: (v) => torchaoQuantizes(String(v.quantization)),
        params: (v) => ({ quantization: String(v.quantization) }),
      },
      {
        reason: 'bitsandbytes-quantizations',
        kind: 'applies',
        values: ['bitsandbytes'],
        ok: (v) => BITSANDBYTES_QUANTIZATIONS.has(v.quantization as Quantization),
        params: (v) => ({ quantization: String(v.quantization) }),
      },
    ],
    flags: [{ name: 'quantizer', metavar: 'L' }],
    form: { key: 'quantizer', control: 'select', testId: 'quantizer', initial: 'bitsandbytes' },
  },
  quantizeHead: {
    kind: flag(),
    ...onlyTrue,
    rules: [bitsandbytesBase('bnb-head')],
    flags: [{ name: 'quantize-head' }],
  },
  quantizedFrom: {
    kind: choice(QUANTIZED_FROM),
    rules: [bitsandbytesBase('bnb-from')],
    flags: [{ name: 'quantized-from', metavar: 'D' }],
  },
  quantizedInputsKept: {
    kind: choice(QUANTIZED_INPUTS_KEPT),
    rules: [bitsandbytesBase('bnb-inputs')],
    flags: [{ name: 'quantized-inputs-kept', metavar: 'K' }],
    form: {
      key: 'quantizedInputsKept',
      control: 'select',
      testId: 'quantized-inputs-kept',
      defaultOption: true,
    },
  },
  precision: {
    kind: choice(PRECISIONS),
    // A base loaded in fp32 (from_pretrained without torch_dtype before transformers 5) trains under
    // autocast unless the run casts it: the Hugging Face Trainer's bf16=True keeps the model as loaded.
    defaultOf: (v) =>
      v.loadDtype === 'fp32' && v.quantization === 'none'
        ? 'bf16-mixed'
        : defaultPrecision(v.method as Method),
    flags: [{ name: 'precision', metavar: 'P' }],
    form: { key: 'precision', control: 'select', testId: 'precision', defaultOption: true },
  },
  loadDtype: {
    kind: choice(LOAD_DTYPES),
    flags: [{ name: 'load-dtype', metavar: 'D' }],
  },
  prepareKbitUpcast: {
    kind: choice(KBIT_UPCASTS),
    flags: [{ name: 'prepare-kbit-upcast', metavar: 'K' }],
  },
  modelCode: {
    kind: choice(MODEL_CODES),
    keep: (value) => value === 'litgpt',
    flags: [{ name: 'model-code', metavar: 'C' }],
  },
  cachingAllocatorWarmup: {
    kind: flag(),
    ...onlyTrue,
    flags: [{ name: 'caching-allocator-warmup' }, { name: 'no-caching-allocator-warmup', sets: false }],
  },
  optimizer: {
    kind: choice(OPTIMIZERS),
    default: 'adamw',
    flags: [{ name: 'optimizer', metavar: 'O' }],
    form: { key: 'optimizer', control: 'select', testId: 'optimizer' },
  },
  microBatchSize: {
    kind: count(LIMITS.microBatchSize),
    default: 1,
    flags: [{ name: 'micro-batch', metavar: 'N', example: '4' }],
    form: { key: 'microBatchSize', control: 'number', testId: 'micro-batch' },
  },
  seqLen: {
    kind: count(LIMITS.seqLen),
    default: 2048,
    flags: [{ name: 'seq-len', metavar: 'N', k: true, example: '4096 (or 4k)' }],
    form: { key: 'seqLen', control: 'number', testId: 'seq-len' },
  },
  gradAccumSteps: {
    kind: count(LIMITS.gradAccumSteps),
    default: 1,
    flags: [{ name: 'grad-accum', metavar: 'N', example: '8' }],
    form: { key: 'gradAccumSteps', control: 'number', testId: 'grad-accum' },
  },
  optimizerInBackward: {
    kind: flag(),
    ...onlyTrue,
    rules: [
      {
        reason: 'in-backward-accumulates',
        kind: 'conflict',
        ok: (v) => v.gradAccumSteps === 1,
        params: (v) => ({ gradAccumSteps: Number(v.gradAccumSteps) }),
      },
      {
        reason: 'in-backward-deepspeed',
        kind: 'conflict',
        ok: (v) => !DEEPSPEED_STRATEGIES.has(strategyOf(v)),
        params: (v) => ({ strategy: strategyOf(v) }),
      },
    ],
    flags: [{ name: 'optimizer-in-backward' }],
    form: { key: 'optimizerInBackward', control: 'checkbox', testId: 'optimizer-in-backward' },
  },
  fusedOptimizer: {
    kind: flag(),
    ...onlyTrue,
    rules: [
      {
        reason: 'fused-torch-only',
        kind: 'applies',
        ok: (v) => fusesInTorch(String(v.optimizer)),
        params: (v) => ({ optimizer: String(v.optimizer) }),
      },
    ],
    flags: [{ name: 'fused-optimizer' }, { name: 'no-fused-optimizer', sets: false }],
    form: { key: 'fusedOptimizer', control: 'checkbox', testId: 'fused-optimizer' },
  },
  gradientCheckpointing: {
    kind: choice(CHECKPOINTING),
    default: 'none',
    flags: [{ name: 'gradient-checkpointing', metavar: 'C' }],
    form: { key: 'gradientCheckpointing', control: 'select', testId: 'checkpointing' },
  },
  checkpointEvery: {
    kind: count(LIMITS.checkpointEvery),
    rules: [
      {
        reason: 'needs-every-nth',
        kind: 'applies',
        ok: (v) => v.gradientCheckpointing === 'every-nth',
        params: (v) => ({ checkpointing: String(v.gradientCheckpointing) }),
      },
    ],
    flags: [{ name: 'checkpoint-every', metavar: 'N', example: '2' }],
    form: { key: 'checkpointEvery', control: 'number', testId: 'checkpoint-every' },
  },
  attention: {
    kind: choice(ATTENTIONS),
    default: 'sdpa',
    flags: [{ name: 'attention', metavar: 'A' }],
    form: { key: 'attention', control: 'select', testId: 'attention' },
  },
  loss: {
    kind: choice(LOSSES),
    default: 'standard',
    flags: [{ name: 'loss', metavar: 'L' }],
    form: { key: 'loss', control: 'select', testId: 'loss' },
  },
  torchCompile: {
    kind: flag(),
    ...onlyTrue,
    flags: [{ name: 'torch-compile' }, { name: 'no-torch-compile', sets: false }],
    form: { key: 'torchCompile', control: 'checkbox', testId: 'torch-compile' },
  },
  'parallelism.strategy': {
    kind: choice(STRATEGIES),
    default: 'single',
    // --gpus 4 alone means data parallel: a single strategy with more GPUs would be a contradiction.
    implied: {
      by: 'parallelism.gpus',
      value: (v) => (Number(v['parallelism.gpus']) > 1 ? 'ddp' : undefined),
    },
    flags: [{ name: 'strategy', metavar: 'S' }],
    form: { key: 'strategy', control: 'select', testId: 'strategy' },
  },
  'parallelism.gpus': {
    kind: count(LIMITS['parallelism.gpus']),
    default: 1,
    rules: [
      {
        reason: 'single-one-gpu',
        kind: 'conflict',
        ok: (v) => strategyOf(v) !== 'single' || v['parallelism.gpus'] === 1,
        params: (v) => ({ gpus: Number(v['parallelism.gpus']) }),
      },
    ],
    flags: [{ name: 'gpus', metavar: 'N', example: '8' }],
    form: { key: 'gpus', control: 'number', testId: 'gpus' },
  },
  'parallelism.wrapEmbeddings': {
    kind: flag(),
    ...onlyTrue,
    rules: [onlyFsdp('wrap-needs-fsdp')],
    flags: [{ name: 'wrap-embeddings' }],
    form: { key: 'wrapEmbeddings', control: 'checkbox', testId: 'wrap-embeddings' },
  },
  'parallelism.syncEachMicroBatch': {
    kind: flag(),
    ...onlyTrue,
    rules: [onlyFsdp('sync-needs-fsdp')],
    flags: [{ name: 'sync-each-micro-batch' }],
    form: { key: 'syncEachMicroBatch', control: 'checkbox', testId: 'sync-each-micro-batch' },
  },
  'parallelism.fsdpVersion': {
    kind: numberChoice(FSDP_VERSIONS),
    rules: [onlyFsdp('needs-fsdp')],
    flags: [{ name: 'fsdp-version', metavar: 'N' }],
    form: { key: 'fsdpVersion', control: 'select', testId: 'fsdp-version', defaultOption: true },
  },
  'parallelism.frozenParamGrads': {
    kind: flag(),
    ...onlyTrue,
    rules: [onlyFsdp('needs-fsdp')],
    flags: [{ name: 'frozen-param-grads' }],
    form: { key: 'frozenParamGrads', control: 'checkbox', testId: 'frozen-param-grads' },
  },
  'parallelism.gatherDtype': {
    kind: choice(FSDP_DTYPES),
    keep: (value) => value === 'fp32',
    rules: [onlyFsdp('needs-fsdp')],
    flags: [{ name: 'fsdp-gather-dtype', metavar: 'D' }],
  },
  'parallelism.reduceDtype': {
    kind: choice(FSDP_DTYPES),
    keep: (value) => value === 'fp32',
    rules: [onlyFsdp('needs-fsdp')],
    flags: [{ name: 'fsdp-reduce-dtype', metavar: 'D' }],
  },
  'parallelism.reduceBucketSize': {
    kind: elementsOrAuto(),
    rules: [onlyZero],
    flags: [{ name: 'reduce-bucket-size', metavar: 'N', example: '200000000 (or auto)' }],
    form: { key: 'reduceBucketSize', control: 'text', testId: 'reduce-bucket-size', placeholder: '5e8' },
  },
  'parallelism.overlapComm': {
    kind: flag(),
    ...onlyTrue,
    rules: [onlyZero],
    flags: [{ name: 'overlap-comm' }],
    // Under ZeRO-3 overlap_comm keeps no second reduce bucket: the form offers it where it changes memory.
    form: {
      key: 'overlapComm',
      control: 'checkbox',
      testId: 'overlap-comm',
      shownWhen: (v) => strategyOf(v) !== 'zero3',
    },
  },
  'offload.optimizer': {
    kind: choice(OFFLOADS),
    default: 'none',
    off: 'none',
    rules: [
      {
        reason: 'offload-needs-sharding',
        kind: 'applies',
        values: ['cpu', 'nvme'],
        ok: (v) => SHARDED_STRATEGIES.has(strategyOf(v)),
        params: (v) => ({ strategy: strategyOf(v) }),
      },
    ],
    flags: [{ name: 'offload-optimizer', metavar: 'T' }],
    form: { key: 'offloadOptimizer', control: 'select', testId: 'offload-optimizer' },
  },
  'offload.params': {
    kind: choice(OFFLOADS),
    default: 'none',
    off: 'none',
    rules: [
      {
        reason: 'param-offload-needs-full-shard',
        kind: 'applies',
        values: ['cpu', 'nvme'],
        ok: (v) => PARAM_SHARDED_STRATEGIES.has(strategyOf(v)),
        params: (v) => ({ strategy: strategyOf(v) }),
      },
    ],
    flags: [{ name: 'offload-params', metavar: 'T' }],
    form: { key: 'offloadParams', control: 'select', testId: 'offload-params' },
  },
  'offload.activations': {
    kind: choice(ACTIVATION_OFFLOADS),
    keep: (value) => value === 'cpu',
    flags: [{ name: 'offload-activations', metavar: 'T' }],
    form: { key: 'offloadActivations', control: 'checkbox', testId: 'offload-activations', checked: 'cpu' },
  },
  expandableSegments: {
    kind: flag(),
    ...onlyTrue,
    flags: [{ name: 'expandable-segments' }, { name: 'no-expandable-segments', sets: false }],
    form: { key: 'expandableSegments', control: 'checkbox', testId: 'expandable-segments' },
  },
  gpu: {
    kind: catalogId(),
    flags: [{ name: 'gpu', metavar: 'ID' }],
    form: {
      key: 'gpu',
      control: 'select',
      testId: 'gpu',
      initial: 'rtx-4090',
      options: () => GPUS_DATA.map((g) => g.id),
    },
  },
  framework: {
    kind: choice(FRAMEWORKS),
    flags: [{ name: 'framework', metavar: 'F' }],
    form: { key: 'framework', control: 'select', testId: 'framework', defaultOption: true },
  },
  versions: {
    kind: versions(VERSION_KEYS),
    keep: (value) => value !== null && typeof value === 'object' && Object.keys(value).length > 0,
    flags: [{ name: 'versions', metavar: 'LIST', merge: true, example: 'torch=2.5.1,transformers=4.46.0' }],
  },
  padding: {
    kind: choice(PADDINGS),
    default: 'max-length',
    flags: [{ name: 'padding', metavar: 'P' }],
    form: { key: 'padding', control: 'select', testId: 'padding' },
  },
  'evaluation.microBatchSize': {
    kind: count(LIMITS['evaluation.microBatchSize']),
    flags: [{ name: 'eval-batch', metavar: 'N', example: '8' }],
  },
  'evaluation.batches': {
    kind: count(LIMITS['evaluation.batches']),
    default: 1,
    flags: [{ name: 'eval-batches', metavar: 'N', example: '16' }],
  },
  'evaluation.keepLogits': {
    kind: flag(),
    ...onlyTrue,
    flags: [{ name: 'eval-keep-logits' }],
  },
  'evaluation.generateTokens': {
    kind: count(LIMITS['evaluation.generateTokens']),
    flags: [{ name: 'eval-generate-tokens', metavar: 'N', k: true, example: '1024' }],
  },
  'evaluation.generateBatch': {
    kind: count(LIMITS['evaluation.generateBatch']),
    flags: [{ name: 'eval-generate-batch', metavar: 'N', example: '1' }],
  },
} as const satisfies { readonly [P in FieldPath]: Decl };

/** The table of the scenario's fields and groups: what every derivation takes by default. */
export const SCENARIO_TABLE: FieldTable<V> = { fields: SCENARIO_FIELDS, groups: SCENARIO_GROUPS };
