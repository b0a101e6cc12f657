/**
 * The words of the errors a scenario's fields raise (src/core/scenario/field-errors.ts), in English
 * and Chinese, and how an error names its field the way the user set it: a flag as typed
 * (`--micro-batch -2 must be …`), a scenario file (`run.json: microBatchSize: -2 must be …`), a key of
 * an imported config (`config.yaml (per_device_train_batch_size): -2 must be …`), else the field's path.
 * Each reason's words are what follows that subject; `FORMS` says whether the value is part of it.
 */

import {
  type FieldSource,
  HeadroomUserError,
  speakFieldErrorsWith,
  type UserErrorInit,
} from '../core/errors.js';
import { isFileReason } from '../core/file-errors.js';
import type { FieldErrorParams, FieldErrorReason } from '../core/scenario/field-errors.js';
import { defineDomain, say } from './catalog.js';
import { FIELD_WORDS } from './fields.js';
import { fileErrorWords } from './file-errors.js';
import { COLON, type Lang } from './lang.js';

/** What every reason's words may read beside its params: the field's path, and the model a limit is of. */
interface Said {
  readonly path: string;
  readonly model?: string;
}

export type ErrorWordsParams = { readonly [R in FieldErrorReason]: FieldErrorParams[R] & Said };

/**
 * How a reason's words follow the subject: "value" after the field and the value given
 * (`seqLen: 1.5 must be …`, `--seq-len 1.5 must be …`), "bare" after the field alone
 * (`lora: is only used …`, `--fused-optimizer applies …`), "sentence" after the field and a colon
 * (`quantization: method "qlora" needs …`, `--quantization none: method "qlora" needs …`).
 */
const FORMS: Readonly<Record<FieldErrorReason, 'value' | 'bare' | 'sentence'>> = {
  'not-a-scenario': 'bare',
  'unknown-field': 'bare',
  'unknown-lora-field': 'bare',
  'unknown-sub-field': 'bare',
  'unknown-package': 'bare',
  'not-an-object': 'bare',
  'model-empty': 'bare',
  'model-missing': 'bare',
  'not-modelled': 'value',
  'not-one-of': 'value',
  'not-whole-number': 'value',
  'above-limit': 'value',
  'not-boolean': 'value',
  'not-fraction': 'value',
  'not-positive': 'value',
  'not-targets': 'bare',
  'not-module-list': 'bare',
  'not-bucket-size': 'value',
  'not-version': 'value',
  'not-gpu-id': 'bare',
  'qlora-needs-quantization': 'sentence',
  'trains-base': 'sentence',
  'only-lora-method': 'bare',
  'only-freeze-method': 'bare',
  'sync-needs-fsdp': 'bare',
  'wrap-needs-fsdp': 'bare',
  'needs-zero': 'bare',
  'needs-fsdp': 'bare',
  'needs-every-nth': 'bare',
  'single-one-gpu': 'sentence',
  'offload-needs-sharding': 'sentence',
  'param-offload-needs-full-shard': 'sentence',
  'fused-torch-only': 'bare',
  'in-backward-accumulates': 'bare',
  'in-backward-deepspeed': 'bare',
  'eval-needs-batch': 'bare',
  'torchao-needs-nf4': 'sentence',
  'bitsandbytes-quantizations': 'sentence',
  'bnb-head': 'bare',
  'bnb-from': 'bare',
  'bnb-inputs': 'bare',
  'rank-above-hidden': 'value',
  'layers-above-model': 'value',
  'not-a-linear-module': 'value',
  'module-not-sizable': 'value',
  'flag-not-number': 'sentence',
  'flag-not-package-version': 'sentence',
};

const modelEn = (p: Said) => (p.model === 'inline config' ? 'the inline config' : (p.model ?? 'the model'));
const modelZh = (p: Said) => (p.model === 'inline config' ? '内联配置' : (p.model ?? '该模型'));
const limitOf = (lang: Lang, path: string) =>
  (FIELD_WORDS[lang] as Readonly<Record<string, { limit?: { unit: string; why: string } }>>)[path]?.limit;
const bnbEn = (p: { quantization: string; quantizer: string }) =>
  p.quantizer === 'torchao' ? 'the base is quantized by torchao' : `quantization is "${p.quantization}"`;
const bnbZh = (p: { quantization: string; quantizer: string }) =>
  p.quantizer === 'torchao' ? '基座由 torchao 量化' : `quantization 为 "${p.quantization}"`;

const EXAMPLE_SAID = { path: 'seqLen' };

