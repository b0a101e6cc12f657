/**
 * The words of how a model name reached the catalog (src/core/catalog/hub-names.ts gives the data) and
 * of `headroom models` (src/cli/models.ts), in English and Chinese: the line "typed → id (catalog; …)",
 * the note when a pre-quantized copy is sized with another quantization than it is stored in, the
 * catalog table and the command's --help.
 */
import type { ModelRelease, ModelVariant, PrequantizedFormat } from '../core/catalog/hub-names.js';
import type { NoParams } from '../core/message.js';
import type { Quantization } from '../core/scenario.js';
import { defineDomain } from './catalog.js';
import type { Format } from './format.js';

export interface ModelWordsParams {
  /** A Hub name resolved to a catalog model, and how (null: that step was not needed). */
  resolved: {
    readonly typed: string;
    readonly id: string;
    /** The organisation whose copy it is. */
    readonly mirror: string | null;
    readonly release: ModelRelease | null;
    readonly variant: ModelVariant | null;
    readonly prequantized: PrequantizedFormat | null;
    readonly contextLength: number | null;
  };
  /** A pre-quantized copy sized with --quantization `given`; `as` sizes it as stored. */
  'size-as-stored': {
    readonly from: string;
    readonly format: PrequantizedFormat;
    readonly given: Quantization | string;
    readonly as: Quantization;
  };
  /** A Hub name of a multimodal checkpoint sized by its catalog entry, which is its language model only. */
  'text-part-only': { readonly from: string; readonly id: string };
  /** A copy stored in a format Headroom does not model. */
  'not-modelled': { readonly from: string; readonly format: PrequantizedFormat; readonly given: string };
  'no-match': { readonly query: string; readonly total: number };
  'column-id': NoParams;
  'column-repo': NoParams;
  'column-type': NoParams;
  'column-params': NoParams;
  'column-layers': NoParams;
  'column-hidden': NoParams;
  'column-heads': NoParams;
  'column-vocab': NoParams;
  count: { readonly count: number; readonly first: string };
  help: NoParams;
}

/** How each pre-quantized format is named: the quantizer's own names, the same in both languages. */
const FORMAT_NAMES: Readonly<Record<PrequantizedFormat, string>> = {
  'bnb-4bit': 'bitsandbytes 4-bit',
  'bnb-nf4': 'bitsandbytes NF4',
  'gptq-int4': 'GPTQ 4-bit',
  'gptq-int8': 'GPTQ 8-bit',
  'awq-int4': 'AWQ 4-bit',
  fp8: 'FP8',
};

interface ResolutionWords {
  readonly catalog: string;
  readonly open: string;
  readonly close: string;
  readonly separator: string;
  readonly list: string;
  readonly sameShapes: string;
  readonly variant: Readonly<Record<ModelVariant, string>>;
  readonly release: Readonly<Record<ModelRelease, string>>;
  readonly mirror: (org: string) => string;
  readonly stored: (format: string) => string;
  readonly context: (tokens: string) => string;
}

const RESOLUTION: { readonly en: ResolutionWords; readonly zh: ResolutionWords } = {
  en: {
    catalog: 'catalog',
    open: ' (',
    close: ')',
    separator: '; ',
    list: ', ',
    sameShapes: 'same shapes',
    variant: {
      instruct: 'instruct variant',
      chat: 'chat variant',
      base: 'base variant',
      thinking: 'thinking variant',
    },
    release: { qwen2: 'Qwen2 release', '2507': '2507 release' },
    mirror: (org) => `${org}'s copy`,
    stored: (format) => `stored as ${format}`,
    context: (tokens) => `${tokens}-token context`,
  },
  zh: {
    catalog: '目录',
    open: '（',
    close: '）',
    separator: '；',
    list: '，',
    sameShapes: '形状相同',
    variant: { instruct: '指令版', chat: '对话版', base: '基座版', thinking: '思考版' },
    release: { qwen2: 'Qwen2 版本', '2507': '2507 版本' },
    mirror: (org) => `${org} 的副本`,
    stored: (format) => `以 ${format} 预量化存储`,
    context: (tokens) => `上下文 ${tokens} token`,
  },
};

function resolved(p: ModelWordsParams['resolved'], f: Format): string {
  const w = RESOLUTION[f.lang];
  const kin = [
    ...(p.mirror !== null ? [w.mirror(p.mirror)] : []),
    ...(p.release !== null ? [w.release[p.release]] : []),
    ...(p.variant !== null ? [w.variant[p.variant]] : []),
  ];
  const parts = [
    ...kin,
    ...(kin.length > 0 ? [w.sameShapes] : []),
    ...(p.prequantized !== null ? [w.stored(FORMAT_NAMES[p.prequantized])] : []),
    ...(p.contextLength !== null ? [w.context(f.count(p.contextLength))] : []),
  ];
  const detail = parts.length === 0 ? '' : `${w.separator}${parts.join(w.list)}`;
  return `${p.typed} → ${p.id}${w.open}${w.catalog}${detail}${w.close}`;
}

