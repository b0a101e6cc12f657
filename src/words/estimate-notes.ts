/** The words of an estimate's notes (src/core/estimate-notes.ts), in English and Chinese. */
import type { EstimateNoteParams } from '../core/estimate-notes.js';
import { defineDomain } from './catalog.js';

export const ESTIMATE_NOTES = defineDomain<EstimateNoteParams>({
  name: 'estimate-notes',
  words: {
    en: {
      'paged-optimizer': () =>
        'paged optimizer states live in CUDA managed memory: counted by nvidia-smi, not by torch allocated',
      'exact-params': (p, f) =>
        `parameter count ${f.count(p.fromWeights)} read from the weight files (the config alone gives ${f.count(p.fromConfig)})`,
      'fsdp-no-sync': (p, f) =>
        `FSDP accumulates whole, unsharded gradients inside no_sync() between syncs (${f.bytes(p.bytes)} here): reduce-scattering every micro-batch keeps one shard (--sync-each-micro-batch; Accelerate sync_each_batch=True)`,
      'fsdp-root': (p, f) =>
        `FSDP keeps its root unit (embeddings and output head) gathered through forward and backward: ${f.bytes(p.bytes)} here; wrapping them as units of their own avoids it (--wrap-embeddings; torchtune custom_sharded_layers)`,
      'past-learned-positions': (p) =>
        `sequence ${p.seqLen} is longer than the model's ${p.positions} learned positions: it cannot run at this length (its position table has no row past ${p.positions}); the memory is for the length as given`,
      'past-context': (p) =>
        `sequence ${p.seqLen} is past the model's ${p.context}-token context window: the memory is for the length as given, but training that long needs RoPE scaling (rope_scaling in config.json) and quality past the window is not assured`,
      'eager-attention': () =>
        'eager attention keeps s×s scores per head: sdpa or flash would remove that term',
      'fp32-math-attention': (p, f) =>
        `fp32 attention over grouped KV heads runs SDPA's math path (no fused kernel takes fp32 with GQA), which keeps each head's s×s softmax: ${f.bytes(p.bytes)} here; bf16 or fp16 compute runs the fused kernels without it`,
      'compile-standard-loss': () =>
        "torch.compile's cross-entropy makes the logits' gradient in one kernel, but with the standard loss the fp32 logits stay in the estimate, which is high if the upcast runs inside the compiled model (Hugging Face's does); a chunked loss drops them",
      'compile-no-checkpointing': () =>
        'torch.compile also recomputes elementwise ops instead of saving them, which the estimate does not count: without checkpointing it is high',
      'zero-default-bucket': (p, f) =>
        `DeepSpeed's default reduce bucket (5e8 elements) takes ${f.bytes(p.bytes)} on every GPU; "auto" (hidden², what the Hugging Face integration fills in) would take ${f.bytes(p.autoBytes)}: say which your config uses with --reduce-bucket-size`,
    },
    zh: {
      'paged-optimizer': () =>
        '分页优化器状态位于 CUDA 托管内存中：nvidia-smi 会计入，torch allocated 不计入',
      'exact-params': (p, f) =>
        `参数量 ${f.count(p.fromWeights)} 读自权重文件（仅凭 config 得到 ${f.count(p.fromConfig)}）`,
      'fsdp-no-sync': (p, f) =>
        `FSDP 在两次同步之间于 no_sync() 内累积完整、未分片的梯度（此处 ${f.bytes(p.bytes)}）：每个 micro-batch 都做 reduce-scatter 只保留一个分片（--sync-each-micro-batch；Accelerate sync_each_batch=True）`,
      'fsdp-root': (p, f) =>
        `FSDP 在前向和反向传播期间一直聚合其根单元（嵌入层和输出头）：此处 ${f.bytes(p.bytes)}；把它们包装成独立单元即可避免（--wrap-embeddings；torchtune custom_sharded_layers）`,
      'past-learned-positions': (p) =>
        `序列长度 ${p.seqLen} 超过模型学到的 ${p.positions} 个位置：无法以此长度运行（位置表没有第 ${p.positions} 行之后的内容）；显存按给定长度计算`,
      'past-context': (p) =>
        `序列长度 ${p.seqLen} 超过模型 ${p.context} token 的上下文窗口：显存按给定长度计算，但训练这么长需要 RoPE 缩放（config.json 中的 rope_scaling），且超出窗口的质量没有保证`,
      'eager-attention': () => 'eager 注意力为每个头保留 s×s 的分数：sdpa 或 flash 可以去掉这一项',
      'fp32-math-attention': (p, f) =>
        `fp32 注意力在分组 KV 头（GQA）上走 SDPA 的 math 路径（没有融合内核同时支持 fp32 和 GQA），会为每个头保存 s×s 的 softmax：此处 ${f.bytes(p.bytes)}；用 bf16 或 fp16 计算会走融合内核，没有这一项`,
      'compile-standard-loss': () =>
        'torch.compile 的交叉熵在一个内核中直接求出 logits 的梯度，但使用标准损失时估算仍包含 fp32 logits；若上转型在编译后的模型内部进行（Hugging Face 即如此），估算偏高；分块损失可去掉这一项',
      'compile-no-checkpointing': () =>
        'torch.compile 还会重算逐元素运算而不是保存其结果，估算没有计入：不使用检查点时估算偏高',
      'zero-default-bucket': (p, f) =>
        `DeepSpeed 默认的归约桶（5e8 个元素）在每块 GPU 上占 ${f.bytes(p.bytes)}；"auto"（hidden²，Hugging Face 集成填入的值）只占 ${f.bytes(p.autoBytes)}：用 --reduce-bucket-size 说明你的配置用哪个`,
    },
  },
  examples: {
    'paged-optimizer': {},
    'exact-params': { fromWeights: 8_030_261_248, fromConfig: 8_030_261_248 - 4096 },
    'fsdp-no-sync': { bytes: 2 ** 33 },
    'fsdp-root': { bytes: 2 ** 31 },
    'past-learned-positions': { seqLen: 4096, positions: 2048 },
    'past-context': { seqLen: 262_144, context: 131_072 },
    'eager-attention': {},
    'fp32-math-attention': { bytes: 2 ** 32 },
    'compile-standard-loss': {},
    'compile-no-checkpointing': {},
    'zero-default-bucket': { bytes: 10 ** 9, autoBytes: 2 ** 27 },
  },
});
