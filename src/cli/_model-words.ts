/**
 * The words for how a model name reached the catalog (hub-names.ts gives the data), in English and
 * Simplified Chinese: one line "typed → id (catalog; …)", and a note when a pre-quantized copy is
 * sized with another quantization than the one it is stored in.
 */
import type { ModelRelease, ModelVariant, PrequantizedFormat } from '../core/catalog/hub-names.js';
import { PREQUANTIZED_AS } from '../core/catalog/hub-names.js';
import type { ResolvedModel } from '../core/model-ref.js';

export type Lang = 'en' | 'zh';

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
  readonly sizeAsStored: (from: string, format: string, given: string, as: string) => string;
  readonly notModelled: (from: string, format: string, given: string) => string;
}

const FORMATS: Readonly<Record<PrequantizedFormat, string>> = {
  'bnb-4bit': 'bitsandbytes 4-bit',
  'bnb-nf4': 'bitsandbytes NF4',
  'gptq-int4': 'GPTQ 4-bit',
  'gptq-int8': 'GPTQ 8-bit',
  'awq-int4': 'AWQ 4-bit',
  fp8: 'FP8',
};

const WORDS: Readonly<Record<Lang, ResolutionWords>> = {
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
    sizeAsStored: (from, format, given, as) =>
      `note: ${from} stores its weights pre-quantized (${format}); these figures use --quantization ${given} as given — add --quantization ${as} to size them as stored`,
    notModelled: (from, format, given) =>
      `note: ${from} stores its weights as ${format}, which Headroom does not model; these figures use --quantization ${given}`,
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
    sizeAsStored: (from, format, given, as) =>
      `注意：${from} 的权重以 ${format} 预量化存储；以上数字按给定的 --quantization ${given} 计算，加 --quantization ${as} 可按存储方式计算`,
    notModelled: (from, format, given) =>
      `注意：${from} 的权重以 ${format} 存储，Headroom 不建模这种格式；以上数字按 --quantization ${given} 计算`,
  },
};

/**
 * "mistralai/Mistral-7B-Instruct-v0.3 → mistral-7b-v0.3 (catalog; instruct variant, same shapes)", or
 * null when the model was named by its catalog id (or is not a catalog model).
 */
export function resolutionLine(model: ResolvedModel, lang: Lang = 'en'): string | null {
  const r = model.resolution;
  if (!r) return null;
  const w = WORDS[lang];
  const org = r.resolvedFrom.includes('/') ? r.resolvedFrom.slice(0, r.resolvedFrom.indexOf('/')) : null;
  const kin = [
    ...(r.mirror && org ? [w.mirror(org)] : []),
    ...(r.release ? [w.release[r.release]] : []),
    ...(r.variant ? [w.variant[r.variant]] : []),
  ];
  const parts = [
    ...kin,
    ...(kin.length > 0 ? [w.sameShapes] : []),
    ...(r.prequantized ? [w.stored(FORMATS[r.prequantized])] : []),
    ...(r.contextLength !== null ? [w.context(r.contextLength.toLocaleString('en-US'))] : []),
  ];
  const detail = parts.length === 0 ? '' : `${w.separator}${parts.join(w.list)}`;
  return `${r.resolvedFrom} → ${model.id}${w.open}${w.catalog}${detail}${w.close}`;
}

/**
 * A note when a pre-quantized copy is sized with a quantization other than the one it is stored in;
 * null when they agree or the model is not a pre-quantized copy. The scenario's quantization is left as
 * given: the note names the value that sizes the weights as stored.
 */
export function prequantizedNote(
  model: ResolvedModel,
  quantization: string,
  lang: Lang = 'en',
): string | null {
  const format = model.resolution?.prequantized;
  if (!format) return null;
  const as = PREQUANTIZED_AS[format];
  if (as === quantization) return null;
  const w = WORDS[lang];
  const from = model.resolution!.resolvedFrom;
  return as === null
    ? w.notModelled(from, FORMATS[format], quantization)
    : w.sizeAsStored(from, FORMATS[format], quantization, as);
}
