/**
 * The words of `headroom import` (src/cli/import.ts) around the report's reasons: the format named,
 * the table headings, where each field came from, the kinds of unmapped keys, the next step and the
 * command's --help, in English and Chinese. The reasons themselves are import-reasons'.
 */
import type { ConfigFormat, ImportReason, UnmappedKind } from '../core/import/import-report.js';
import type { NoParams } from '../core/message.js';
import { defineDomain, say } from './catalog.js';
import { IMPORT_REASONS } from './import-reasons.js';

export interface ImportReportParams {
  /** The file and the format it was read as. */
  heading: { readonly file: string; readonly format: ConfigFormat };
  'with-deepspeed': { readonly path: string };
  'column-field': NoParams;
  'column-value': NoParams;
  'column-from': NoParams;
  /** An assumed field's "from": a trainer default, and why. */
  'trainer-default': { readonly reason: ImportReason };
  'headroom-default': NoParams;
  /** A field the file leaves unset that its framework's profile fills: the fact's id (docs/frameworks.md). */
  'profile-default': { readonly framework: string; readonly factId: string };
  'not-mapped': NoParams;
  'column-key': NoParams;
  'column-why': NoParams;
  /** What kind of unmapped key; "auto" has no words of its own (its reason says it). */
  kind: { readonly kind: Exclude<UnmappedKind, 'auto'> };
  'next-no-model': { readonly file: string };
  next: { readonly file: string };
  help: NoParams;
}

const FORMAT_EN: Readonly<Record<ConfigFormat, string>> = {
  'llama-factory': 'LLaMA-Factory config',
  axolotl: 'Axolotl config',
  torchtune: 'torchtune recipe config',
  'hf-trainer': 'TrainingArguments / TRL config',
  accelerate: 'accelerate launch config',
  deepspeed: 'DeepSpeed config',
};
const FORMAT_ZH: Readonly<Record<ConfigFormat, string>> = {
  'llama-factory': 'LLaMA-Factory 配置',
  axolotl: 'Axolotl 配置',
  torchtune: 'torchtune 配方配置',
  'hf-trainer': 'TrainingArguments / TRL 配置',
  accelerate: 'accelerate 启动配置',
  deepspeed: 'DeepSpeed 配置',
};

export const IMPORT_REPORT = defineDomain<ImportReportParams>({
  name: 'import-report',
  words: {
    en: {
      heading: (p) => `${p.file} — ${FORMAT_EN[p.format]}`,
      'with-deepspeed': (p) => `with the DeepSpeed file it names: ${p.path}`,
      'column-field': () => 'scenario field',
      'column-value': () => 'value',
      'column-from': () => 'from',
      'trainer-default': (p) => `trainer default: ${say(IMPORT_REASONS, 'en', p.reason)}`,
      'headroom-default': () => 'not in the file: Headroom default',
      'profile-default': (p) => `not in the file: ${p.framework} profile (${p.factId})`,
      'not-mapped': () => 'not mapped',
      'column-key': () => 'key',
      'column-why': () => 'why',
      kind: (p) =>
        ({ 'no-field': 'no scenario field', deferred: 'decided elsewhere', unresolved: 'not understood' })[
          p.kind
        ],
      'next-no-model': (p) => `no model in this file: headroom estimate MODEL --from ${p.file} --gpu ID`,
      next: (p) => `next: headroom estimate --from ${p.file} --gpu ID   (flags override the file)`,
      help: () => `headroom import FILE — turn a trainer config into a Headroom scenario

Usage:
  headroom import FILE [--json]

Reads LLaMA-Factory, Axolotl and torchtune YAML, Hugging Face TrainingArguments / TRL SFTConfig (YAML or
JSON), accelerate launch configs and DeepSpeed JSON. A DeepSpeed file the config names is read too
(looked for beside the config, in the folders above it, then in the working directory). DeepSpeed's
"auto" values are reported, never guessed.

Output:
  --json                    { scenario, mapped, unmapped, assumed }: the scenario fields the file sets
                            (model kept as the config names it) plus the trainer's defaults it relies on;
                            each unmapped key and assumed field has reason: { code, params } (the words
                            come from the catalog, in --lang)

Use the config directly with --from on estimate, plan, fit, gpus --for and migrate; flags override it:
  headroom import examples/llama-3/qlora.yml
  headroom import examples/llama-3/qlora.yml --lang zh
  headroom estimate --from examples/llama-3/qlora.yml --gpu rtx-4090 --seq-len 2048`,
    },
    zh: {
      heading: (p) => `${p.file}——${FORMAT_ZH[p.format]}`,
      'with-deepspeed': (p) => `连同它指定的 DeepSpeed 文件：${p.path}`,
      'column-field': () => '场景字段',
      'column-value': () => '值',
      'column-from': () => '来源',
      'trainer-default': (p) => `${say(IMPORT_REASONS, 'zh', p.reason)}（训练器默认值）`,
      'headroom-default': () => '文件中没有：Headroom 默认值',
      'profile-default': (p) => `文件中没有：${p.framework} 配置（${p.factId}）`,
      'not-mapped': () => '未映射',
      'column-key': () => '键',
      'column-why': () => '原因',
      kind: (p) =>
        ({ 'no-field': '没有对应的场景字段', deferred: '由别处决定', unresolved: '无法识别' })[p.kind],
      'next-no-model': (p) => `此文件中没有模型：headroom estimate MODEL --from ${p.file} --gpu ID`,
      next: (p) => `下一步：headroom estimate --from ${p.file} --gpu ID   （命令行参数优先于文件）`,
      help: () => `headroom import FILE —— 把训练配置转换为 Headroom 场景

用法：
  headroom import FILE [--json]

读取 LLaMA-Factory、Axolotl 和 torchtune 的 YAML，Hugging Face TrainingArguments / TRL SFTConfig（YAML 或
JSON），accelerate 启动配置和 DeepSpeed JSON。配置指定的 DeepSpeed 文件也会读取（先在配置旁边找，再到其上
各层文件夹，然后是工作目录）。DeepSpeed 的 "auto" 值只报告，从不猜测。

输出：
  --json                    { scenario, mapped, unmapped, assumed }：文件设置的场景字段（model 保留配置中的
                            写法）以及它所依赖的训练器默认值；每个未映射的键和假定的字段都有
                            reason: { code, params }（文字来自词条目录，按 --lang 的语言）

在 estimate、plan、fit、gpus --for 和 migrate 上用 --from 直接使用该配置；命令行参数优先于文件：
  headroom import examples/llama-3/qlora.yml
  headroom import examples/llama-3/qlora.yml --lang zh
  headroom estimate --from examples/llama-3/qlora.yml --gpu rtx-4090 --seq-len 2048`,
    },
  },
  examples: {
    heading: { file: 'examples/llama-3/qlora.yml', format: 'axolotl' },
    'with-deepspeed': { path: 'deepspeed_configs/zero3.json' },
    'column-field': {},
    'column-value': {},
    'column-from': {},
    'trainer-default': { reason: { code: 'alpha-twice-rank', params: {} } },
    'headroom-default': {},
    'profile-default': { framework: 'litgpt', factId: 'litgpt.untied-head' },
    'not-mapped': {},
    'column-key': {},
    'column-why': {},
    kind: { kind: 'deferred' },
    'next-no-model': { file: 'ds_z3.json' },
    next: { file: 'examples/llama-3/qlora.yml' },
    help: {},
  },
});
