/** The dashboard's words in English and Simplified Chinese; the browser's language picks the default. */
import { createContext, useContext } from 'react';
import { PEAK_TERM_LABELS } from '../../src/core/describe.js';
import type { PeakTermName } from '../../src/core/estimate.js';
import type { EstimateNote } from '../../src/core/estimate-notes.js';
import type { CheckId, CheckItem } from '../../src/core/migrate.js';
import { say } from '../../src/words/catalog.js';
import { ESTIMATE_NOTES } from '../../src/words/estimate-notes.js';

export type Lang = 'en' | 'zh';

const EN = {
  'nav.estimate': 'Estimate',
  'nav.runs': 'Runs',
  'nav.migrate': 'Migrate',
  'nav.demo': 'demo data',
  'estimate.title': 'Will it fit?',
  'estimate.model': 'Model',
  'estimate.modelSearch': 'search the catalog…',
  'estimate.pasteConfig': 'or paste a config.json / trainer config',
  'estimate.useConfig': 'Use pasted config',
  'estimate.clearConfig': 'Back to the catalog',
  'estimate.method': 'Method',
  'estimate.precision': 'Precision',
  'estimate.quantization': 'Base quantization',
  'estimate.optimizer': 'Optimizer',
  'estimate.microBatch': 'Micro-batch',
  'estimate.seqLen': 'Sequence length',
  'estimate.gradAccum': 'Grad. accumulation',
  'estimate.checkpointing': 'Checkpointing',
  'estimate.attention': 'Attention',
  'estimate.loss': 'Loss',
  'estimate.strategy': 'Parallelism',
  'estimate.wrapEmbeddings': 'Embeddings and head as their own FSDP units',
  'estimate.syncEachMicroBatch': 'Reduce-scatter every micro-batch',
  'estimate.optimizerInBackward': 'Optimizer step in backward',
  'estimate.fusedOptimizer': 'Fused optimizer kernel (torch fused=True)',
  'estimate.offloadActivations': 'Offload activations to CPU memory',
  'estimate.expandableSegments': 'Allocator: expandable segments',
  'estimate.torchCompile': 'torch.compile (model and loss)',
  'estimate.offloadOptimizer': 'Optimizer offload',
  'estimate.offloadParams': 'Parameter offload',
  'estimate.hostMemory': 'CPU RAM for offload, per node',
  'estimate.quantizedInputsKept': 'Inputs kept by 4-bit layers (bitsandbytes < 0.43.2)',
  'estimate.quantizer': 'Quantized by (torchao: torchtune)',
  'estimate.reduceBucketSize': 'ZeRO reduce bucket (elements, or auto; empty: 5e8)',
  'estimate.overlapComm': 'overlap_comm (two reduce buckets)',
  'estimate.gpus': 'GPUs',
  'estimate.gpu': 'GPU',
  'estimate.loraRank': 'LoRA rank',
  'estimate.loraTargets': 'LoRA targets',
  'estimate.loraAdapterDtype': 'Adapter dtype (fp32: PEFT; model: torchtune, litgpt)',
  'estimate.export': 'Export scenario JSON',
  'estimate.copyLink': 'Copy link',
  'estimate.copied': 'Link copied',
  'estimate.fitsOn': 'Fits on',
  'estimate.fits': 'fits',
  'estimate.doesNotFit': 'does not fit',
  'estimate.headroom': 'headroom',
  'estimate.over': 'over',
  'estimate.needs': 'needs',
  'estimate.precisionDefault': 'default for the method',
  'estimate.withMargin': 'judged with a {pct} % margin kept free',
  'estimate.marginField': 'Margin kept free (%)',
  'estimate.pagedToHost': 'paged optimizer states in CPU RAM (slower):',
  'estimate.usable': 'usable',
  'estimate.peakAt': 'peak at',
  'estimate.notes': 'Notes on this estimate',
  'estimate.peakTerms': 'How the peak adds up',
  'estimate.reserve': '+ allocator reserve and fragmentation',
  'estimate.outsideTorch': '+ outside torch (CUDA context, NCCL, paged states)',
  'estimate.ladder': 'If it does not fit: the ladder, cheapest first',
  'estimate.ladderFits': 'Already fits with the margin.',
  'estimate.budget': 'budget',
  'estimate.perGpu': 'Every figure is per GPU.',
  'part.weights': 'weights',
  'part.gradients': 'gradients',
  'part.optimizer': 'optimizer',
  'part.activations': 'activations',
  'part.runtime': 'runtime',
  'level.allocated': 'allocated',
  'level.reserved': 'reserved',
  'level.device': 'nvidia-smi',
  'migrate.title': 'Will it still fit there?',
  'migrate.from': 'From',
  'migrate.to': 'To',
  'migrate.envFile': 'env file (headroom env capture)',
  'migrate.check': 'Check',
  'migrate.scenario': 'scenario (JSON, as docs/scenario.md describes)',
  'migrate.notChecked': 'not checked',
  'migrate.smoke': 'smoke run',
  'migrate.steps': 'steps',
  'migrate.peak': 'peak',
  'migrate.pass': 'pass',
  'migrate.warn': 'warn',
  'migrate.fail': 'fail',
  'migrate.unknown': 'unknown',
  'common.loading': 'loading…',
  'common.error': 'error',
  'common.none': 'none',
} as const;

