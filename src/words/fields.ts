/**
 * The words of each scenario field (src/core/scenario/fields.ts), by path, in English and Chinese:
 * the form's label, the help line of its flag (a choice's values and the default are the table's,
 * and come first and last), and a count's limit in words. TypeScript holds each language to every
 * field of the table.
 */
import type { FieldPath } from '../core/scenario/types.js';
import { defineDomain } from './catalog.js';
import type { Lang } from './lang.js';

export interface FieldWords {
  /** The form's label. */
  readonly label: string;
  /** The help line of the field's flag, after a choice's values. */
  readonly help: string;
  /** The help line of its `--no-` negation. */
  readonly helpNo?: string;
  /** The default as help says it, when it is not the table's value (absent fields, method-aware ones). */
  readonly default?: string;
  /** A count's limit: what it counts (empty for a plain number) and why no run goes past it. */
  readonly limit?: { readonly unit: string; readonly why: string };
}

/** The words of a table's fields, by path. */
export type FieldWordsTable = Readonly<Record<string, FieldWords>>;

/** The words of the help section itself. */
export interface ScenarioHelpWords {
  readonly title: string;
  readonly scenarioFile: string;
}

export const SCENARIO_HELP_WORDS: Readonly<Record<Lang, ScenarioHelpWords>> = {
  en: {
    title: 'Scenario (flags override --scenario; defaults as in docs/scenario.md):',
    scenarioFile: 'a scenario JSON object, or JSON Lines of many (one result each)',
  },
  zh: {
    title: '场景（参数覆盖 --scenario 中的设置；默认值见 docs/scenario.md）：',
    scenarioFile: '场景 JSON 对象，或多行 JSON Lines（每行一个结果）',
  },
};