export const ERROR_WORDS = defineDomain<ErrorWordsParams>({
  name: 'errors',
  words: {
    en: {
      'not-a-scenario': () => 'must be a JSON object with at least a "model" field',
      'unknown-field': () => 'is not a scenario field',
      'unknown-lora-field': (p) => `is not a LoRA field (${p.known.join(', ')})`,
      'unknown-sub-field': (p) => `is not a field (${p.known.join(', ')})`,
      'unknown-package': () => 'is not a package headroom knows',
      'not-an-object': () => 'must be an object',
      'model-empty': () => 'is empty',
      'model-missing': () =>
        'is missing: give a catalog id, a Hugging Face repo id or an inline config.json object',
      'not-modelled': () => '(IA3, prefix tuning, VeRA, DoRA…) is not modelled',
      'not-one-of': (p) => `is not one of ${p.accepted.join(' | ')}`,
      'not-whole-number': (p) => `must be a whole number from ${p.min} to ${p.max}`,
      'above-limit': (p) => {
        const limit = limitOf('en', p.path);
        return `is more than ${`${p.max} ${limit?.unit ?? ''}`.trim()}, the most Headroom takes${limit ? ` (${limit.why})` : ''}`;
      },
      'not-boolean': () => 'must be true or false',
      'not-fraction': () => 'must be a number from 0 up to (not including) 1',
      'not-positive': () => 'must be a positive number',
      'not-targets': () => 'must be "all-linear" or a non-empty list of module names',
      'not-module-list': () => 'must be a list of module names, e.g. ["embed_tokens", "lm_head"]',
      'not-bucket-size': () => 'must be a whole number of elements (at least 1) or "auto"',
      'not-version': () => 'must be a version string such as "2.5.1"',
      'not-gpu-id': () => 'must be a catalog GPU id',
      'qlora-needs-quantization': (p) =>
        `method "qlora" needs a quantized base, but quantization is "${p.quantization}"`,
      'trains-base': (p) =>
        `method "${p.method}" trains the base weights, which cannot be ${p.quantization}-quantized`,
      'only-lora-method': (p) => `is only used with method lora or qlora, not "${p.method}"`,
      'only-freeze-method': (p) => `is only used with method "freeze", not "${p.method}"`,
      'sync-needs-fsdp': (p) =>
        `is about how FSDP accumulates gradients, but the strategy is "${p.strategy}"`,
      'wrap-needs-fsdp': (p) =>
        `wraps the embeddings as FSDP units of their own, but the strategy is "${p.strategy}"`,
      'needs-zero': (p) => `is a DeepSpeed ZeRO setting, but the strategy is "${p.strategy}"`,
      'needs-fsdp': (p) => `is a PyTorch FSDP setting, but the strategy is "${p.strategy}"`,
      'needs-every-nth': (p) =>
        `is the period of gradientCheckpointing "every-nth", but checkpointing is "${p.checkpointing}"`,
      'single-one-gpu': (p) => `strategy "single" runs on one GPU, but gpus is ${p.gpus}`,
      'offload-needs-sharding': (p) => `offloading needs a ZeRO or FSDP strategy, not "${p.strategy}"`,
      'param-offload-needs-full-shard': (p) =>
        `parameter offload needs ZeRO-3 or FSDP full sharding, not "${p.strategy}"`,
      'fused-torch-only': (p) =>
        `applies to torch's AdamW and SGD only; "${p.optimizer}" is one kernel already, with no step temporary to save`,
      'in-backward-accumulates': (p) =>
        `steps the optimizer on every micro-batch, so it cannot accumulate ${p.gradAccumSteps} micro-batches of gradients`,
      'in-backward-deepspeed': (p) =>
        `is a PyTorch hook on each parameter; DeepSpeed's ${p.strategy} steps its own partitioned optimizer`,
      'eval-needs-batch': () =>
        'sets how the run evaluates, but not evaluation.microBatchSize, the evaluation batch it is about',
      'torchao-needs-nf4': (p) =>
        `torchao quantizes to NF4 (torchtune's QLoRA), but quantization is "${p.quantization}"`,
      'bitsandbytes-quantizations': (p) =>
        `bitsandbytes quantizes to int8, nf4, nf4-dq or fp4, but quantization is "${p.quantization}"`,
      'bnb-head': (p) => `quantizes the output head with a bitsandbytes base, but ${bnbEn(p)}`,
      'bnb-from': (p) => `says how a bitsandbytes base was quantized, but ${bnbEn(p)}`,
      'bnb-inputs': (p) => `says how long a bitsandbytes layer keeps its input, but ${bnbEn(p)}`,
      'rank-above-hidden': (p) =>
        `is more than the hidden size of ${modelEn(p)}, ${p.max}: a LoRA rank above it adds parameters, not capacity`,
      'layers-above-model': (p) => `is more than the ${p.max} layers ${modelEn(p)} has`,
      'not-a-linear-module': (p) => `is not a linear module of ${p.modelType} models`,
      'module-not-sizable': () => 'is not a module Headroom can size',
      'flag-not-number': (p) =>
        `not a number${p.max === undefined ? '' : `; give a whole number from 1 to ${p.max}`}`,
      'flag-not-package-version': (p) => `"${p.item}" is not PACKAGE=VERSION`,
    },
    zh: {
      'not-a-scenario': () => '必须是至少含有 "model" 字段的 JSON 对象',
      'unknown-field': () => '不是场景字段',
      'unknown-lora-field': (p) => `不是 LoRA 字段（${p.known.join('、')}）`,
      'unknown-sub-field': (p) => `不是其中的字段（${p.known.join('、')}）`,
      'unknown-package': () => '不是 headroom 认识的包',
      'not-an-object': () => '必须是对象',
      'model-empty': () => '为空',
      'model-missing': () => '缺失：请给出目录 id、Hugging Face 仓库 id 或内联的 config.json 对象',
      'not-modelled': () => '（IA3、prefix tuning、VeRA、DoRA…）尚未建模',
      'not-one-of': (p) => `不是以下取值之一：${p.accepted.join(' | ')}`,
      'not-whole-number': (p) => `必须是 ${p.min} 到 ${p.max} 之间的整数`,
      'above-limit': (p) => {
        const limit = limitOf('zh', p.path);
        return `超过 ${p.max}${limit?.unit ? ` ${limit.unit}` : ''}，这是 Headroom 接受的上限${limit ? `（${limit.why}）` : ''}`;
      },
      'not-boolean': () => '必须是 true 或 false',
      'not-fraction': () => '必须是 0 到 1 之间的数（不含 1）',
      'not-positive': () => '必须是正数',
      'not-targets': () => '必须是 "all-linear" 或非空的模块名列表',
      'not-module-list': () => '必须是模块名列表，例如 ["embed_tokens", "lm_head"]',
      'not-bucket-size': () => '必须是元素个数（至少 1）或 "auto"',
      'not-version': () => '必须是版本字符串，例如 "2.5.1"',
      'not-gpu-id': () => '必须是目录中的 GPU id',
      'qlora-needs-quantization': (p) =>
        `method "qlora" 需要量化的基座，但 quantization 为 "${p.quantization}"`,
      'trains-base': (p) => `method "${p.method}" 会训练基座权重，基座权重不能做 ${p.quantization} 量化`,
      'only-lora-method': (p) => `只在 method 为 lora 或 qlora 时使用，而不是 "${p.method}"`,
      'only-freeze-method': (p) => `只在 method 为 "freeze" 时使用，而不是 "${p.method}"`,
      'sync-needs-fsdp': (p) => `说明的是 FSDP 如何累积梯度，但并行策略是 "${p.strategy}"`,
      'wrap-needs-fsdp': (p) => `把嵌入层包装成独立的 FSDP 单元，但并行策略是 "${p.strategy}"`,
      'needs-zero': (p) => `是 DeepSpeed ZeRO 的设置，但并行策略是 "${p.strategy}"`,
      'needs-fsdp': (p) => `是 PyTorch FSDP 的设置，但并行策略是 "${p.strategy}"`,
      'needs-every-nth': (p) =>
        `是 gradientCheckpointing "every-nth" 的间隔层数，但检查点方式是 "${p.checkpointing}"`,
      'single-one-gpu': (p) => `策略 "single" 只用一块 GPU，但 gpus 为 ${p.gpus}`,
      'offload-needs-sharding': (p) => `卸载需要 ZeRO 或 FSDP 策略，而不是 "${p.strategy}"`,
      'param-offload-needs-full-shard': (p) => `参数卸载需要 ZeRO-3 或 FSDP 完全分片，而不是 "${p.strategy}"`,
      'fused-torch-only': (p) =>
        `只适用于 torch 的 AdamW 和 SGD；"${p.optimizer}" 本身已是单个内核，没有可省的更新临时量`,
      'in-backward-accumulates': (p) =>
        `在每个 micro-batch 上都执行优化器更新，因此无法累积 ${p.gradAccumSteps} 个 micro-batch 的梯度`,
      'in-backward-deepspeed': (p) =>
        `是作用于每个参数的 PyTorch hook；DeepSpeed 的 ${p.strategy} 用它自己的分区优化器更新`,
      'eval-needs-batch': () => '说明了运行如何评估，但没有给出评估批次大小 evaluation.microBatchSize',
      'torchao-needs-nf4': (p) =>
        `torchao 只做 NF4 量化（torchtune 的 QLoRA），但 quantization 为 "${p.quantization}"`,
      'bitsandbytes-quantizations': (p) =>
        `bitsandbytes 做 int8、nf4、nf4-dq 或 fp4 量化，但 quantization 为 "${p.quantization}"`,
      'bnb-head': (p) => `在 bitsandbytes 基座上把输出头也量化，但${bnbZh(p)}`,
      'bnb-from': (p) => `说明 bitsandbytes 基座从什么精度量化而来，但${bnbZh(p)}`,
      'bnb-inputs': (p) => `说明 bitsandbytes 层把输入保留多久，但${bnbZh(p)}`,
      'rank-above-hidden': (p) =>
        `超过 ${modelZh(p)} 的隐藏层大小 ${p.max}：LoRA 秩超过它只会增加参数，不会增加容量`,
      'layers-above-model': (p) => `超过 ${modelZh(p)} 的 ${p.max} 层`,
      'not-a-linear-module': (p) => `不是 ${p.modelType} 模型的线性模块`,
      'module-not-sizable': () => '不是 Headroom 能计算大小的模块',
      'flag-not-number': (p) => `不是数字${p.max === undefined ? '' : `；请给出 1 到 ${p.max} 之间的整数`}`,
      'flag-not-package-version': (p) => `"${p.item}" 不是 PACKAGE=VERSION 的形式`,
    },
  },
  examples: {
    'not-a-scenario': { path: '' },
    'unknown-field': { known: ['model', 'method'], path: 'batch' },
    'unknown-lora-field': { known: ['rank', 'alpha'], path: 'lora.r' },
    'unknown-sub-field': { known: ['strategy', 'gpus'], path: 'parallelism.nodes' },
    'unknown-package': { known: ['torch', 'peft'], path: 'versions.pytorch' },
    'not-an-object': { path: 'parallelism' },
    'model-empty': { path: 'model' },
    'model-missing': { path: 'model' },
    'not-modelled': { value: '"peft-other"', path: 'method' },
    'not-one-of': { value: '"fp8"', accepted: ['fp32', 'bf16-true'], path: 'precision' },
    'not-whole-number': { value: -2, min: 1, max: 65536, path: 'microBatchSize' },
    'above-limit': { value: 1e12, min: 1, max: 10_485_760, ...EXAMPLE_SAID },
    'not-boolean': { value: '"yes"', path: 'torchCompile' },
    'not-fraction': { value: 1.5, path: 'lora.dropout' },
    'not-positive': { value: -1, path: 'lora.alpha' },
    'not-targets': { path: 'lora.targets' },
    'not-module-list': { path: 'lora.modulesToSave' },
    'not-bucket-size': { value: -5, path: 'parallelism.reduceBucketSize' },
    'not-version': { value: '"latest"', path: 'versions.torch' },
    'not-gpu-id': { path: 'gpu' },
    'qlora-needs-quantization': { quantization: 'none', path: 'quantization' },
    'trains-base': { method: 'full', quantization: 'nf4', path: 'quantization' },
    'only-lora-method': { method: 'full', path: 'lora' },
    'only-freeze-method': { method: 'lora', path: 'trainableLayers' },
    'sync-needs-fsdp': { strategy: 'ddp', path: 'parallelism.syncEachMicroBatch' },
    'wrap-needs-fsdp': { strategy: 'zero3', path: 'parallelism.wrapEmbeddings' },
    'needs-zero': { strategy: 'fsdp', path: 'parallelism.overlapComm' },
    'needs-fsdp': { strategy: 'zero3', path: 'parallelism.fsdpVersion' },
    'needs-every-nth': { checkpointing: 'full', path: 'checkpointEvery' },
    'single-one-gpu': { gpus: 4, path: 'parallelism.gpus' },
    'offload-needs-sharding': { strategy: 'ddp', path: 'offload.optimizer' },
    'param-offload-needs-full-shard': { strategy: 'zero2', path: 'offload.params' },
    'fused-torch-only': { optimizer: 'adamw-8bit', path: 'fusedOptimizer' },
    'in-backward-accumulates': { gradAccumSteps: 4, path: 'optimizerInBackward' },
    'in-backward-deepspeed': { strategy: 'zero2', path: 'optimizerInBackward' },
    'eval-needs-batch': { path: 'evaluation.keepLogits' },
    'torchao-needs-nf4': { quantization: 'int8', path: 'quantizer' },
    'bitsandbytes-quantizations': { quantization: 'int4-gptq', path: 'quantizer' },
    'bnb-head': { quantization: 'none', quantizer: '', path: 'quantizeHead' },
    'bnb-from': { quantization: 'int4-gptq', quantizer: '', path: 'quantizedFrom' },
    'bnb-inputs': { quantization: 'nf4-dq', quantizer: 'torchao', path: 'quantizedInputsKept' },
    'rank-above-hidden': { value: 5000, max: 4096, path: 'lora.rank', model: 'llama-3.1-8b' },
    'layers-above-model': { value: 40, max: 32, path: 'trainableLayers', model: 'inline config' },
    'not-a-linear-module': {
      value: '"c_attn"',
      modelType: 'llama',
      known: ['q_proj', 'k_proj', 'lm_head'],
      path: 'lora.targets',
    },
    'module-not-sizable': { value: '"norm"', path: 'lora.modulesToSave' },
    'flag-not-number': { raw: 'abc', max: 65536, path: 'microBatchSize' },
    'flag-not-package-version': { raw: 'torch', item: 'torch', path: 'versions' },
  },
});