export type MessageKey = keyof typeof EN;

const ZH: Record<MessageKey, string> = {
  'nav.estimate': '估算',
  'nav.runs': '运行记录',
  'nav.migrate': '迁移',
  'nav.demo': '演示数据',
  'estimate.title': '显存够用吗？',
  'estimate.model': '模型',
  'estimate.modelSearch': '搜索模型目录…',
  'estimate.pasteConfig': '或粘贴 config.json / 训练配置',
  'estimate.useConfig': '使用粘贴的配置',
  'estimate.clearConfig': '返回模型目录',
  'estimate.method': '方法',
  'estimate.precision': '精度',
  'estimate.quantization': '基座量化',
  'estimate.optimizer': '优化器',
  'estimate.microBatch': '微批大小',
  'estimate.seqLen': '序列长度',
  'estimate.gradAccum': '梯度累积',
  'estimate.checkpointing': '梯度检查点',
  'estimate.attention': '注意力实现',
  'estimate.loss': '损失计算',
  'estimate.strategy': '并行策略',
  'estimate.wrapEmbeddings': '词嵌入与输出头单独作为 FSDP 单元',
  'estimate.syncEachMicroBatch': '每个微批都做 reduce-scatter',
  'estimate.optimizerInBackward': '在反向传播中执行优化器更新',
  'estimate.fusedOptimizer': '融合优化器内核（torch fused=True）',
  'estimate.offloadActivations': '把激活卸载到 CPU 内存',
  'estimate.expandableSegments': '分配器：可扩展段',
  'estimate.torchCompile': 'torch.compile（模型与损失）',
  'estimate.offloadOptimizer': '优化器卸载',
  'estimate.offloadParams': '参数卸载',
  'estimate.hostMemory': '卸载所需的 CPU 内存（每节点）',
  'estimate.quantizedInputsKept': '量化层保留的输入（bitsandbytes < 0.43.2）',
  'estimate.quantizer': '量化库（torchao：torchtune）',
  'estimate.reduceBucketSize': 'ZeRO 归约桶（元素数或 auto；留空为 5e8）',
  'estimate.overlapComm': 'overlap_comm（两个归约桶）',
  'estimate.gpus': 'GPU 数量',
  'estimate.gpu': 'GPU',
  'estimate.loraRank': 'LoRA 秩',
  'estimate.loraTargets': 'LoRA 目标模块',
  'estimate.loraAdapterDtype': '适配器数据类型（fp32：PEFT；model：torchtune、litgpt）',
  'estimate.export': '导出场景 JSON',
  'estimate.copyLink': '复制链接',
  'estimate.copied': '链接已复制',
  'estimate.fitsOn': '可运行的 GPU',
  'estimate.fits': '放得下',
  'estimate.doesNotFit': '放不下',
  'estimate.headroom': '剩余',
  'estimate.over': '超出',
  'estimate.needs': '需要',
  'estimate.precisionDefault': '按方法默认',
  'estimate.withMargin': '按预留 {pct}% 余量判断',
  'estimate.marginField': '预留余量（%）',
  'estimate.pagedToHost': '分页优化器状态放在 CPU 内存（较慢）：',
  'estimate.usable': '可用',
  'estimate.peakAt': '峰值阶段',
  'estimate.notes': '关于此估算的说明',
  'estimate.peakTerms': '峰值的构成',
  'estimate.reserve': '+ 分配器预留与碎片',
  'estimate.outsideTorch': '+ torch 之外（CUDA 上下文、NCCL、分页状态）',
  'estimate.ladder': '放不下时：按代价从低到高的调整方案',
  'estimate.ladderFits': '在预留余量下已经放得下。',
  'estimate.budget': '预算',
  'estimate.perGpu': '所有数字均为单卡。',
  'part.weights': '权重',
  'part.gradients': '梯度',
  'part.optimizer': '优化器状态',
  'part.activations': '激活值',
  'part.runtime': '运行时开销',
  'level.allocated': '已分配',
  'level.reserved': '已保留',
  'level.device': 'nvidia-smi',
  'migrate.title': '换到那台机器还放得下吗？',
  'migrate.from': '源环境',
  'migrate.to': '目标环境',
  'migrate.envFile': '环境文件（headroom env capture）',
  'migrate.check': '检查',
  'migrate.scenario': '场景（JSON，格式见 docs/scenario.md）',
  'migrate.notChecked': '未检查',
  'migrate.smoke': '冒烟运行',
  'migrate.steps': '步',
  'migrate.peak': '峰值',
  'migrate.pass': '通过',
  'migrate.warn': '警告',
  'migrate.fail': '失败',
  'migrate.unknown': '未知',
  'common.loading': '加载中…',
  'common.error': '错误',
  'common.none': '无',
};