export const MODEL_WORDS = defineDomain<ModelWordsParams>({
  name: 'models',
  words: {
    en: {
      resolved,
      'size-as-stored': (p) =>
        `note: ${p.from} stores its weights pre-quantized (${FORMAT_NAMES[p.format]}); these figures use --quantization ${p.given} as given — add --quantization ${p.as} to size them as stored`,
      'text-part-only': (p) =>
        `note: ${p.id} is the language model of ${p.from}; the checkpoint's vision encoder is not counted — loaded whole (its ForConditionalGeneration class), the weights are larger: give the checkpoint's folder to count every parameter from its weight files`,
      'not-modelled': (p) =>
        `note: ${p.from} stores its weights as ${FORMAT_NAMES[p.format]}, which Headroom does not model; these figures use --quantization ${p.given}`,
      'no-match': (p) => `no catalog model matches "${p.query}"; headroom models lists all ${p.total}`,
      'column-id': () => 'id',
      'column-repo': () => 'Hugging Face repo',
      'column-type': () => 'type',
      'column-params': () => 'params',
      'column-layers': () => 'layers',
      'column-hidden': () => 'hidden',
      'column-heads': () => 'heads/kv',
      'column-vocab': () => 'vocab',
      count: (p) =>
        `${p.count} model${p.count === 1 ? '' : 's'}. Estimate one: headroom estimate ${p.first} --gpu rtx-4090`,
      help: () => `headroom models [QUERY] [--json]

Lists the embedded model catalog; QUERY keeps models whose id, repo or architecture contain every word,
and a Hub id of a catalog model under another spelling (an instruct variant, a re-upload, a
pre-quantized copy) finds that model.
  headroom models qwen3
  headroom models llama 8b --json
  headroom models unsloth/Llama-3.2-3B-Instruct-bnb-4bit
  headroom models qwen3 --lang zh`,
    },
    zh: {
      resolved,
      'size-as-stored': (p) =>
        `注意：${p.from} 的权重以 ${FORMAT_NAMES[p.format]} 预量化存储；以上数字按给定的 --quantization ${p.given} 计算，加 --quantization ${p.as} 可按存储方式计算`,
      'text-part-only': (p) =>
        `注意：${p.id} 是 ${p.from} 的语言模型部分；检查点的视觉编码器未计入——若整体加载（其 ForConditionalGeneration 类），权重会更大：给出检查点的文件夹，即按其权重文件计入全部参数`,
      'not-modelled': (p) =>
        `注意：${p.from} 的权重以 ${FORMAT_NAMES[p.format]} 存储，Headroom 不建模这种格式；以上数字按 --quantization ${p.given} 计算`,
      'no-match': (p) => `目录中没有模型匹配“${p.query}”；headroom models 会列出全部 ${p.total} 个`,
      'column-id': () => 'id',
      'column-repo': () => 'Hugging Face 仓库',
      'column-type': () => '类型',
      'column-params': () => '参数量',
      'column-layers': () => '层数',
      'column-hidden': () => '隐藏维度',
      'column-heads': () => '注意力头/KV 头',
      'column-vocab': () => '词表',
      count: (p) => `共 ${p.count} 个模型。估算其中一个：headroom estimate ${p.first} --gpu rtx-4090`,
      help: () => `headroom models [QUERY] [--json]

列出内置的模型目录；QUERY 保留 id、仓库或架构包含每个词的模型；目录模型在 Hub 上的其他写法（指令版、
重新上传的副本、预量化副本）也能找到该模型。
  headroom models qwen3
  headroom models llama 8b --json
  headroom models unsloth/Llama-3.2-3B-Instruct-bnb-4bit
  headroom models qwen3 --lang zh`,
    },
  },
  examples: {
    resolved: {
      typed: 'unsloth/Llama-3.2-3B-Instruct-bnb-4bit',
      id: 'llama-3.2-3b',
      mirror: 'unsloth',
      release: null,
      variant: 'instruct',
      prequantized: 'bnb-4bit',
      contextLength: 131_072,
    },
    'size-as-stored': {
      from: 'Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4',
      format: 'gptq-int4',
      given: 'none',
      as: 'int4-gptq',
    },
    'not-modelled': { from: 'unsloth/Qwen3-4B-FP8', format: 'fp8', given: 'none' },
    'text-part-only': { from: 'google/gemma-3-4b-it', id: 'gemma-3-4b-text' },
    'no-match': { query: 'llama-9', total: 120 },
    'column-id': {},
    'column-repo': {},
    'column-type': {},
    'column-params': {},
    'column-layers': {},
    'column-hidden': {},
    'column-heads': {},
    'column-vocab': {},
    count: { count: 4, first: 'qwen3-8b' },
    help: {},
  },
});