type Hinted =
  | 'unknown-field'
  | 'unknown-package'
  | 'model-empty'
  | 'model-missing'
  | 'not-modelled'
  | 'not-bucket-size'
  | 'not-version'
  | 'not-gpu-id'
  | 'qlora-needs-quantization'
  | 'trains-base'
  | 'sync-needs-fsdp'
  | 'wrap-needs-fsdp'
  | 'needs-zero'
  | 'needs-fsdp'
  | 'needs-every-nth'
  | 'single-one-gpu'
  | 'offload-needs-sharding'
  | 'param-offload-needs-full-shard'
  | 'fused-torch-only'
  | 'in-backward-accumulates'
  | 'in-backward-deepspeed'
  | 'eval-needs-batch'
  | 'torchao-needs-nf4'
  | 'bitsandbytes-quantizations'
  | 'bnb-head'
  | 'bnb-from'
  | 'bnb-inputs'
  | 'rank-above-hidden'
  | 'layers-above-model'
  | 'not-a-linear-module'
  | 'module-not-sizable'
  | 'flag-not-package-version';

const bnbHintEn = (p: { quantizer: string }) =>
  p.quantizer === 'torchao'
    ? 'drop it, or set quantizer to bitsandbytes'
    : 'use it with quantization nf4, nf4-dq, fp4 or int8';
