/**
 * What each term of a phase's high point is, in a few words (src/core/estimate/types.ts, PEAK_TERMS):
 * `estimate --explain` and the dashboard's peak table label their rows with these.
 */
import type { PeakTermName, PeakTermParams } from '../core/estimate.js';
import { defineDomain } from './catalog.js';
import { FORMATS } from './format.js';
import type { Lang } from './lang.js';

export const PEAK_TERM_WORDS = defineDomain<PeakTermParams>({
  name: 'peak-terms',
  words: {
    en: {
      weights: () => 'weights (this GPU’s share)',
      'optimizer-states': () => 'optimizer states',
      'communication-buckets': () => 'DDP/ZeRO communication buckets',
      'gathered-weights': () => 'gathered layers (ZeRO-3/FSDP)',
      'cublas-workspaces': () => 'cuBLAS workspaces (forward and backward threads)',
      'fsdp-root-unit': () => 'FSDP root unit (embeddings, head)',
      'zero3-turn-weights': () => 'ZeRO-3 head and last layers kept gathered into backward',
      'accumulated-gradients': () => 'gradients kept between micro-batches',
      gradients: () => 'gradients',
      'saved-activations': () => 'saved activations',
      'logits-and-loss': () => 'logits and loss',
      'autocast-copies': () => 'autocast 16-bit weight copies',
      'dequantized-weight': () => 'a dequantized 4/8-bit weight',
      'quantization-transient': () => 'a weight being quantized at load',
      'load-fp32-weights': () => 'the base in fp32 at load, before its cast to 16 bits',
      'kbit-upcast': () => 'prepare_model_for_kbit_training’s fp32 copies at load',
      'previous-step-inputs': () => 'the previous step’s kept 4-bit inputs',
      'backward-transient': () => 'backward transient (recomputed layer or logit/head gradients)',
      'gathered-gradients': () => 'unsharded gradients before reduce-scatter',
      'fsdp-root-gradient': () => 'FSDP root gradient',
      'optimizer-step-temporary': () => 'optimizer step temporaries',
      'eval-layer': () => 'one layer’s tensors in a forward without the graph',
      'eval-logits-and-loss': () => 'evaluation logits and loss (fp32 upcast)',
      'kept-eval-logits': () => 'evaluation logits kept for metrics',
      'kv-cache': () => 'generation’s KV cache',
      'generation-logits': () => 'the prompt’s logits in generation',
      calibration: () => 'calibration (the measured run’s difference)',
    },
    zh: {
      weights: () => '权重（本 GPU 的份额）',
      'optimizer-states': () => '优化器状态',
      'communication-buckets': () => 'DDP/ZeRO 通信桶',
      'gathered-weights': () => '聚合的层（ZeRO-3/FSDP）',
      'cublas-workspaces': () => 'cuBLAS 工作区（前向与反向线程各一）',
      'fsdp-root-unit': () => 'FSDP 根单元（嵌入层、输出头）',
      'zero3-turn-weights': () => 'ZeRO-3 留到反向的输出头与末几层',
      'accumulated-gradients': () => 'micro-batch 之间保留的梯度',
      gradients: () => '梯度',
      'saved-activations': () => '保存的激活',
      'logits-and-loss': () => 'logits 与损失',
      'autocast-copies': () => 'autocast 的 16 位权重副本',
      'dequantized-weight': () => '一个反量化的 4/8 位权重',
      'quantization-transient': () => '加载时正在量化的权重',
      'load-fp32-weights': () => '加载时先以 fp32 存放、尚未转为 16 位的基座',
      'kbit-upcast': () => '加载时 prepare_model_for_kbit_training 的 fp32 副本',
      'previous-step-inputs': () => '上一步保留的 4 位层输入',
      'backward-transient': () => '反向传播临时量（重算的层，或 logits 与输出头的梯度）',
      'gathered-gradients': () => 'reduce-scatter 前未分片的梯度',
      'fsdp-root-gradient': () => 'FSDP 根梯度',
      'optimizer-step-temporary': () => '优化器更新的临时量',
      'eval-layer': () => '不建计算图的前向中一层的张量',
      'eval-logits-and-loss': () => '评估的 logits 与损失（fp32 上转）',
      'kept-eval-logits': () => '为计算指标保留的评估 logits',
      'kv-cache': () => '生成时的 KV cache',
      'generation-logits': () => '生成时提示词的 logits',
      calibration: () => '校准（实测运行的差值）',
    },
  },
  examples: {
    weights: {},
    'optimizer-states': {},
    'communication-buckets': {},
    'gathered-weights': {},
    'cublas-workspaces': {},
    'fsdp-root-unit': {},
    'zero3-turn-weights': {},
    'accumulated-gradients': {},
    gradients: {},
    'saved-activations': {},
    'logits-and-loss': {},
    'autocast-copies': {},
    'dequantized-weight': {},
    'quantization-transient': {},
    'load-fp32-weights': {},
    'kbit-upcast': {},
    'previous-step-inputs': {},
    'backward-transient': {},
    'gathered-gradients': {},
    'fsdp-root-gradient': {},
    'optimizer-step-temporary': {},
    'eval-layer': {},
    'eval-logits-and-loss': {},
    'kept-eval-logits': {},
    'kv-cache': {},
    'generation-logits': {},
    calibration: {},
  },
});

/**
 * The words of one term.
 * @example peakTermLabel('zh', 'saved-activations') // '保存的激活'
 */
export function peakTermLabel(lang: Lang, term: PeakTermName): string {
  return PEAK_TERM_WORDS.words[lang][term]({}, FORMATS[lang]);
}