const EN: { readonly [P in FieldPath]: FieldWords } = {
  model: { label: 'Model', help: 'catalog id, HF repo id, config.json path or model folder' },
  method: { label: 'Method', help: '' },
  'lora.rank': {
    label: 'LoRA rank',
    help: 'LoRA rank',
    limit: { unit: '', why: "above every model's hidden size, where a rank adds nothing" },
  },
  'lora.alpha': { label: 'LoRA alpha', help: 'LoRA alpha', default: '-' },
  'lora.dropout': { label: 'LoRA dropout', help: 'LoRA dropout' },
  'lora.targets': { label: 'LoRA targets', help: 'q_proj,v_proj | all-linear | ...' },
  'lora.adapterDtype': {
    label: 'Adapter dtype (fp32: PEFT; model: torchtune, litgpt)',
    help: "the adapters' dtype (PEFT keeps them fp32; torchtune and litgpt's bf16-true keep the model's)",
    default: 'fp32',
  },
  'lora.modulesToSave': { label: 'Modules trained in full', help: 'embed_tokens,lm_head' },
  trainableLayers: {
    label: 'Trainable layers',
    help: 'top blocks trained with --method freeze',
    limit: { unit: 'layers', why: 'deeper than any model' },
  },
  quantization: { label: 'Base quantization', help: '' },
  quantizer: {
    label: 'Quantized by (torchao: torchtune)',
    help: "who quantized the base (torchao: torchtune's NF4, whose scales FSDP shards with the codes)",
    default: 'bitsandbytes',
  },
  quantizeHead: {
    label: 'Output head quantized too',
    help: 'the output head is quantized too (Lightning/litgpt; HF keeps it 16-bit)',
  },
  quantizedFrom: {
    label: 'Quantized from',
    help: 'what bitsandbytes dequantizes back into',
    default: "bf16 for bf16-true, else fp16: HF's load dtype when none is given",
  },
  quantizedInputsKept: {
    label: 'Inputs kept by 4-bit layers (bitsandbytes < 0.43.2)',
    help: 'how long a bitsandbytes layer keeps its input (4-bit before bitsandbytes 0.43.2: step under HF Trainer, next-forward in litgpt or a plain loop)',
    default: 'none; int8: step',
  },
  precision: {
    label: 'Precision',
    help: '',
    default:
      'bf16-true for lora and qlora (a 16-bit base), bf16-mixed for full and freeze, and for a base loaded in fp32',
  },
  loadDtype: {
    label: 'Load dtype',
    help: "the dtype from_pretrained loads the base in (fp32: no torch_dtype before transformers 5; auto: the checkpoint's)",
    default: 'the dtype it trains in',
  },
  prepareKbitUpcast: {
    label: 'prepare_model_for_kbit_training',
    help: 'PEFT casts the 16-bit parameters a bitsandbytes base does not quantize to fp32: kept for the run, or cast back after loading (TRL, Axolotl)',
    default: 'not called',
  },
  modelCode: {
    label: 'Model code',
    help: "whose code builds the layers: transformers, or litgpt's GPT (one fused qkv linear with one LoRA adapter zero-padded into it; multi-head attention keeps the qkv output through v)",
    default: 'transformers',
  },
  cachingAllocatorWarmup: {
    label: 'Caching allocator warmup',
    help: "transformers reserves the model's bytes in one block before loading the weights",
  },
  optimizer: { label: 'Optimizer', help: '' },
  microBatchSize: {
    label: 'Micro-batch',
    help: 'sequences per GPU per step',
    limit: { unit: 'sequences', why: 'far past any per-GPU batch a fine-tuning recipe uses' },
  },
  seqLen: {
    label: 'Sequence length',
    help: 'tokens per sequence (--seq-len takes 8k for 8192)',
    limit: { unit: 'tokens', why: "Llama 4 Scout's 10M-token context, the longest of any model" },
  },
  gradAccumSteps: {
    label: 'Grad. accumulation',
    help: 'micro-batches per optimizer step',
    limit: { unit: 'micro-batches', why: 'far past any accumulation a recipe uses' },
  },
  optimizerInBackward: {
    label: 'Optimizer step in backward',
    help: 'step each parameter in backward and free its gradient (torchtune optimizer_in_bwd; needs --grad-accum 1)',
  },
  fusedOptimizer: {
    label: 'Fused optimizer kernel (torch fused=True)',
    help: "torch's fused AdamW/SGD kernel (fused=True, HF adamw_torch_fused): no state-sized temporary in the optimizer step",
    helpNo:
      "the foreach kernel, over a config's fused one (torch < 2.8 with an HF config that names no optim)",
  },
  gradientCheckpointing: { label: 'Checkpointing', help: '' },
  checkpointEvery: {
    label: 'Checkpoint every Nth layer',
    help: 'with every-nth: every Nth decoder layer is fully checkpointed, the others keep everything (torchtitan selective_ac_option, torchtune ac_option)',
    limit: { unit: 'layers', why: 'the deepest models have a few hundred layers' },
    default: '2',
  },
  attention: { label: 'Attention', help: '' },
  loss: { label: 'Loss', help: '' },
  torchCompile: {
    label: 'torch.compile (model and loss)',
    help: 'torch.compile on the model and loss (torchtune compile, HF torch_compile): a compiled chunked loss keeps no fp32 logits',
    helpNo: 'not compiled, over a config that compiles',
  },
  'parallelism.strategy': { label: 'Parallelism', help: '' },
  'parallelism.gpus': {
    label: 'GPUs',
    help: 'GPUs in the run (alone, more than 1 means ddp)',
    limit: { unit: 'GPUs', why: 'the size of the largest training clusters' },
  },
  'parallelism.wrapEmbeddings': {
    label: 'Embeddings and head as their own FSDP units',
    help: 'FSDP: embeddings and head are units of their own, not in the root unit FSDP keeps gathered (torchtune custom_sharded_layers)',
  },
  'parallelism.syncEachMicroBatch': {
    label: 'Reduce-scatter every micro-batch',
    help: 'FSDP: reduce-scatter every micro-batch instead of accumulating unsharded gradients in no_sync() (torchtune, sync_each_batch)',
  },
  'parallelism.fsdpVersion': {
    label: 'FSDP version',
    help: '1: FullyShardedDataParallel (flat parameters); 2: fully_shard (per-parameter shards, torch >= 2.4)',
    default: '1',
  },
  'parallelism.frozenParamGrads': {
    label: 'FSDP1: frozen parameters get gradients',
    help: 'FSDP1 use_orig_params=True with trained and frozen parameters in one unit: the flat gradient covers the frozen ones (Lightning Fabric, litgpt < 0.5.11)',
  },
  'parallelism.gatherDtype': {
    label: 'FSDP all-gather dtype',
    help: 'compute | fp32: the dtype units are all-gathered in (fp32: Lightning FSDPPrecision bf16-mixed, param_dtype=fp32)',
    default: 'compute',
  },
  'parallelism.reduceDtype': {
    label: 'FSDP reduce-scatter dtype',
    help: 'compute | fp32: the dtype gradients are reduce-scattered in (fp32: torchtitan MixedPrecisionPolicy reduce_dtype)',
    default: 'compute',
  },
  'parallelism.reduceBucketSize': {
    label: 'ZeRO reduce bucket (elements, or auto; empty: 5e8)',
    help: 'DeepSpeed reduce_bucket_size in elements, or auto (hidden_size², as the HF integration fills it)',
    default: "5e8, DeepSpeed's",
  },
  'parallelism.overlapComm': {
    label: 'overlap_comm (two reduce buckets)',
    help: 'DeepSpeed overlap_comm: ZeRO-1/2 keep two reduce buckets',
  },
  'offload.optimizer': { label: 'Optimizer offload', help: 'where the optimizer states go (ZeRO or FSDP)' },
  'offload.params': { label: 'Parameter offload', help: 'where the parameters go (ZeRO-3 or FSDP)' },
  'offload.activations': {
    label: 'Offload activations to CPU memory',
    help: 'saved activations wait in pinned CPU memory (HF gradient_checkpointing_kwargs offload, TRL/torchtune activation offloading, Unsloth/Axolotl offloaded ckpt)',
    default: 'none',
  },
  expandableSegments: {
    label: 'Allocator: expandable segments',
    help: 'the run sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: a smaller allocator reserve (reserved and nvidia-smi levels)',
    helpNo: 'the default allocator, over a scenario file that sets it',
  },
  gpu: { label: 'GPU', help: 'catalog GPU to check the fit against (headroom gpus)' },
  framework: { label: 'Framework', help: 'the stack that trains' },
  versions: {
    label: 'Package versions',
    help: 'package versions, e.g. torch=2.5.1,transformers=4.46.0,bitsandbytes=0.44.1',
  },
  padding: {
    label: 'Padding',
    help: 'each batch padded to its longest sample (seq-len is the cap), to seq-len, or packed to seq-len',
  },
  'evaluation.microBatchSize': {
    label: 'Evaluation batch',
    help: 'sequences per GPU per evaluation batch (per_device_eval_batch_size); the run evaluates between steps',
    default: 'no evaluation; with a framework, its default',
    limit: { unit: 'sequences', why: 'far past any per-GPU batch a fine-tuning recipe uses' },
  },
  'evaluation.batches': {
    label: 'Evaluation batches kept',
    help: "evaluation batches whose logits stay on the GPU at once (the eval set's batches per GPU, or eval_accumulation_steps)",
    limit: { unit: 'batches', why: 'far past any evaluation set' },
  },
  'evaluation.keepLogits': {
    label: 'Keep evaluation logits',
    help: "the trainer keeps each evaluation batch's logits on the GPU for metrics (HF Trainer with compute_metrics)",
  },
  'evaluation.generateTokens': {
    label: 'Generation length',
    help: 'sample generation during evaluation: the KV cache length in tokens (prompt and new tokens)',
    default: 'no generation',
    limit: { unit: 'tokens', why: 'longer than any released model reads' },
  },
  'evaluation.generateBatch': {
    label: 'Generation batch',
    help: 'sequences generated at once',
    default: 'the evaluation batch',
    limit: { unit: 'sequences', why: 'far past any per-GPU batch a fine-tuning recipe uses' },
  },
};

