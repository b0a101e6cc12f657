/**
 * The dashboard's estimate page, in English and Chinese: its own words (the form's field labels are
 * src/words/fields.ts's). web/src/i18n.ts spreads the labels without figures into its table, so the
 * page's components keep `t('estimate.fits')`; the entries with figures are rendered with `say`.
 */
import type { NoParams } from '../core/message.js';
import { defineDomain, say } from './catalog.js';
import type { Lang } from './lang.js';

interface UiEstimateParams {
  'estimate.title': NoParams;
  'estimate.model': NoParams;
  'estimate.modelSearch': NoParams;
  'estimate.pasteConfig': NoParams;
  'estimate.useConfig': NoParams;
  'estimate.clearConfig': NoParams;
  /** The model a pasted config.json stands for, by its model_type. */
  'estimate.pastedConfig': { readonly modelType: string };
  /** A model the page cannot size: not in the catalog it carries. */
  'estimate.notInCatalog': { readonly model: string };
  /** Pasted text that is no config.json. */
  'estimate.notConfig': { readonly reason: string };
  'estimate.hostMemory': NoParams;
  'estimate.export': NoParams;
  'estimate.copyLink': NoParams;
  'estimate.copied': NoParams;
  'estimate.fitsOn': NoParams;
  'estimate.fits': NoParams;
  'estimate.doesNotFit': NoParams;
  'estimate.headroom': NoParams;
  'estimate.over': NoParams;
  'estimate.needs': NoParams;
  /** A select's default option that stands for a default depending on the method (precision). */
  'estimate.defaultFor': { readonly value: string };
  'estimate.default': NoParams;
  /** The margin the fit was judged with, as a fraction. */
  'estimate.withMargin': { readonly fraction: number };
  'estimate.marginField': NoParams;
  'estimate.pagedToHost': NoParams;
  'estimate.usable': NoParams;
  'estimate.peakAt': NoParams;
  'estimate.notes': NoParams;
  'estimate.peakTerms': NoParams;
  'estimate.ladder': NoParams;
  'estimate.ladderFits': NoParams;
  'estimate.budget': NoParams;
  'estimate.perGpu': NoParams;
  'estimate.upperNote': NoParams;
  /** Padded batches: what the card must hold, beside the climb the levels' tops carry. */
  'estimate.needed': NoParams;
  'estimate.climbNote': NoParams;
  'part.weights': NoParams;
  'part.gradients': NoParams;
  'part.optimizer': NoParams;
  'part.activations': NoParams;
  'part.runtime': NoParams;
}