export const MESSAGES: Readonly<Record<Lang, Readonly<Record<MessageKey, string>>>> = { en: EN, zh: ZH };

/** The language the browser prefers, when it is one we speak. */
export function defaultLang(languages: readonly string[]): Lang {
  return languages.some((l) => l.toLowerCase().startsWith('zh')) ? 'zh' : 'en';
}

export const LangContext = createContext<Lang>('en');

/** What each term of a peak is: the core's own words in English, these in Chinese. */
const TERM_WORDS_ZH: Readonly<Record<PeakTermName, string>> = {
  weights: '权重（本 GPU 的份额）',
  'optimizer-states': '优化器状态',
  'communication-buckets': 'DDP/ZeRO 通信桶',
  'gathered-weights': '聚合的层（ZeRO-3/FSDP）',
  'cublas-workspaces': 'cuBLAS 工作区（前向与反向线程各一）',
  'fsdp-root-unit': 'FSDP 根单元（嵌入层、输出头）',
  'accumulated-gradients': 'micro-batch 之间保留的梯度',
  gradients: '梯度',
  'saved-activations': '保存的激活',
  'logits-and-loss': 'logits 与损失',
  'autocast-copies': 'autocast 的 16 位权重副本',
  'dequantized-weight': '一个反量化的 4/8 位权重',
  'quantization-transient': '加载时正在量化的权重',
  'previous-step-inputs': '上一步保留的 4 位层输入',
  'backward-transient': '反向传播临时量（重算的层，或 logits 与输出头的梯度）',
  'gathered-gradients': 'reduce-scatter 前未分片的梯度',
  'fsdp-root-gradient': 'FSDP 根梯度',
  'optimizer-step-temporary': '优化器更新的临时量',
  calibration: '校准（实测运行的差值）',
};

/** The words for a term of the peak (estimate --explain's), in the current language. */
export function useTermLabel(): (term: PeakTermName) => string {
  const lang = useContext(LangContext);
  return (term) => (lang === 'zh' ? TERM_WORDS_ZH[term] : PEAK_TERM_LABELS[term]);
}

/** An estimate's note in the current language (src/words/estimate-notes.ts). */
export function useNoteText(): (note: EstimateNote) => string {
  const lang = useContext(LangContext);
  return (note) => say(ESTIMATE_NOTES, lang, note);
}

/** The migrate checks' titles in Chinese; English uses the core's own (CheckItem.title). */
const CHECK_TITLES_ZH: Readonly<Record<CheckId, string>> = {
  'memory-fit': '峰值显存放得下目标 GPU',
  'host-memory': '主机内存装得下卸载的数据',
  'gpu-count': '目标机器的 GPU 数量足够',
  bf16: '支持 bf16',
  interconnect: '并行策略适合互联方式',
  'checkpoint-disk': '磁盘放得下检查点和数据',
  versions: '驱动、CUDA 与框架版本',
  'checkpoint-frequency': '检查点足够频繁，可应对抢占',
};

/** A migrate check's title in the current language. */
export function useCheckTitle(): (item: Pick<CheckItem, 'id' | 'title'>) => string {
  const lang = useContext(LangContext);
  return (item) => (lang === 'zh' ? CHECK_TITLES_ZH[item.id] : item.title);
}

/** The current language. */
export function useLang(): Lang {
  return useContext(LangContext);
}

/** The translate function for the current language. */
export function useT(): (key: MessageKey) => string {
  const lang = useContext(LangContext);
  return (key) => MESSAGES[lang][key];
}
