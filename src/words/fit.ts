/**
 * The words of `headroom fit` (src/cli/fit.ts): each bound found, what stopped each search
 * (src/core/fit.ts, FitBound.limit), the margin line and the command's own --help, in English and
 * Chinese.
 */
import type { FitBound } from '../core/fit.js';
import type { NoParams } from '../core/message.js';
import { CALIBRATION_MAX_TOKEN_RATIO } from '../core/run-calibration.js';
import { defineDomain, say } from './catalog.js';
import { marginReason } from './margin.js';

/** What stopped a search short of memory: one code per FitBound['limit']. */
export type FitLimitParams = { readonly [L in FitBound['limit']]: NoParams };

export const FIT_LIMITS = defineDomain<FitLimitParams>({
  name: 'fit-limits',
  words: {
    en: {
      memory: () => 'stopped at memory',
      context: () => "stopped at the model's context length",
      cap: () => 'stopped at the search limit',
      calibration: () =>
        `stopped where the calibration ends (${CALIBRATION_MAX_TOKEN_RATIO}× the run's tokens per micro-batch)`,
    },
    zh: {
      memory: () => '因显存而停止',
      context: () => '在模型的上下文长度处停止',
      cap: () => '在搜索上限处停止',
      calibration: () =>
        `在校准适用范围的尽头停止（该运行每个 micro-batch token 数的 ${CALIBRATION_MAX_TOKEN_RATIO}×）`,
    },
  },
  examples: { memory: {}, context: {}, cap: {}, calibration: {} },
});

const pct = (fraction: number) => Math.round(fraction * 100);

export interface FitReportParams {
  'on-target': {
    readonly name: string;
    readonly usableBytes: number;
    readonly budgetBytes: number;
    readonly marginFraction: number;
  };
  'label-micro-batch': NoParams;
  'label-sequence': NoParams;
  /** The unit of a micro-batch of this sequence length, and of a sequence. */
  'unit-micro-batch': { readonly seqLen: number };
  'unit-tokens': NoParams;
  /** Not even one fits: one sequence of this length, or one token. */
  'none-micro-batch': {
    readonly seqLen: number;
    readonly requiredBytes: number;
    readonly budgetBytes: number;
  };
  'none-sequence': { readonly requiredBytes: number; readonly budgetBytes: number };
  'paged-extra': { readonly bytes: number };
  'next-over': { readonly requiredBytes: number; readonly overBytes: number };
  'not-at-memory': { readonly limit: FitBound['limit'] };
  'plan-hint': { readonly command: string };
  margin: { readonly marginFraction: number };
  'margin-hint': NoParams;
  'calibrated-on': { readonly source: string };
  'moved-prefix': NoParams;
  unchanged: NoParams;
  none: NoParams;
  'help-head': NoParams;
  'help-tail': NoParams;
}

