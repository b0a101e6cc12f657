/**
 * The words of a plan's rungs (src/core/plan.ts, RungChangeParams): what each rung changes, from the
 * values before and after it, in English and Chinese. The CLI's ladder, the dashboard's and the rungs a
 * plan dropped all read these.
 */
import type { RungChangeParams } from '../core/plan.js';
import type { Strategy } from '../core/scenario.js';
import { defineDomain } from './catalog.js';

/** How each sharding strategy is named in a rung: DeepSpeed's and PyTorch FSDP's own names. */
export const STRATEGY_NAMES: Readonly<Record<Strategy, string>> = {
  single: 'single',
  ddp: 'DDP',
  zero1: 'ZeRO-1',
  zero2: 'ZeRO-2',
  zero3: 'ZeRO-3',
  fsdp: 'FSDP FULL_SHARD',
  'fsdp-grad-op': 'FSDP SHARD_GRAD_OP',
};

/** The hardware alternative's layout, as `headroom plan` has always named it in English. */
const hardwareLayoutEn = (s: Strategy) => (s === 'zero3' ? 'ZeRO-3' : s === 'zero2' ? 'ZeRO-2' : s);

export const PLAN_RUNGS = defineDomain<RungChangeParams>({
  name: 'plan-rungs',
  words: {
    en: {
      'expandable-segments': () => 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True',
      'bitsandbytes-upgrade': () =>
        'upgrade bitsandbytes to 0.43.2 or later: 4-bit layers stop keeping their inputs',
      'sdpa-attention': () => 'attention: eager → sdpa',
      'smaller-micro-batch': (p) =>
        `micro-batch ${p.fromMicroBatch} → ${p.toMicroBatch}, accumulation ${p.fromAccumulation} → ${p.toAccumulation}`,
      'selective-checkpointing': () => 'selective activation checkpointing',
      'full-checkpointing': () => 'full gradient checkpointing',
      'chunked-loss': () => 'chunked cross-entropy loss',
      'compile-loss': () => 'torch.compile with the chunked loss',
      'fused-optimizer': (p) =>
        p.optimizer === 'adamw'
          ? 'fused AdamW kernel (torch fused=True; HF optim adamw_torch_fused)'
          : 'fused SGD kernel (torch fused=True)',
      'zero-reduce-bucket': (p, f) =>
        `DeepSpeed reduce_bucket_size ${f.elements(p.fromElements)} → auto (hidden² = ${f.elements(p.toElements)})`,
      'fsdp-sync-each-micro-batch': () =>
        'FSDP: reduce-scatter gradients every micro-batch (Accelerate sync_each_batch=True)',
      'fsdp-wrap-embeddings': () => 'FSDP: wrap the embeddings and output head as units of their own',
      'shorter-sequence': (p) => `sequence length ${p.fromSeqLen} → ${p.toSeqLen}`,
      'pure-bf16': (p) => `precision ${p.from} → bf16-true`,
      '8bit-optimizer': (p) => `optimizer ${p.from} → ${p.to}`,
      lora: (p) => `LoRA r${p.rank} on all linear layers`,
      qlora: () => 'QLoRA: 4-bit NF4 base (double quant)',
      zero2: (p) => `${STRATEGY_NAMES[p.strategy]} across ${p.gpus} GPUs`,
      zero3: (p) => `${STRATEGY_NAMES[p.strategy]} across ${p.gpus} GPUs`,
      'offload-activations-cpu': (p) =>
        p.checkpointing === 'full'
          ? 'activation offload to CPU (the checkpointed layer inputs)'
          : 'activation offload to CPU (every saved activation)',
      'offload-optimizer-cpu': (p) =>
        `optimizer offload to CPU (${p.strategy === 'zero2' ? 'ZeRO-Offload' : p.strategy})`,
      'offload-params-cpu': (p) =>
        `parameter offload to CPU (${p.strategy === 'zero3' ? 'ZeRO-3' : 'FSDP CPUOffload'})`,
      'offload-nvme': () => 'NVMe offload (ZeRO-Infinity)',
      hardware: (p) =>
        `run on ${p.gpus} × ${p.gpu}${p.gpus === 1 ? '' : ` with ${hardwareLayoutEn(p.strategy)}`} (${p.gpuName})`,
    },
    zh: {
      'expandable-segments': () => 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True（更小的分配器预留）',
      'bitsandbytes-upgrade': () => '升级 bitsandbytes 到 0.43.2 或更高：4 位层不再保留输入',
      'sdpa-attention': () => '注意力：eager → sdpa',
      'smaller-micro-batch': (p) =>
        `micro-batch ${p.fromMicroBatch} → ${p.toMicroBatch}，梯度累积 ${p.fromAccumulation} → ${p.toAccumulation}`,
      'selective-checkpointing': () => '选择性激活检查点',
      'full-checkpointing': () => '完整梯度检查点',
      'chunked-loss': () => '分块交叉熵损失',
      'compile-loss': () => '用 torch.compile 编译模型与分块损失',
      'fused-optimizer': (p) =>
        p.optimizer === 'adamw'
          ? '融合 AdamW 内核（torch fused=True；HF optim adamw_torch_fused）'
          : '融合 SGD 内核（torch fused=True）',
      'zero-reduce-bucket': (p, f) =>
        `DeepSpeed 归约桶 reduce_bucket_size ${f.elements(p.fromElements)} → auto（hidden² = ${f.elements(p.toElements)}）`,
      'fsdp-sync-each-micro-batch': () =>
        'FSDP：每个 micro-batch 都 reduce-scatter 梯度（Accelerate sync_each_batch=True）',
      'fsdp-wrap-embeddings': () => 'FSDP：把嵌入层和输出头包装成独立单元',
      'shorter-sequence': (p) => `序列长度 ${p.fromSeqLen} → ${p.toSeqLen}`,
      'pure-bf16': (p) => `精度 ${p.from} → bf16-true`,
      '8bit-optimizer': (p) => `优化器 ${p.from} → ${p.to}`,
      lora: (p) => `在所有线性层上使用 LoRA r${p.rank}`,
      qlora: () => 'QLoRA：4 位 NF4 基座（双重量化）',
      zero2: (p) => `${STRATEGY_NAMES[p.strategy]}，${p.gpus} 块 GPU`,
      zero3: (p) => `${STRATEGY_NAMES[p.strategy]}，${p.gpus} 块 GPU`,
      'offload-activations-cpu': (p) =>
        p.checkpointing === 'full'
          ? '把激活卸载到 CPU（检查点保存的层输入）'
          : '把激活卸载到 CPU（所有保存的激活）',
      'offload-optimizer-cpu': (p) =>
        `把优化器卸载到 CPU（${p.strategy === 'zero2' ? 'ZeRO-Offload' : p.strategy}）`,
      'offload-params-cpu': (p) =>
        `把参数卸载到 CPU（${p.strategy === 'zero3' ? 'ZeRO-3' : 'FSDP CPUOffload'}）`,
      'offload-nvme': () => '卸载到 NVMe（ZeRO-Infinity）',
      hardware: (p) =>
        `在 ${p.gpus} × ${p.gpu} 上运行${p.gpus === 1 ? '' : `，使用 ${STRATEGY_NAMES[p.strategy]}`}（${p.gpuName}）`,
    },
  },
  examples: {
    'expandable-segments': {},
    'bitsandbytes-upgrade': {},
    'sdpa-attention': {},
    'smaller-micro-batch': { fromMicroBatch: 4, toMicroBatch: 1, fromAccumulation: 1, toAccumulation: 4 },
    'selective-checkpointing': {},
    'full-checkpointing': {},
    'chunked-loss': {},
    'compile-loss': {},
    'fused-optimizer': { optimizer: 'adamw' },
    'zero-reduce-bucket': { fromElements: 5e8, toElements: 4096 ** 2 },
    'fsdp-sync-each-micro-batch': {},
    'fsdp-wrap-embeddings': {},
    'shorter-sequence': { fromSeqLen: 8192, toSeqLen: 4096 },
    'pure-bf16': { from: 'bf16-mixed' },
    '8bit-optimizer': { from: 'adamw', to: 'adamw-8bit' },
    lora: { rank: 16 },
    qlora: {},
    zero2: { strategy: 'zero2', gpus: 8 },
    zero3: { strategy: 'fsdp', gpus: 8 },
    'offload-activations-cpu': { checkpointing: 'full' },
    'offload-optimizer-cpu': { strategy: 'zero2' },
    'offload-params-cpu': { strategy: 'zero3' },
    'offload-nvme': {},
    hardware: { gpu: 'h100-sxm', gpuName: 'NVIDIA H100 SXM 80GB', gpus: 2, strategy: 'zero3' },
  },
});