const ZH: { readonly [P in FieldPath]: FieldWords } = {
  model: { label: '模型', help: '目录 id、HF 仓库 id、config.json 路径或模型文件夹' },
  method: { label: '方法', help: '' },
  'lora.rank': {
    label: 'LoRA 秩',
    help: 'LoRA 的秩',
    limit: { unit: '', why: '超过所有模型的隐藏层大小，更高的秩没有意义' },
  },
  'lora.alpha': { label: 'LoRA alpha', help: 'LoRA 的 alpha', default: '-' },
  'lora.dropout': { label: 'LoRA dropout', help: 'LoRA 的 dropout 比例' },
  'lora.targets': { label: 'LoRA 目标模块', help: 'q_proj,v_proj | all-linear | …（目标模块）' },
  'lora.adapterDtype': {
    label: '适配器数据类型（fp32：PEFT；model：torchtune、litgpt）',
    help: '适配器的数据类型（PEFT 保持 fp32；torchtune 和 litgpt 的 bf16-true 使用模型的类型）',
    default: 'fp32',
  },
  'lora.modulesToSave': { label: '完整训练的模块', help: '完整训练的模块，例如 embed_tokens,lm_head' },
  trainableLayers: {
    label: '可训练层数',
    help: '--method freeze 时训练的顶部层数',
    limit: { unit: '层', why: '比任何模型都深' },
  },
  quantization: { label: '基座量化', help: '' },
  quantizer: {
    label: '量化库（torchao：torchtune）',
    help: '由谁量化基座（torchao：torchtune 的 NF4，FSDP 会把其缩放因子与量化码一起分片）',
    default: 'bitsandbytes',
  },
  quantizeHead: {
    label: '输出头也量化',
    help: '输出头也被量化（Lightning/litgpt；HF 保持其为 16 位）',
  },
  quantizedFrom: {
    label: '量化前的精度',
    help: 'bitsandbytes 反量化回的数据类型',
    default: 'bf16-true 时为 bf16，否则为 fp16：HF 未指定时的加载类型',
  },
  quantizedInputsKept: {
    label: '量化层保留的输入（bitsandbytes < 0.43.2）',
    help: 'bitsandbytes 层把输入保留多久（bitsandbytes 0.43.2 之前的 4 位层：HF Trainer 下为 step，litgpt 或普通循环中为 next-forward）',
    default: 'none；int8：step',
  },
  precision: {
    label: '精度',
    help: '',
    default: 'lora 和 qlora 为 bf16-true（16 位基座），full 和 freeze 以及以 fp32 加载的基座为 bf16-mixed',
  },
  loadDtype: {
    label: '加载精度',
    help: 'from_pretrained 加载基座所用的 dtype（fp32：transformers 5 之前未给 torch_dtype；auto：检查点自身的 dtype）',
    default: '训练所用的 dtype',
  },
  prepareKbitUpcast: {
    label: 'prepare_model_for_kbit_training',
    help: 'PEFT 把 bitsandbytes 基座中未量化的 16 位参数转为 fp32：整个运行保持（kept），或加载后转回（cast-back，TRL、Axolotl）',
    default: '不调用',
  },
  modelCode: {
    label: '模型代码',
    help: '由谁的代码构建各层：transformers，或 litgpt 的 GPT（q/k/v 融合为一个线性层，只有一个 LoRA 适配器并零填充进其输出；多头注意力通过 v 保留整个 qkv 输出）',
    default: 'transformers',
  },
  cachingAllocatorWarmup: {
    label: '缓存分配器预热',
    help: 'transformers 在加载权重之前，一次性按模型的字节数预留一整块显存',
  },
  optimizer: { label: '优化器', help: '' },
  microBatchSize: {
    label: '微批大小',
    help: '每块 GPU 每步的序列数',
    limit: { unit: '条序列', why: '远超任何微调配方的单卡批大小' },
  },
  seqLen: {
    label: '序列长度',
    help: '每条序列的 token 数（--seq-len 可写作 8k，即 8192）',
    limit: { unit: 'token', why: 'Llama 4 Scout 的 1000 万 token 上下文，是所有模型中最长的' },
  },
  gradAccumSteps: {
    label: '梯度累积',
    help: '每次优化器更新累积的 micro-batch 数',
    limit: { unit: '个 micro-batch', why: '远超任何配方的累积步数' },
  },
  optimizerInBackward: {
    label: '在反向传播中执行优化器更新',
    help: '在反向传播中逐个参数更新并释放其梯度（torchtune optimizer_in_bwd；需要 --grad-accum 1）',
  },
  fusedOptimizer: {
    label: '融合优化器内核（torch fused=True）',
    help: 'torch 的融合 AdamW/SGD 内核（fused=True，HF adamw_torch_fused）：优化器更新中没有与状态等大的临时量',
    helpNo: '使用 foreach 内核，覆盖配置中的融合内核（torch < 2.8 且 HF 配置未指定 optim 时）',
  },
  gradientCheckpointing: { label: '梯度检查点', help: '' },
  checkpointEvery: {
    label: '每隔 N 层做一次检查点',
    help: '配合 every-nth：每隔 N 个解码层对一层做完整检查点，其余层保留全部激活（torchtitan selective_ac_option，torchtune ac_option）',
    limit: { unit: '层', why: '最深的模型也只有几百层' },
    default: '2',
  },
  attention: { label: '注意力实现', help: '' },
  loss: { label: '损失计算', help: '' },
  torchCompile: {
    label: 'torch.compile（模型与损失）',
    help: '对模型和损失使用 torch.compile（torchtune compile，HF torch_compile）：编译后的分块损失不保留 fp32 logits',
    helpNo: '不编译，覆盖配置中的编译设置',
  },
  'parallelism.strategy': { label: '并行策略', help: '' },
  'parallelism.gpus': {
    label: 'GPU 数量',
    help: '运行使用的 GPU 数（单独给出且大于 1 时表示 ddp）',
    limit: { unit: '块 GPU', why: '最大训练集群的规模' },
  },
  'parallelism.wrapEmbeddings': {
    label: '词嵌入与输出头单独作为 FSDP 单元',
    help: 'FSDP：嵌入层和输出头作为独立单元，而不留在 FSDP 一直聚合的根单元中（torchtune custom_sharded_layers）',
  },
  'parallelism.syncEachMicroBatch': {
    label: '每个微批都做 reduce-scatter',
    help: 'FSDP：每个 micro-batch 都做 reduce-scatter，而不是在 no_sync() 中累积未分片的梯度（torchtune，sync_each_batch）',
  },
  'parallelism.fsdpVersion': {
    label: 'FSDP 版本',
    help: '1：FullyShardedDataParallel（扁平参数）；2：fully_shard（逐参数分片，torch >= 2.4）',
    default: '1',
  },
  'parallelism.frozenParamGrads': {
    label: 'FSDP1：冻结参数也有梯度',
    help: 'FSDP1 use_orig_params=True 且同一单元中既有训练参数也有冻结参数：扁平梯度也覆盖冻结参数（Lightning Fabric，litgpt < 0.5.11）',
  },
  'parallelism.gatherDtype': {
    label: 'FSDP all-gather 数据类型',
    help: 'compute | fp32：单元 all-gather 时的数据类型（fp32：Lightning FSDPPrecision bf16-mixed，param_dtype=fp32）',
    default: 'compute',
  },
  'parallelism.reduceDtype': {
    label: 'FSDP reduce-scatter 数据类型',
    help: 'compute | fp32：梯度 reduce-scatter 时的数据类型（fp32：torchtitan MixedPrecisionPolicy reduce_dtype）',
    default: 'compute',
  },
  'parallelism.reduceBucketSize': {
    label: 'ZeRO 归约桶（元素数或 auto；留空为 5e8）',
    help: 'DeepSpeed 的 reduce_bucket_size（元素数），或 auto（hidden_size²，HF 集成填入的值）',
    default: '5e8，DeepSpeed 的默认值',
  },
  'parallelism.overlapComm': {
    label: 'overlap_comm（两个归约桶）',
    help: 'DeepSpeed overlap_comm：ZeRO-1/2 保留两个归约桶',
  },
  'offload.optimizer': { label: '优化器卸载', help: '优化器状态放到哪里（ZeRO 或 FSDP）' },
  'offload.params': { label: '参数卸载', help: '参数放到哪里（ZeRO-3 或 FSDP）' },
  'offload.activations': {
    label: '把激活卸载到 CPU 内存',
    help: '保存的激活在锁页 CPU 内存中等待（HF gradient_checkpointing_kwargs offload，TRL/torchtune 激活卸载，Unsloth/Axolotl 卸载式检查点）',
    default: 'none',
  },
  expandableSegments: {
    label: '分配器：可扩展段',
    help: '运行时设置 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True：分配器预留更少（影响 reserved 和 nvidia-smi 两级）',
    helpNo: '使用默认分配器，覆盖场景文件中的设置',
  },
  gpu: { label: 'GPU', help: '用来判断是否放得下的目录 GPU（headroom gpus）' },
  framework: { label: '训练框架', help: '运行训练的框架' },
  versions: {
    label: '包版本',
    help: '包版本，例如 torch=2.5.1,transformers=4.46.0,bitsandbytes=0.44.1',
  },
  padding: {
    label: '填充方式',
    help: '每个批次填充到其最长样本（seq-len 为上限）、填充到 seq-len，或打包到 seq-len',
  },
  'evaluation.microBatchSize': {
    label: '评估批大小',
    help: '每块 GPU 每个评估批次的序列数（per_device_eval_batch_size）；运行在训练步之间做评估',
    default: '不评估；指明框架时取框架的默认值',
    limit: { unit: '条序列', why: '远超任何微调配方的单卡批大小' },
  },
  'evaluation.batches': {
    label: '保留 logits 的评估批次数',
    help: '同时留在 GPU 上的评估批次 logits 数（每块 GPU 的评估集批次数，或 eval_accumulation_steps）',
    limit: { unit: '个批次', why: '远超任何评估集' },
  },
  'evaluation.keepLogits': {
    label: '保留评估 logits',
    help: '训练器为计算指标把每个评估批次的 logits 留在 GPU 上（HF Trainer 设置了 compute_metrics 时）',
  },
  'evaluation.generateTokens': {
    label: '生成长度',
    help: '评估时生成样例：KV cache 的长度（token 数，含提示词与新 token）',
    default: '不生成',
    limit: { unit: 'token', why: '比任何已发布模型能读的都长' },
  },
  'evaluation.generateBatch': {
    label: '生成批大小',
    help: '同时生成的序列数',
    default: '评估批大小',
    limit: { unit: '条序列', why: '远超任何微调配方的单卡批大小' },
  },
};

export const FIELD_WORDS: Readonly<Record<Lang, { readonly [P in FieldPath]: FieldWords }>> = {
  en: EN,
  zh: ZH,
};

type Everything = { readonly [P in FieldPath]: Readonly<Record<never, never>> };

function rendered(words: { readonly [P in FieldPath]: FieldWords }) {
  return Object.fromEntries(
    Object.entries(words).map(([path, w]) => [
      path,
      () => [w.label, w.help, w.helpNo, w.default, w.limit?.unit, w.limit?.why].filter(Boolean).join(' — '),
    ]),
  ) as { readonly [P in FieldPath]: () => string };
}

/** The field words as a catalog domain, so the catalog's test renders every field in both languages. */
export const FIELD_WORDS_DOMAIN = defineDomain<Everything>({
  name: 'fields',
  words: { en: rendered(EN), zh: rendered(ZH) },
  examples: Object.fromEntries(Object.keys(EN).map((path) => [path, {}])) as Everything,
});