export const FIT_REPORT = defineDomain<FitReportParams>({
  name: 'fit-report',
  words: {
    en: {
      'on-target': (p, f) =>
        `on ${p.name}: ${f.bytes(p.usableBytes)} usable, ${f.bytes(p.budgetBytes)} after the ${pct(p.marginFraction)} % margin  (┃ marks it)`,
      'label-micro-batch': () => 'micro-batch',
      'label-sequence': () => 'sequence',
      'unit-micro-batch': (p) => `× ${p.seqLen}`,
      'unit-tokens': () => 'tokens',
      'none-micro-batch': (p, f) =>
        `none: even 1 × ${p.seqLen} needs ${f.bytes(p.requiredBytes)}, over the ${f.bytes(p.budgetBytes)} budget`,
      'none-sequence': (p, f) =>
        `none: even 1 token needs ${f.bytes(p.requiredBytes)}, over the ${f.bytes(p.budgetBytes)} budget`,
      'paged-extra': (p, f) =>
        ` + ${f.bytes(p.bytes)} paged optimizer states, in host RAM where they do not fit`,
      'next-over': (p, f) =>
        `would need ${f.bytes(p.requiredBytes)}: ${f.bytes(p.overBytes)} over the budget`,
      'not-at-memory': (p) => `${say(FIT_LIMITS, 'en', { code: p.limit, params: {} })}, not at memory`,
      'plan-hint': (p) => `${p.command} finds the changes that make it fit`,
      margin: (p) => `the ${pct(p.marginFraction)} % margin: ${marginReason('en')}.`,
      'margin-hint': () => 'change it with --headroom, e.g. --headroom 5% for packed, fixed-length batches',
      'calibrated-on': (p) => `calibrated on ${p.source}: predicted from the measured baseline`,
      'moved-prefix': () => 'the estimate alone → calibrated: ',
      unchanged: () => '(unchanged)',
      none: () => 'none',
      'help-head': () => `headroom fit — the largest micro-batch and the longest sequence a GPU holds

Usage:
  headroom fit MODEL [flags] --gpu ID [--headroom 10%] [--json]
  headroom fit --from CONFIG --gpu ID
  headroom fit --calibrated RUN --gpu ID   from a measured run (headroom calibrate)

Searches the estimator (memory grows with both): the largest micro-batch at the scenario's sequence
length, and the longest sequence at its micro-batch. The value shown fits with the margin; one more does
not. The margin is there because real batches vary in length: each is padded to its longest sample.`,
      'help-tail': () => `Output:
  --json                    { scenario, target, microBatch, seqLen }, each bound with its value, peak,
                            the next value's peak and what stopped the search (limit: memory, context,
                            cap, calibration); with --calibrated also calibration: { run, factors,
                            bounds, uncalibrated: { microBatch, seqLen } } (the estimator's own limits)

Examples:
  headroom fit llama-3.1-8b --method qlora --quantization nf4 --precision bf16-true --gradient-checkpointing full --gpu rtx-4090
  headroom fit --from torchtune/recipes/configs/llama3_1/8B_lora_single_device.yaml --gpu a10g
  headroom fit --calibrated trial --gpu a10g
  headroom fit llama-3.1-8b --method lora --gpu a10g --lang zh`,
    },
    zh: {
      'on-target': (p, f) =>
        `${p.name}：可用 ${f.bytes(p.usableBytes)}，预留 ${pct(p.marginFraction)} % 余量后 ${f.bytes(p.budgetBytes)}（┃ 标出）`,
      'label-micro-batch': () => 'micro-batch',
      'label-sequence': () => '序列长度',
      'unit-micro-batch': (p) => `× ${p.seqLen}`,
      'unit-tokens': () => '个 token',
      'none-micro-batch': (p, f) =>
        `无：哪怕 1 × ${p.seqLen} 也需要 ${f.bytes(p.requiredBytes)}，超出 ${f.bytes(p.budgetBytes)} 的预算`,
      'none-sequence': (p, f) =>
        `无：哪怕 1 个 token 也需要 ${f.bytes(p.requiredBytes)}，超出 ${f.bytes(p.budgetBytes)} 的预算`,
      'paged-extra': (p, f) => ` + ${f.bytes(p.bytes)} 分页优化器状态，放不下的部分留在主机内存`,
      'next-over': (p, f) => `需要 ${f.bytes(p.requiredBytes)}：超出预算 ${f.bytes(p.overBytes)}`,
      'not-at-memory': (p) => `${say(FIT_LIMITS, 'zh', { code: p.limit, params: {} })}，而非因显存`,
      'plan-hint': (p) => `${p.command} 会找出让它放得下的调整`,
      margin: (p) => `${pct(p.marginFraction)} % 的余量：${marginReason('zh')}。`,
      'margin-hint': () => '用 --headroom 修改，例如打包的定长批次用 --headroom 5%',
      'calibrated-on': (p) => `按 ${p.source} 校准：从实测基线预测`,
      'moved-prefix': () => '单纯估算 → 校准后：',
      unchanged: () => '（不变）',
      none: () => '无',
      'help-head': () => `headroom fit —— 一块 GPU 能容纳的最大 micro-batch 和最长序列

用法：
  headroom fit MODEL [flags] --gpu ID [--headroom 10%] [--json]
  headroom fit --from CONFIG --gpu ID
  headroom fit --calibrated RUN --gpu ID   基于实测运行（headroom calibrate）

在估算器上搜索（显存随两者增长）：场景序列长度下的最大 micro-batch，以及其 micro-batch 下的最长序列。
显示的值在预留余量内放得下，再多一个就放不下。留余量是因为真实批次长度不一：每个批次都会填充到其中
最长的样本。`,
      'help-tail': () => `输出：
  --json                    { scenario, target, microBatch, seqLen }，每个界限带有它的值、峰值、下一个值的
                            峰值，以及搜索因何停止（limit：memory、context、cap、calibration）；使用
                            --calibrated 时还有 calibration: { run, factors, bounds, uncalibrated:
                            { microBatch, seqLen } }（估算器自己的界限）

示例：
  headroom fit llama-3.1-8b --method qlora --quantization nf4 --precision bf16-true --gradient-checkpointing full --gpu rtx-4090
  headroom fit --from torchtune/recipes/configs/llama3_1/8B_lora_single_device.yaml --gpu a10g
  headroom fit --calibrated trial --gpu a10g
  headroom fit llama-3.1-8b --method lora --gpu a10g --lang zh`,
    },
  },
  examples: {
    'on-target': {
      name: 'NVIDIA A10G',
      usableBytes: 23_836_229_632,
      budgetBytes: 21_452_606_668,
      marginFraction: 0.1,
    },
    'label-micro-batch': {},
    'label-sequence': {},
    'unit-micro-batch': { seqLen: 2048 },
    'unit-tokens': {},
    'none-micro-batch': { seqLen: 2048, requiredBytes: 2 ** 35, budgetBytes: 21_452_606_668 },
    'none-sequence': { requiredBytes: 2 ** 35, budgetBytes: 21_452_606_668 },
    'paged-extra': { bytes: 2 ** 33 },
    'next-over': { requiredBytes: 22_000_000_000, overBytes: 547_393_332 },
    'not-at-memory': { limit: 'context' },
    'plan-hint': { command: 'headroom plan llama-3.1-70b --gpu a10g' },
    margin: { marginFraction: 0.1 },
    'margin-hint': {},
    'calibrated-on': { source: 'run trial' },
    'moved-prefix': {},
    unchanged: {},
    none: {},
    'help-head': {},
    'help-tail': {},
  },
});