const bnbHintZh = (p: { quantizer: string }) =>
  p.quantizer === 'torchao'
    ? '去掉它，或把 quantizer 设为 bitsandbytes'
    : '与 quantization nf4、nf4-dq、fp4 或 int8 一起使用';

/** What the user can do next, for the reasons that know better than "fix it where you set it". */
export const ERROR_HINTS = defineDomain<Pick<ErrorWordsParams, Hinted>>({
  name: 'error-hints',
  words: {
    en: {
      'unknown-field': (p) => `the fields are: ${p.known.join(', ')}`,
      'unknown-package': (p) => `the keys are: ${p.known.join(', ')}`,
      'model-empty': () => 'name a catalog model: headroom models',
      'model-missing': () => 'headroom models lists the catalog',
      'not-modelled': () =>
        'estimate the closest LoRA setup instead: method "lora" with a similar rank and targets',
      'not-bucket-size': () =>
        'copy zero_optimization.reduce_bucket_size from the DeepSpeed config, e.g. 500000000',
      'not-version': () => 'write it as `pip show` prints it, e.g. "2.5.1" or "4.46.0.dev0"',
      'not-gpu-id': () => 'headroom gpus lists them',
      'qlora-needs-quantization': () =>
        'set quantization to nf4, nf4-dq, fp4, int8 or int4-gptq, or use method "lora"',
      'trains-base': () => 'use method "qlora" (adapters on a quantized base) or quantization "none"',
      'sync-needs-fsdp': () => 'use it with strategy fsdp or fsdp-grad-op',
      'wrap-needs-fsdp': () => 'use it with strategy fsdp or fsdp-grad-op',
      'needs-zero': () => 'use it with strategy zero1, zero2 or zero3',
      'needs-fsdp': () => 'use it with strategy fsdp or fsdp-grad-op',
      'needs-every-nth': () => 'set gradientCheckpointing to every-nth, or drop it',
      'single-one-gpu': () => 'choose a multi-GPU strategy: ddp, zero1, zero2, zero3, fsdp or fsdp-grad-op',
      'offload-needs-sharding': () =>
        'set parallelism.strategy to zero2, zero3 or fsdp (it works with gpus: 1)',
      'param-offload-needs-full-shard': () => 'set parallelism.strategy to zero3 or fsdp',
      'fused-torch-only': () => 'drop fusedOptimizer, or use optimizer adamw, sgd or sgd-momentum',
      'in-backward-accumulates': () => 'set gradAccumSteps to 1, or optimizerInBackward to false',
      'in-backward-deepspeed': () => 'use strategy single, ddp or fsdp with it',
      'eval-needs-batch': () =>
        'add evaluation.microBatchSize (--eval-batch; Hugging Face per_device_eval_batch_size), or name the framework',
      'torchao-needs-nf4': () => 'set quantization to nf4-dq, or drop quantizer',
      'bitsandbytes-quantizations': () => 'set quantization to one of those, or drop quantizer',
      'bnb-head': bnbHintEn,
      'bnb-from': bnbHintEn,
      'bnb-inputs': bnbHintEn,
      'rank-above-hidden': (p) => `a rank from 1 to ${p.max}; 8 to 256 are the usual ones`,
      'layers-above-model': (p) =>
        `from 1 to ${p.max}; method full trains every layer and the embeddings too`,
      'not-a-linear-module': (p) => `use "all-linear" or some of: ${p.known.join(', ')}`,
      'module-not-sizable': () => 'use embed_tokens and/or lm_head',
      'flag-not-package-version': () => 'e.g. --versions torch=2.5.1,transformers=4.46.0',
    },
    zh: {
      'unknown-field': (p) => `可用的字段：${p.known.join('、')}`,
      'unknown-package': (p) => `可用的键：${p.known.join('、')}`,
      'model-empty': () => '填写目录中的模型：headroom models',
      'model-missing': () => 'headroom models 列出模型目录',
      'not-modelled': () => '改为估算最接近的 LoRA 设置：method "lora"，rank 和 targets 取相近的值',
      'not-bucket-size': () => '从 DeepSpeed 配置中复制 zero_optimization.reduce_bucket_size，例如 500000000',
      'not-version': () => '按 pip show 的输出填写，例如 "2.5.1" 或 "4.46.0.dev0"',
      'not-gpu-id': () => 'headroom gpus 列出全部 GPU',
      'qlora-needs-quantization': () =>
        '把 quantization 设为 nf4、nf4-dq、fp4、int8 或 int4-gptq，或改用 method "lora"',
      'trains-base': () => '改用 method "qlora"（在量化基座上训练适配器），或把 quantization 设为 "none"',
      'sync-needs-fsdp': () => '与 fsdp 或 fsdp-grad-op 策略一起使用',
      'wrap-needs-fsdp': () => '与 fsdp 或 fsdp-grad-op 策略一起使用',
      'needs-zero': () => '与 zero1、zero2 或 zero3 策略一起使用',
      'needs-fsdp': () => '与 fsdp 或 fsdp-grad-op 策略一起使用',
      'needs-every-nth': () => '把 gradientCheckpointing 设为 every-nth，或去掉它',
      'single-one-gpu': () => '选择多 GPU 策略：ddp、zero1、zero2、zero3、fsdp 或 fsdp-grad-op',
      'offload-needs-sharding': () => '把 parallelism.strategy 设为 zero2、zero3 或 fsdp（gpus: 1 时也可用）',
      'param-offload-needs-full-shard': () => '把 parallelism.strategy 设为 zero3 或 fsdp',
      'fused-torch-only': () => '去掉 fusedOptimizer，或使用 adamw、sgd 或 sgd-momentum 优化器',
      'in-backward-accumulates': () => '把 gradAccumSteps 设为 1，或把 optimizerInBackward 设为 false',
      'in-backward-deepspeed': () => '与 single、ddp 或 fsdp 策略一起使用',
      'eval-needs-batch': () =>
        '加上 evaluation.microBatchSize（--eval-batch；即 Hugging Face 的 per_device_eval_batch_size），或指明训练框架',
      'torchao-needs-nf4': () => '把 quantization 设为 nf4-dq，或去掉 quantizer',
      'bitsandbytes-quantizations': () => '把 quantization 设为其中之一，或去掉 quantizer',
      'bnb-head': bnbHintZh,
      'bnb-from': bnbHintZh,
      'bnb-inputs': bnbHintZh,
      'rank-above-hidden': (p) => `秩取 1 到 ${p.max}；常用 8 到 256`,
      'layers-above-model': (p) => `取 1 到 ${p.max}；method full 会训练所有层以及嵌入层`,
      'not-a-linear-module': (p) => `使用 "all-linear"，或以下模块中的若干个：${p.known.join('、')}`,
      'module-not-sizable': () => '使用 embed_tokens 和/或 lm_head',
      'flag-not-package-version': () => '例如 --versions torch=2.5.1,transformers=4.46.0',
    },
  },
  examples: {
    'unknown-field': ERROR_WORDS.examples['unknown-field'],
    'unknown-package': ERROR_WORDS.examples['unknown-package'],
    'model-empty': ERROR_WORDS.examples['model-empty'],
    'model-missing': ERROR_WORDS.examples['model-missing'],
    'not-modelled': ERROR_WORDS.examples['not-modelled'],
    'not-bucket-size': ERROR_WORDS.examples['not-bucket-size'],
    'not-version': ERROR_WORDS.examples['not-version'],
    'not-gpu-id': ERROR_WORDS.examples['not-gpu-id'],
    'qlora-needs-quantization': ERROR_WORDS.examples['qlora-needs-quantization'],
    'trains-base': ERROR_WORDS.examples['trains-base'],
    'sync-needs-fsdp': ERROR_WORDS.examples['sync-needs-fsdp'],
    'wrap-needs-fsdp': ERROR_WORDS.examples['wrap-needs-fsdp'],
    'needs-zero': ERROR_WORDS.examples['needs-zero'],
    'needs-fsdp': ERROR_WORDS.examples['needs-fsdp'],
    'needs-every-nth': ERROR_WORDS.examples['needs-every-nth'],
    'single-one-gpu': ERROR_WORDS.examples['single-one-gpu'],
    'offload-needs-sharding': ERROR_WORDS.examples['offload-needs-sharding'],
    'param-offload-needs-full-shard': ERROR_WORDS.examples['param-offload-needs-full-shard'],
    'fused-torch-only': ERROR_WORDS.examples['fused-torch-only'],
    'in-backward-accumulates': ERROR_WORDS.examples['in-backward-accumulates'],
    'in-backward-deepspeed': ERROR_WORDS.examples['in-backward-deepspeed'],
    'eval-needs-batch': ERROR_WORDS.examples['eval-needs-batch'],
    'torchao-needs-nf4': ERROR_WORDS.examples['torchao-needs-nf4'],
    'bitsandbytes-quantizations': ERROR_WORDS.examples['bitsandbytes-quantizations'],
    'bnb-head': ERROR_WORDS.examples['bnb-head'],
    'bnb-from': ERROR_WORDS.examples['bnb-from'],
    'bnb-inputs': ERROR_WORDS.examples['bnb-inputs'],
    'rank-above-hidden': ERROR_WORDS.examples['rank-above-hidden'],
    'layers-above-model': ERROR_WORDS.examples['layers-above-model'],
    'not-a-linear-module': ERROR_WORDS.examples['not-a-linear-module'],
    'module-not-sizable': ERROR_WORDS.examples['module-not-sizable'],
    'flag-not-package-version': ERROR_WORDS.examples['flag-not-package-version'],
  },
});

