/**
 * The words of `headroom plan`'s report around the rungs (src/cli/plan.ts): the target line, the
 * verdicts, the table headings and the notes under the ladder, and the command's own --help text,
 * in English and Chinese. The rungs, risks and dropped rungs have domains of their own.
 */
import type { NoParams } from '../core/message.js';
import type { RiskLevel, RungChange } from '../core/plan.js';
import { defineDomain, say } from './catalog.js';
import type { Format } from './format.js';
import { marginReason } from './margin.js';
import { PLAN_RUNGS } from './plan-rungs.js';

/** A time per token relative to the start: "1.31×" ("0.061×" under a tenth). */
export const relativeTime = (r: number): string => `${r < 0.1 ? r.toPrecision(2) : r.toFixed(2)}×`;

const pct = (fraction: number) => Math.round(fraction * 100);
const change = (c: RungChange, f: Format) => say(PLAN_RUNGS, f.lang, c);
const many = (gpus: number) => (gpus > 1 ? `${gpus} × ` : '');

export interface PlanReportParams {
  target: {
    readonly gpus: number;
    readonly name: string;
    readonly usableBytes: number;
    readonly budgetBytes: number;
    readonly marginFraction: number;
  };
  /** The estimate and its upper bound against the GPU. */
  'bar-of': { readonly bytes: number; readonly upperBytes: number; readonly usableBytes: number };
  /** freeBytes: what the GPU keeps free at the upper bound, as the verdict judges it. */
  'fits-already': {
    readonly peakBytes: number;
    readonly upperBytes: number;
    readonly freeBytes: number;
    readonly usableBytes: number;
    readonly beyondMarginBytes: number;
  };
  'fits-already-paged': { readonly pagedBytes: number };
  'as-given': NoParams;
  'column-change-stacked': NoParams;
  'column-peak-bar': NoParams;
  'column-peak': NoParams;
  'column-saved': NoParams;
  'column-time': NoParams;
  'column-risk': NoParams;
  'column-change': NoParams;
  'column-saved-then': NoParams;
  'column-saves-now': NoParams;
  level: { readonly level: RiskLevel };
  /** freeBytes: what the GPU keeps free at the upper bound. */
  'fits-after': {
    readonly changes: number;
    readonly peakBytes: number;
    readonly upperBytes: number;
    readonly freeBytes: number;
    readonly usableBytes: number;
    readonly relativeStepTime: number;
  };
  'nothing-fits': { readonly gpus: number; readonly gpu: string };
  'dropped-heading': { readonly changes: number };
  'saves-nothing': NoParams;
  'dropped-after': { readonly position: number; readonly after: RungChange };
  'dropped-fits-without': NoParams;
  risks: NoParams;
  'alternatives-heading': { readonly changes: number };
  'hardware-heading': NoParams;
  footnote: NoParams;
  calibrated: {
    readonly source: string;
    readonly predictedBytes: number;
    readonly movedBytes: number;
    readonly estimatedBytes: number;
  };
  /** --help: the title, usage and what the command does. */
  'help-head': NoParams;
  'help-allow-shorter': NoParams;
  /** --help: the output and the examples. */
  'help-tail': NoParams;
}

const sign = (n: number) => (n >= 0 ? '+' : '−');

