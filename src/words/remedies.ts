/**
 * The words of the changes a diagnosis prices (src/core/diagnose/remedy-codes.ts: a code and what the
 * change moves between), in English and Simplified Chinese.
 */
import type { Remedy } from '../core/diagnose/finding.js';
import type { RemedyParams } from '../core/diagnose/remedy-codes.js';
import { defineDomain, say } from './catalog.js';
import type { Lang } from './lang.js';

export const REMEDIES = defineDomain<RemedyParams>({
  name: 'remedies',
  words: {
    en: {
      'bitsandbytes-upgrade': () =>
        'bitsandbytes 0.43.2 or later (pip install -U bitsandbytes): 4-bit layers stop keeping their inputs',
      'micro-batch': (p) => `micro-batch ${p.from} → ${p.to} with more accumulation`,
      'gradient-checkpointing': (p) => `gradient checkpointing (${p.from} → ${p.to})`,
      'fused-loss': () => 'fused cross-entropy (Liger / Cut Cross-Entropy)',
      'compile-loss': () => 'torch.compile over the chunked loss (no fp32 copy of the logits)',
      'fused-optimizer': () => "torch's fused optimizer kernel (fused=True; HF optim adamw_torch_fused)",
      'offload-activations': () => 'saved activations offloaded to CPU memory (activation offloading)',
      sdpa: () => 'sdpa attention instead of eager',
      'shorter-seq': (p) => `sequence length ${p.from} → ${p.to}`,
      'bf16-true': (p) => `16-bit weights (${p.from} → ${p.to})`,
      lora: () => 'LoRA on a frozen base',
      qlora: () => '4-bit base with LoRA (QLoRA)',
      zero3: (p) => `ZeRO-3 across ${p.gpus} GPUs`,
      'adamw-8bit': (p) => `8-bit optimizer (${p.from} → ${p.to})`,
      zero2: (p) => `ZeRO-2 across ${p.gpus} GPUs`,
      'offload-optimizer': () => 'optimizer states offloaded to CPU (ZeRO-Offload)',
    },
    zh: {
      'bitsandbytes-upgrade': () =>
        '升级到 bitsandbytes 0.43.2 或更高版本（pip install -U bitsandbytes）：4 位层不再保留输入',
      'micro-batch': (p) => `micro-batch ${p.from} → ${p.to}，并增加梯度累积`,
      'gradient-checkpointing': (p) => `梯度检查点（${p.from} → ${p.to}）`,
      'fused-loss': () => '融合交叉熵（Liger / Cut Cross-Entropy）',
      'compile-loss': () => '用 torch.compile 编译分块损失（不再保留 logits 的 fp32 副本）',
      'fused-optimizer': () => '使用 torch 的融合优化器内核（fused=True；HF optim adamw_torch_fused）',
      'offload-activations': () => '把保存的激活卸载到 CPU 内存（激活卸载）',
      sdpa: () => '用 sdpa 注意力代替 eager',
      'shorter-seq': (p) => `序列长度 ${p.from} → ${p.to}`,
      'bf16-true': (p) => `16 位权重（${p.from} → ${p.to}）`,
      lora: () => '在冻结的基座上训练 LoRA',
      qlora: () => '4 位基座加 LoRA（QLoRA）',
      zero3: (p) => `在 ${p.gpus} 张 GPU 上使用 ZeRO-3`,
      'adamw-8bit': (p) => `8 位优化器（${p.from} → ${p.to}）`,
      zero2: (p) => `在 ${p.gpus} 张 GPU 上使用 ZeRO-2`,
      'offload-optimizer': () => '把优化器状态卸载到 CPU（ZeRO-Offload）',
    },
  },
  examples: {
    'bitsandbytes-upgrade': {},
    'micro-batch': { from: 4, to: 1 },
    'gradient-checkpointing': { from: 'none', to: 'full' },
    'fused-loss': {},
    'compile-loss': {},
    'fused-optimizer': {},
    'offload-activations': {},
    sdpa: {},
    'shorter-seq': { from: 4096, to: 2048 },
    'bf16-true': { from: 'bf16-mixed', to: 'bf16-true' },
    lora: {},
    qlora: {},
    zero3: { gpus: 8 },
    'adamw-8bit': { from: 'adamw', to: 'adamw-8bit' },
    zero2: { gpus: 4 },
    'offload-optimizer': {},
  },
});

/** A remedy's changes in words, a combination joined with " + ". */
export function remedyChangeWords(remedy: Remedy, lang: Lang): string {
  return remedy.changes.map((c) => say(REMEDIES, lang, c)).join(' + ');
}