interface SourceParams {
  /** A choice set by a flag: where its values are explained. */
  'flag-values': { readonly command: string; readonly flag: string };
  /** Any other value a flag set: what a good one looks like. */
  'flag-example': { readonly flag: string; readonly example: string };
  /** A field a scenario file set. */
  'fix-in-file': { readonly path: string; readonly file: string };
  /** A field an imported trainer config set. */
  'fix-in-config': { readonly key: string; readonly file: string };
  /** The labels of an error line: "error: …", "Try: …". */
  'label-error': Readonly<Record<string, never>>;
  'label-try': Readonly<Record<string, never>>;
}

/** The hints that say where to fix a field, by where it was set, and the labels of an error line. */
export const ERROR_SOURCES = defineDomain<SourceParams>({
  name: 'error-sources',
  words: {
    en: {
      'flag-values': (p) => `headroom ${p.command} --help says what each value of --${p.flag} means`,
      'flag-example': (p) => `e.g. --${p.flag} ${p.example}`,
      'fix-in-file': (p) =>
        `fix ${p.path} in ${p.file}; docs/scenario.md lists every field and the values it takes`,
      'fix-in-config': (p) =>
        `fix ${p.key} in ${p.file}, or override it with a flag (flags win over the config)`,
      'label-error': () => 'error',
      'label-try': () => 'Try',
    },
    zh: {
      'flag-values': (p) => `headroom ${p.command} --help 说明了 --${p.flag} 每个取值的含义`,
      'flag-example': (p) => `例如 --${p.flag} ${p.example}`,
      'fix-in-file': (p) => `在 ${p.file} 中修改 ${p.path}；docs/scenario.md 列出了每个字段及其取值`,
      'fix-in-config': (p) => `在 ${p.file} 中修改 ${p.key}，或用参数覆盖它（参数优先于配置）`,
      'label-error': () => '错误',
      'label-try': () => '建议',
    },
  },
  examples: {
    'flag-values': { command: 'estimate', flag: 'precision' },
    'flag-example': { flag: 'micro-batch', example: '4' },
    'fix-in-file': { path: 'microBatchSize', file: 'run.json' },
    'fix-in-config': { key: 'per_device_train_batch_size', file: 'config.yaml' },
    'label-error': {},
    'label-try': {},
  },
});