export const PLAN_REPORT = defineDomain<PlanReportParams>({
  name: 'plan-report',
  words: {
    en: {
      target: (p, f) =>
        `target: ${many(p.gpus)}${p.name} — ${f.bytes(p.usableBytes)} usable, ${f.bytes(p.budgetBytes)} with the ${pct(p.marginFraction)} % margin (${marginReason('en')})`,
      'bar-of': (p, f) => `${f.bytesRange(p.bytes, p.upperBytes)} of ${f.bytes(p.usableBytes)}`,
      'fits-already': (p, f) =>
        `✓ fits already: ${f.bytesRange(p.peakBytes, p.upperBytes)} per GPU, ${f.bytes(p.freeBytes)} free at the upper bound (${f.percent(p.freeBytes / p.usableBytes)} headroom, ${f.bytes(p.beyondMarginBytes)} beyond the margin) — nothing to change`,
      'fits-already-paged': (p, f) =>
        `✓ fits already, with ${f.bytes(p.pagedBytes)} of the paged optimizer states in CPU RAM (paged in for every optimizer step: slower) — nothing has to change`,
      'as-given': () => 'as given',
      'column-change-stacked': () => 'change (each on top of the ones above)',
      'column-peak-bar': () => 'peak per GPU   ┃ = budget',
      'column-peak': () => 'peak',
      'column-saved': () => 'saved',
      'column-time': () => 'time/token',
      'column-risk': () => 'risk',
      'column-change': () => 'change',
      'column-saved-then': () => 'saved then',
      'column-saves-now': () => 'saves now',
      level: (p) => p.level,
      'fits-after': (p, f) =>
        `✓ fits after ${p.changes} change${p.changes > 1 ? 's' : ''}: ${f.bytesRange(p.peakBytes, p.upperBytes)} per GPU, ${f.bytes(p.freeBytes)} free at the upper bound (${f.percent(p.freeBytes / p.usableBytes)}), ${relativeTime(p.relativeStepTime)} the time per token`,
      'nothing-fits': (p) => `✗ nothing on the ladder fits ${many(p.gpus)}${p.gpu}`,
      'dropped-heading': (p) =>
        `tried on the way and not needed: the change${p.changes > 1 ? 's' : ''} above fit${p.changes > 1 ? '' : 's'} without each, as fast`,
      'saves-nothing': () => 'nothing',
      'dropped-after': (p, f) => `not needed after ${p.position} (${change(p.after, f)})`,
      'dropped-fits-without': () => 'not needed: fits without it',
      risks: () => 'risks:',
      'alternatives-heading': (p) => `instead of ${p.changes}, each of these fits too:`,
      'hardware-heading': () => 'hardware that runs it (with only the risk-free changes above):',
      footnote: () =>
        'time/token: relative time to train on the same tokens (time model: FLOPs at 40 % of peak, links, offload)',
      calibrated: (p, f) =>
        `calibrated on ${p.source}: ${f.bytes(p.predictedBytes)} per GPU from the measured baseline, ${sign(p.movedBytes)}${f.bytes(Math.abs(p.movedBytes))} (${sign(p.movedBytes)}${Math.abs((100 * p.movedBytes) / p.estimatedBytes).toFixed(1)} %) from the estimate alone (${f.bytes(p.estimatedBytes)}); every rung below is calibrated`,
      'help-head': () => `headroom plan — the cheapest changes that make a run fit

Usage:
  headroom plan MODEL [flags] --gpu ID [--gpus N] [--headroom 10%] [--allow-shorter] [--json]
  headroom plan --from CONFIG --gpu ID
  headroom plan --scenario FILE --gpu ID
  headroom plan --calibrated RUN --micro-batch 8 --gpu ID   from a measured run (headroom calibrate)

Climbs a ladder, cheapest change first, each on top of the ones before and skipped where it saves
nothing: sdpa attention, smaller micro-batch with more accumulation (same effective batch), selective
then full activation checkpointing, chunked loss, shorter sequences (only with --allow-shorter), pure
bf16, an 8-bit optimizer, LoRA, QLoRA, ZeRO-2 then ZeRO-3 across --gpus, CPU then NVMe offload. Stops at
the first rung that fits, then leaves out each rung a later one made pointless (an 8-bit optimizer once
LoRA trains only the adapters): every change shown is needed to fit as fast, with sequences as long.
Lists the next best alternatives; if nothing fits, the hardware that would.
Each rung shows the memory it saves, the time per training token relative to the start (docs/time-model.md)
and its risk.`,
      'help-allow-shorter': () =>
        '  --allow-shorter           let the plan shorten sequences (truncates samples)',
      'help-tail': () => `Output:
  --json                    { scenario, target, fitsAlready, rungs: [{ change, scenario, estimate, savedBytes,
                            relativeStepTime, risk, fits }], alternatives, dropped: [{ rung, from,
                            savingBytes, after }] }, rungs in the order applied; change: { id, code,
                            params } and risk: { level, code, params } (the words come from the
                            catalog, in --lang); dropped: the rungs climbed and left out (rung and from
                            as climbed, savingBytes on top of the rungs shown, after: the shown rung
                            that took most of its saving, or null);
                            with --calibrated also calibration: { run, factors, estimated, predicted,
                            movedBytes } for the scenario as given

Examples:
  headroom plan llama-3.1-8b --method full --micro-batch 4 --gpu rtx-4090
  headroom plan llama-3.1-70b --method full --gpus 8 --gpu h100-sxm
  headroom plan --from examples/llama-3/fft-8b.yaml --gpu a100-sxm-80gb
  headroom plan llama-3.1-8b --method full --gpu rtx-4090 --lang zh`,
    },
    zh: {
      target: (p, f) =>
        `目标：${many(p.gpus)}${p.name}——可用 ${f.bytes(p.usableBytes)}，预留 ${pct(p.marginFraction)} % 余量后 ${f.bytes(p.budgetBytes)}（${marginReason('zh')}）`,
      'bar-of': (p, f) => `${f.bytesRange(p.bytes, p.upperBytes)} / ${f.bytes(p.usableBytes)}`,
      'fits-already': (p, f) =>
        `✓ 已经放得下：每块 GPU ${f.bytesRange(p.peakBytes, p.upperBytes)}，按上界剩余 ${f.bytes(p.freeBytes)}（余量 ${f.percent(p.freeBytes / p.usableBytes)}，超出预留余量 ${f.bytes(p.beyondMarginBytes)}）——无需调整`,
      'fits-already-paged': (p, f) =>
        `✓ 已经放得下，但有 ${f.bytes(p.pagedBytes)} 分页优化器状态放在 CPU 内存中（每次优化器更新都要换入：较慢）——不必调整`,
      'as-given': () => '原始配置',
      'column-change-stacked': () => '调整（每项叠加在上面各项之上）',
      'column-peak-bar': () => '单卡峰值   ┃ = 预算',
      'column-peak': () => '峰值',
      'column-saved': () => '节省',
      'column-time': () => '每 token 时间',
      'column-risk': () => '风险',
      'column-change': () => '调整',
      'column-saved-then': () => '当时节省',
      'column-saves-now': () => '现在节省',
      level: (p) => ({ none: '无', low: '低', medium: '中', high: '高' })[p.level],
      'fits-after': (p, f) =>
        `✓ ${p.changes} 项调整后放得下：每块 GPU ${f.bytesRange(p.peakBytes, p.upperBytes)}，按上界剩余 ${f.bytes(p.freeBytes)}（${f.percent(p.freeBytes / p.usableBytes)}），每 token 时间为原来的 ${relativeTime(p.relativeStepTime)}`,
      'nothing-fits': (p) => `✗ 调整方案中没有一项能放进 ${many(p.gpus)}${p.gpu}`,
      'dropped-heading': () => '途中尝试过、但并不需要的调整：没有它们，上面的调整也放得下，而且一样快',
      'saves-nothing': () => '不再节省',
      'dropped-after': (p, f) => `有了第 ${p.position} 项（${change(p.after, f)}）就不再需要`,
      'dropped-fits-without': () => '不需要：没有它也放得下',
      risks: () => '风险：',
      'alternatives-heading': (p) => `不用第 ${p.changes} 项，下面每一项也都放得下：`,
      'hardware-heading': () => '能运行它的硬件（只应用上面无风险的调整）：',
      footnote: () =>
        '每 token 时间：训练相同 token 所需的相对时间（时间模型：按峰值 40 % 的 FLOPs，加上互联与卸载）',
      calibrated: (p, f) =>
        `按 ${p.source} 校准：从实测基线预测每块 GPU ${f.bytes(p.predictedBytes)}，比单纯估算（${f.bytes(p.estimatedBytes)}）${sign(p.movedBytes)}${f.bytes(Math.abs(p.movedBytes))}（${sign(p.movedBytes)}${Math.abs((100 * p.movedBytes) / p.estimatedBytes).toFixed(1)} %）；下面每一项都经过校准`,
      'help-head': () => `headroom plan —— 让一次运行放得下的最低代价调整

用法：
  headroom plan MODEL [flags] --gpu ID [--gpus N] [--headroom 10%] [--allow-shorter] [--json]
  headroom plan --from CONFIG --gpu ID
  headroom plan --scenario FILE --gpu ID
  headroom plan --calibrated RUN --micro-batch 8 --gpu ID   基于实测运行（headroom calibrate）

按代价从低到高逐级尝试调整，每项叠加在之前各项之上，不省显存的项跳过：sdpa 注意力；更小的
micro-batch 配更多梯度累积（有效批量不变）；先选择性、再完整的激活检查点；分块损失；更短的序列（仅在
--allow-shorter 时）；纯 bf16；8 位优化器；LoRA；QLoRA；在 --gpus 块 GPU 上先 ZeRO-2 再 ZeRO-3；先卸载到
CPU，再卸载到 NVMe。到第一项放得下时停止，然后去掉被后面某项变得多余的调整（LoRA 只训练适配器后，
8 位优化器就没用了）：列出的每项调整都是在同样快、序列同样长的前提下放得下所必需的。
还会列出次优的替代方案；若都放不下，则列出能放下的硬件。
每项显示它节省的显存、相对于起点的每训练 token 时间（docs/time-model.md）及其风险。`,
      'help-allow-shorter': () => '  --allow-shorter           允许缩短序列（会截断样本）',
      'help-tail': () => `输出：
  --json                    { scenario, target, fitsAlready, rungs: [{ change, scenario, estimate, savedBytes,
                            relativeStepTime, risk, fits }], alternatives, dropped: [{ rung, from,
                            savingBytes, after }] }，rungs 按应用顺序排列；change 为 { id, code, params }，
                            risk 为 { level, code, params }（文字来自词条目录，按 --lang 的语言）；dropped：
                            尝试过又去掉的调整（rung 与 from 为尝试时的样子，savingBytes 为叠加在列出各项
                            之上时的节省，after：拿走其大部分节省的那一项，或 null）；
                            使用 --calibrated 时还有 calibration: { run, factors, estimated, predicted,
                            movedBytes }，对应原始配置

示例：
  headroom plan llama-3.1-8b --method full --micro-batch 4 --gpu rtx-4090
  headroom plan llama-3.1-70b --method full --gpus 8 --gpu h100-sxm
  headroom plan --from examples/llama-3/fft-8b.yaml --gpu a100-sxm-80gb
  headroom plan llama-3.1-8b --method full --gpu rtx-4090 --lang zh`,
    },
  },
  examples: {
    target: {
      gpus: 1,
      name: 'NVIDIA GeForce RTX 4090',
      usableBytes: 25_757_220_864,
      budgetBytes: 23_181_498_777,
      marginFraction: 0.1,
    },
    'bar-of': { bytes: 2 ** 34, upperBytes: 2 ** 34 * 1.1, usableBytes: 25_757_220_864 },
    'fits-already': {
      peakBytes: 2 ** 34,
      upperBytes: 2 ** 34 * 1.1,
      freeBytes: 25_757_220_864 - 2 ** 34,
      usableBytes: 25_757_220_864,
      beyondMarginBytes: 23_181_498_777 - 2 ** 34,
    },
    'fits-already-paged': { pagedBytes: 2 ** 32 },
    'as-given': {},
    'column-change-stacked': {},
    'column-peak-bar': {},
    'column-peak': {},
    'column-saved': {},
    'column-time': {},
    'column-risk': {},
    'column-change': {},
    'column-saved-then': {},
    'column-saves-now': {},
    level: { level: 'medium' },
    'fits-after': {
      changes: 4,
      peakBytes: 19_507_000_000,
      upperBytes: 21_507_000_000,
      freeBytes: 4_250_000_000,
      usableBytes: 25_757_220_864,
      relativeStepTime: 1.31,
    },
    'nothing-fits': { gpus: 8, gpu: 'a100-sxm-80gb' },
    'dropped-heading': { changes: 3 },
    'saves-nothing': {},
    'dropped-after': { position: 4, after: { id: 'lora', code: 'lora', params: { rank: 16 } } },
    'dropped-fits-without': {},
    risks: {},
    'alternatives-heading': { changes: 4 },
    'hardware-heading': {},
    footnote: {},
    calibrated: {
      source: 'run trial',
      predictedBytes: 2 ** 34,
      movedBytes: -(2 ** 30),
      estimatedBytes: 17 * 2 ** 30,
    },
    'help-head': {},
    'help-allow-shorter': {},
    'help-tail': {},
  },
});
