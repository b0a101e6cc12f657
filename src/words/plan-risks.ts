/**
 * The words of a rung's risk (src/core/plan.ts, RiskParams): what could go wrong, in English and
 * Chinese; the level (none, low, medium, high) is shown apart.
 */
import type { RiskParams } from '../core/plan.js';
import { defineDomain } from './catalog.js';

export const PLAN_RISKS = defineDomain<RiskParams>({
  name: 'plan-risks',
  words: {
    en: {
      'same-training': () => 'none: the same training, computed differently',
      'allocator-setting': () =>
        'none: the same training; an environment variable (PyTorch 2.1 or later, Linux). Step time on the H200: a median 1.00× over twelve runs',
      'newer-bitsandbytes': () => 'none: the same training; a newer bitsandbytes',
      'same-effective-batch': () => 'none: same effective batch, more and smaller steps',
      'compile-warmup': () =>
        'the first steps wait for compilation (minutes); inputs whose shapes change from batch to batch recompile unless padded to a few fixed lengths',
      'smaller-reductions': () => 'none: the same training; more, smaller gradient reductions',
      'reduce-scatter-each-micro-batch': () => 'none: the same training; one reduce-scatter per micro-batch',
      'more-all-gathers': () => 'none: the same training; two more all-gathers per micro-batch',
      'truncated-samples': (p) =>
        `quality: samples longer than ${p.seqLen} tokens are truncated (or must be split)`,
      'no-fp32-master-weights': () =>
        'quality: no fp32 master weights — small updates can round away in bf16 (Kahan summation or stochastic rounding help)',
      'bf16-frozen-base': () => 'quality: the frozen base is held in bf16; the adapters stay fp32',
      '8bit-states': () =>
        'quality: block-wise 8-bit states matched 32-bit Adam in Dettmers et al. 2022 (8-bit Optimizers via Block-wise Quantization)',
      'low-rank-adapters': () =>
        'quality: trains low-rank adapters, not the weights — usually close to full fine-tuning, can fall short far from the pretraining data',
      '4bit-base': () =>
        'quality: 4-bit base weights — the QLoRA paper matched 16-bit LoRA on its benchmarks, but quantization error is real; dequantization slows each matmul',
      'zero2-reduce-scatter': () =>
        'none: the same training; gradients are reduce-scattered every micro-batch',
      'zero3-gathers': () =>
        'none: the same training; weights are gathered layer by layer, twice per micro-batch',
      'pinned-activations': (p, f) =>
        `needs ${f.bytes(p.cpuBytes)} of pinned CPU RAM per node; the saved activations cross PCIe twice per micro-batch`,
      'cpu-optimizer-step': (p, f) =>
        `needs ${f.bytes(p.cpuBytes)} of CPU RAM per node; the optimizer step runs on the CPU`,
      'cpu-parameters': (p, f) =>
        `needs ${f.bytes(p.cpuBytes)} of CPU RAM per node; every layer crosses PCIe twice per micro-batch`,
      'nvme-bound': (p, f) =>
        `needs ${f.bytes(p.nvmeBytes)} of NVMe and ${f.bytes(p.cpuBytes)} of CPU RAM per node; steps are bound by NVMe bandwidth`,
      'other-hardware': () => 'none: different hardware, the same training',
    },
    zh: {
      'same-training': () => '无：训练相同，只是计算方式不同',
      'allocator-setting': () =>
        '无：训练相同；一个环境变量（PyTorch 2.1 或更高，Linux）。H200 上的步时：12 次运行的中位数 1.00×',
      'newer-bitsandbytes': () => '无：训练相同；只是更新的 bitsandbytes',
      'same-effective-batch': () => '无：有效批量相同，步数更多、每步更小',
      'compile-warmup': () =>
        '首几步要等待编译（数分钟）；形状随批次变化的输入会重新编译，除非填充到少数固定长度',
      'smaller-reductions': () => '无：训练相同；梯度归约次数更多、每次更小',
      'reduce-scatter-each-micro-batch': () => '无：训练相同；每个 micro-batch 多一次 reduce-scatter',
      'more-all-gathers': () => '无：训练相同；每个 micro-batch 多两次 all-gather',
      'truncated-samples': (p) => `质量：超过 ${p.seqLen} 个 token 的样本会被截断（或需要切分）`,
      'no-fp32-master-weights': () =>
        '质量：没有 fp32 主权重——很小的更新可能在 bf16 中被舍入掉（Kahan 求和或随机舍入有帮助）',
      'bf16-frozen-base': () => '质量：冻结的基座以 bf16 保存；适配器仍为 fp32',
      '8bit-states': () =>
        '质量：分块 8 位状态在 Dettmers 等人 2022 年的工作（8-bit Optimizers via Block-wise Quantization）中与 32 位 Adam 效果相当',
      'low-rank-adapters': () =>
        '质量：训练的是低秩适配器而非权重——通常接近全量微调，远离预训练数据时可能不足',
      '4bit-base': () =>
        '质量：4 位基座权重——QLoRA 论文在其基准上追平了 16 位 LoRA，但量化误差确实存在；反量化会拖慢每次矩阵乘',
      'zero2-reduce-scatter': () => '无：训练相同；每个 micro-batch 都 reduce-scatter 梯度',
      'zero3-gathers': () => '无：训练相同；权重逐层聚合，每个 micro-batch 两次',
      'pinned-activations': (p, f) =>
        `每个节点需要 ${f.bytes(p.cpuBytes)} 锁页 CPU 内存；保存的激活每个 micro-batch 两次经过 PCIe`,
      'cpu-optimizer-step': (p, f) => `每个节点需要 ${f.bytes(p.cpuBytes)} CPU 内存；优化器更新在 CPU 上执行`,
      'cpu-parameters': (p, f) =>
        `每个节点需要 ${f.bytes(p.cpuBytes)} CPU 内存；每一层每个 micro-batch 两次经过 PCIe`,
      'nvme-bound': (p, f) =>
        `每个节点需要 ${f.bytes(p.nvmeBytes)} NVMe 和 ${f.bytes(p.cpuBytes)} CPU 内存；速度受 NVMe 带宽限制`,
      'other-hardware': () => '无：硬件不同，训练相同',
    },
  },
  examples: {
    'same-training': {},
    'allocator-setting': {},
    'newer-bitsandbytes': {},
    'same-effective-batch': {},
    'compile-warmup': {},
    'smaller-reductions': {},
    'reduce-scatter-each-micro-batch': {},
    'more-all-gathers': {},
    'truncated-samples': { seqLen: 8256 },
    'no-fp32-master-weights': {},
    'bf16-frozen-base': {},
    '8bit-states': {},
    'low-rank-adapters': {},
    '4bit-base': {},
    'zero2-reduce-scatter': {},
    'zero3-gathers': {},
    'pinned-activations': { cpuBytes: 2 ** 34 },
    'cpu-optimizer-step': { cpuBytes: 2 ** 36 },
    'cpu-parameters': { cpuBytes: 2 ** 37 },
    'nvme-bound': { nvmeBytes: 2 ** 40, cpuBytes: 2 ** 35 },
    'other-hardware': {},
  },
});