/** What the words of an error read beside the error itself. */
export interface ErrorExtras {
  /** The command whose help explains a flag's values (`headroom estimate --help`). */
  readonly command?: string;
  /** An example value of the flag that set the field, for the hint of a bad one. */
  readonly example?: string;
}

/** The parts of a field error its words are made of. */
interface FieldErrorSpec {
  readonly reason: FieldErrorReason;
  readonly path: readonly string[];
  readonly params: object;
  readonly context?: Readonly<Record<string, string>> | undefined;
  readonly source?: FieldSource | undefined;
}

function flagLabel(source: Extract<FieldSource, { kind: 'flag' }>): string {
  return source.typed === undefined ? `--${source.flag}` : `--${source.flag} ${source.typed}`;
}

/** The subject of an error's words: the field, the value given if the form shows it, and where it was set. */
function subjectOf(lang: Lang, spec: FieldErrorSpec, form: 'value' | 'bare' | 'sentence'): string {
  const sep = COLON[lang];
  const { source } = spec;
  if (source?.kind === 'flag') {
    const typed = flagLabel(source);
    return form === 'sentence' ? `${typed}${sep}` : `${typed} `;
  }
  const value = (spec.params as { value?: unknown }).value;
  const tail = form === 'value' && value !== undefined ? `${String(value)} ` : '';
  if (source?.kind === 'import' && source.key !== undefined)
    return `${source.file} (${source.key})${sep}${tail}`;
  const field = spec.path.length === 0 ? 'scenario' : spec.path.join('.');
  const where = source === undefined ? '' : `${source.file}${sep}`;
  return `${where}${field}${sep}${tail}`;
}