export const UI_ESTIMATE = defineDomain<UiEstimateParams>({
  name: 'ui-estimate',
  words: {
    en: {
      'estimate.title': () => 'Will it fit?',
      'estimate.model': () => 'Model',
      'estimate.modelSearch': () => 'search the catalog…',
      'estimate.pasteConfig': () => 'or paste a config.json / trainer config',
      'estimate.useConfig': () => 'Use pasted config',
      'estimate.clearConfig': () => 'Back to the catalog',
      'estimate.pastedConfig': (p) => `pasted config (${p.modelType})`,
      'estimate.notInCatalog': (p) => `model "${p.model}" is not in the catalog`,
      'estimate.notConfig': (p) => `not a config.json: ${p.reason}`,
      'estimate.hostMemory': () => 'CPU RAM for offload, per node',
      'estimate.export': () => 'Export scenario JSON',
      'estimate.copyLink': () => 'Copy link',
      'estimate.copied': () => 'Link copied',
      'estimate.fitsOn': () => 'Fits on',
      'estimate.fits': () => 'fits',
      'estimate.doesNotFit': () => 'does not fit',
      'estimate.headroom': () => 'headroom',
      'estimate.over': () => 'over',
      'estimate.needs': () => 'needs',
      'estimate.defaultFor': (p) => `default for the method: ${p.value}`,
      'estimate.default': () => 'default',
      'estimate.withMargin': (p, f) => `judged with a ${f.percent(p.fraction)} margin kept free`,
      'estimate.marginField': () => 'Margin kept free (%)',
      'estimate.pagedToHost': () => 'paged optimizer states in CPU RAM (slower):',
      'estimate.usable': () => 'usable',
      'estimate.peakAt': () => 'peak at',
      'estimate.notes': () => 'Notes on this estimate',
      'estimate.peakTerms': () => 'How the peak adds up',
      'estimate.ladder': () => 'If it does not fit: the ladder, cheapest first',
      'estimate.ladderFits': () => 'Already fits with the margin.',
      'estimate.budget': () => 'budget',
      'estimate.perGpu': () => 'Every figure is per GPU.',
      'estimate.upperNote': () =>
        'The second column is the upper bound: measured runs of this kind stay under it nine times in ten; the fit is judged on it.',
      'estimate.needed': () => 'the card must hold',
      'estimate.climbNote': () =>
        'Padded batches: on a card with room the reserve may climb to the tops above over the run; the allocator gives that cache back before it fails, so the fit is judged on what the card must hold.',
      'part.weights': () => 'weights',
      'part.gradients': () => 'gradients',
      'part.optimizer': () => 'optimizer',
      'part.activations': () => 'activations',
      'part.runtime': () => 'runtime',
    },
    zh: {
      'estimate.title': () => '显存够用吗？',
      'estimate.model': () => '模型',
      'estimate.modelSearch': () => '搜索模型目录…',
      'estimate.pasteConfig': () => '或粘贴 config.json / 训练配置',
      'estimate.useConfig': () => '使用粘贴的配置',
      'estimate.clearConfig': () => '返回模型目录',
      'estimate.pastedConfig': (p) => `粘贴的配置（${p.modelType}）`,
      'estimate.notInCatalog': (p) => `模型 "${p.model}" 不在目录中`,
      'estimate.notConfig': (p) => `不是 config.json：${p.reason}`,
      'estimate.hostMemory': () => '卸载所需的 CPU 内存（每节点）',
      'estimate.export': () => '导出场景 JSON',
      'estimate.copyLink': () => '复制链接',
      'estimate.copied': () => '链接已复制',
      'estimate.fitsOn': () => '可运行的 GPU',
      'estimate.fits': () => '放得下',
      'estimate.doesNotFit': () => '放不下',
      'estimate.headroom': () => '剩余',
      'estimate.over': () => '超出',
      'estimate.needs': () => '需要',
      'estimate.defaultFor': (p) => `按方法默认：${p.value}`,
      'estimate.default': () => '默认',
      'estimate.withMargin': (p, f) => `按预留 ${f.percent(p.fraction)} 余量判断`,
      'estimate.marginField': () => '预留余量（%）',
      'estimate.pagedToHost': () => '分页优化器状态放在 CPU 内存（较慢）：',
      'estimate.usable': () => '可用',
      'estimate.peakAt': () => '峰值阶段',
      'estimate.notes': () => '关于此估算的说明',
      'estimate.peakTerms': () => '峰值的构成',
      'estimate.ladder': () => '放不下时：按代价从低到高的调整方案',
      'estimate.ladderFits': () => '在预留余量下已经放得下。',
      'estimate.budget': () => '预算',
      'estimate.perGpu': () => '所有数字均为单卡。',
      'estimate.upperNote': () => '第二列是上界：同类实测运行十次中有九次低于它；是否放得下按它判断。',
      'estimate.needed': () => '显卡须容纳',
      'estimate.climbNote': () =>
        '批次按最长样本填充：显存充裕时，整个运行中预留可能涨到上面的上端；这些缓存在分配失败前会被释放，因此是否放得下按显卡须容纳的量判断。',
      'part.weights': () => '权重',
      'part.gradients': () => '梯度',
      'part.optimizer': () => '优化器状态',
      'part.activations': () => '激活值',
      'part.runtime': () => '运行时开销',
    },
  },
  examples: {
    'estimate.title': {},
    'estimate.model': {},
    'estimate.modelSearch': {},
    'estimate.pasteConfig': {},
    'estimate.useConfig': {},
    'estimate.clearConfig': {},
    'estimate.pastedConfig': { modelType: 'llama' },
    'estimate.notInCatalog': { model: 'llama-9b' },
    'estimate.notConfig': { reason: 'Unexpected token' },
    'estimate.hostMemory': {},
    'estimate.export': {},
    'estimate.copyLink': {},
    'estimate.copied': {},
    'estimate.fitsOn': {},
    'estimate.fits': {},
    'estimate.doesNotFit': {},
    'estimate.headroom': {},
    'estimate.over': {},
    'estimate.needs': {},
    'estimate.defaultFor': { value: 'bf16-true' },
    'estimate.default': {},
    'estimate.withMargin': { fraction: 0.1 },
    'estimate.marginField': {},
    'estimate.pagedToHost': {},
    'estimate.usable': {},
    'estimate.peakAt': {},
    'estimate.notes': {},
    'estimate.peakTerms': {},
    'estimate.ladder': {},
    'estimate.ladderFits': {},
    'estimate.budget': {},
    'estimate.perGpu': {},
    'estimate.upperNote': {},
    'estimate.needed': {},
    'estimate.climbNote': {},
    'part.weights': {},
    'part.gradients': {},
    'part.optimizer': {},
    'part.activations': {},
    'part.runtime': {},
  },
});

/** The page's words that take no figures. */
export type UiEstimateLabel = {
  [K in keyof UiEstimateParams]: UiEstimateParams[K] extends NoParams ? K : never;
}[keyof UiEstimateParams];

function labels(lang: Lang): Readonly<Record<UiEstimateLabel, string>> {
  const out: Record<string, string> = {};
  for (const code of Object.keys(UI_ESTIMATE.examples)) {
    const figures = Object.keys(UI_ESTIMATE.examples[code as keyof UiEstimateParams]).length > 0;
    if (!figures) out[code] = say(UI_ESTIMATE, lang, { code, params: {} } as never);
  }
  return out as Record<UiEstimateLabel, string>;
}

/** The page's words without figures, for web/src/i18n.ts's table. */
export const UI_ESTIMATE_LABELS: Readonly<Record<Lang, Readonly<Record<UiEstimateLabel, string>>>> = {
  en: labels('en'),
  zh: labels('zh'),
};