/** The hint where the reason has none: how to fix the field where it was set. */
function sourceHint(lang: Lang, spec: FieldErrorSpec, extras: ErrorExtras): string | undefined {
  const { source } = spec;
  const field = spec.path.length === 0 ? 'scenario' : spec.path.join('.');
  if (source === undefined) return undefined;
  if (source.kind === 'flag') {
    return spec.reason === 'not-one-of'
      ? say(ERROR_SOURCES, lang, {
          code: 'flag-values',
          params: { command: extras.command ?? 'estimate', flag: source.flag },
        })
      : say(ERROR_SOURCES, lang, {
          code: 'flag-example',
          params: { flag: source.flag, example: source.example ?? extras.example ?? '4' },
        });
  }
  if (source.kind === 'file') {
    return say(ERROR_SOURCES, lang, { code: 'fix-in-file', params: { path: field, file: source.file } });
  }
  return say(ERROR_SOURCES, lang, {
    code: 'fix-in-config',
    params: { key: source.key ?? field, file: source.file },
  });
}

/** A field error's message and hint in a language, naming the field the way its source set it. */
export function fieldErrorWords(
  lang: Lang,
  spec: FieldErrorSpec,
  extras: ErrorExtras = {},
): { message: string; hint?: string } {
  const said = { ...spec.params, ...(spec.context ?? {}), path: spec.path.join('.') };
  const form = FORMS[spec.reason];
  const words = say(ERROR_WORDS, lang, { code: spec.reason, params: said } as never);
  const hinted = spec.reason in ERROR_HINTS.words[lang];
  const hint = hinted
    ? say(ERROR_HINTS, lang, { code: spec.reason as Hinted, params: said } as never)
    : sourceHint(lang, spec, extras);
  return { message: `${subjectOf(lang, spec, form)}${words}`, ...(hint === undefined ? {} : { hint }) };
}

/** The English words of a field error as the core raises it (no source yet): its `message` and `hint`. */
export function englishFieldError<R extends FieldErrorReason>(
  reason: R,
  path: readonly string[],
  params: FieldErrorParams[R],
  context?: Readonly<Record<string, string>>,
): { message: string; hint?: string } {
  return fieldErrorWords('en', { reason, path, params, context });
}

// The core words a field error's `message` in English through this catalog (core/errors.ts).
speakFieldErrorsWith((reason, path, params, context) =>
  isReason(reason)
    ? englishFieldError(reason, path, params as FieldErrorParams[typeof reason], context)
    : { message: `${path.join('.')}: ${reason}` },
);

function isReason(reason: string | undefined): reason is FieldErrorReason {
  return reason !== undefined && reason in FORMS;
}

/**
 * The words of any user error in a language: a field error's and a file error's from the catalog, any
 * other's as it was raised.
 */
export function userErrorWords(
  error: HeadroomUserError,
  lang: Lang,
  extras: ErrorExtras = {},
): { message: string; hint?: string } {
  if (isReason(error.reason) && error.path !== undefined) {
    return fieldErrorWords(
      lang,
      {
        reason: error.reason,
        path: error.path,
        params: error.params ?? {},
        context: error.context,
        source: error.source,
      },
      extras,
    );
  }
  if (isFileReason(error.reason)) return fileErrorWords(lang, error.reason, error.params ?? {});
  return { message: error.message, ...(error.hint === undefined ? {} : { hint: error.hint }) };
}

/** The first words of a message that say something about the field itself (errors raised outside the table). */
const PREDICATE = /^(is|must|applies|steps|wraps|quantizes|says)\b/;

/**
 * The words of an error raised outside the field table (the estimator's lora.targets), which has a
 * field but no reason: its English message, with the field's name replaced by where it was set.
 */
function legacyWords(error: HeadroomUserError, source: FieldSource, extras: ErrorExtras) {
  const prefix = `${error.where}: `;
  const said = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  if (source.kind !== 'flag') {
    const label =
      source.kind === 'import' && source.key !== undefined ? `${source.file} (${source.key})` : source.file;
    const spec = { reason: 'not-targets' as const, path: error.path ?? [], params: {}, source };
    return {
      message: `${label}: ${error.message}`,
      hint: error.hint ?? sourceHint('en', spec, extras),
    };
  }
  let rest = said;
  const typed = source.typed;
  // The message opens with the value as JSON ("c_attn"), or as written: the flag shows it as typed.
  const value =
    typed === undefined ? undefined : [JSON.stringify(typed), `${typed} `].find((v) => rest.startsWith(v));
  if (value !== undefined) rest = rest.slice(value.length).trimStart();
  const spec = { reason: 'not-targets' as const, path: error.path ?? [], params: {}, source };
  return {
    message: `${flagLabel(source)}${PREDICATE.test(rest) ? ' ' : ': '}${rest}`,
    hint: error.hint ?? sourceHint('en', spec, extras),
  };
}

/**
 * The error as the user set its field: its `source` recorded, its English message and hint naming the
 * flag, file or config key, its `where` the flag (`--micro-batch`) or `file: field`, and a field error
 * a flag set is the flag's (`bad-flag`; a number out of range stays `out-of-range`).
 */
export function withSource(
  error: HeadroomUserError,
  source: FieldSource | undefined,
  extras: ErrorExtras = {},
): HeadroomUserError {
  if (source === undefined || error.source !== undefined) return error;
  const path = error.path ?? (error.where === undefined ? [] : error.where.split('.'));
  const words = isReason(error.reason)
    ? userErrorWords(new HeadroomUserError({ ...error.init(), path, source }), 'en', extras)
    : legacyWords(new HeadroomUserError({ ...error.init(), path }), source, extras);
  const field = path.length === 0 ? 'scenario' : path.join('.');
  const init: UserErrorInit = {
    ...error.init(),
    code: source.kind === 'flag' && error.code === 'invalid-field' ? 'bad-flag' : error.code,
    where:
      source.kind === 'flag'
        ? `--${source.flag}`
        : source.kind === 'import' && source.key !== undefined
          ? `${source.file} (${source.key})`
          : `${source.file}: ${field}`,
    message: words.message,
    path,
    source,
  };
  return new HeadroomUserError(words.hint === undefined ? init : { ...init, hint: words.hint });
}

/** An error as a JSON record (a JSON Lines result line): code, reason, path, where, message, hint, params. */
export function errorRecord(error: HeadroomUserError): Record<string, unknown> {
  return {
    code: error.code,
    ...(error.reason === undefined ? {} : { reason: error.reason }),
    ...(error.path === undefined ? {} : { path: error.path }),
    where: error.where,
    message: error.message,
    hint: error.hint,
    ...(error.params === undefined ? {} : { params: error.params }),
  };
}

/** The labels of an error line in a language: "error", "Try". */
export function errorLabels(lang: Lang): { error: string; try: string } {
  return {
    error: say(ERROR_SOURCES, lang, { code: 'label-error', params: {} }),
    try: say(ERROR_SOURCES, lang, { code: 'label-try', params: {} }),
  };
}
