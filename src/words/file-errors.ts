/**
 * The words of the errors a file's content raises (src/core/file-errors.ts), in English and Chinese:
 * each reason's message (`FILE_ERRORS`) and what to do (`FILE_ERROR_HINTS`). The English words are the
 * error's `message` and `hint` as the core raises it (registered below); the CLI speaks the same codes
 * in the user's language. A parser's own words (`detail`: JSON.parse, the yaml package) stay as it wrote them.
 */
import type { ErrorParam } from '../core/errors.js';
import {
  type ConfigFigure,
  type ContentErrorParams,
  type FileErrorReason,
  type FileKind,
  type ShapeExpected,
  speakFileErrorsWith,
} from '../core/file-errors.js';
import { formatBytes } from '../core/safetensors.js';
import { type AnyDomain, defineDomain } from './catalog.js';
import { CLI_ERROR_HINTS, CLI_ERRORS } from './cli-errors.js';
import { FORMATS } from './format.js';
import type { Lang } from './lang.js';
import {
  HUB_ERROR_HINTS,
  HUB_ERRORS,
  INDEX_ERROR_HINTS,
  INDEX_ERRORS,
  MODEL_FILE_ERROR_HINTS,
  MODEL_FILE_ERRORS,
} from './model-errors.js';
import { LEDGER_ERROR_HINTS, LEDGER_ERRORS, PATH_ERROR_HINTS, PATH_ERRORS } from './path-errors.js';
import { PROMETHEUS_ERROR_HINTS, PROMETHEUS_ERRORS } from './prometheus-errors.js';
import { RUN_ERROR_HINTS, RUN_ERRORS } from './run-errors.js';
import { SNAPSHOT_ERROR_HINTS, SNAPSHOT_ERRORS } from './snapshot-errors.js';

const FIGURE_EN: Readonly<Record<ConfigFigure, string>> = {
  hidden: 'hidden size',
  layers: 'layer count',
  heads: 'attention head count',
  vocab: 'vocabulary size',
};
const FIGURE_ZH: Readonly<Record<ConfigFigure, string>> = {
  hidden: '隐藏层大小',
  layers: '层数',
  heads: '注意力头数',
  vocab: '词表大小',
};

type Shaped = ContentErrorParams['wrong-shape'];

function expectedEn(p: Shaped): string {
  const words: Readonly<Record<ShapeExpected, () => string>> = {
    string: () => 'a string',
    boolean: () => 'true or false',
    number: () => `a number${p.min === undefined ? '' : ` of at least ${p.min}`}`,
    'whole-number': () => `a whole number${p.min === undefined ? '' : ` of at least ${p.min}`}`,
    'one-of': () => `one of ${(p.values ?? []).join(', ')}`,
    list: () => 'a list',
    'short-list': () => `a list of at most ${p.maxItems} items`,
    object: () => 'an object',
    part: () => '{"status": "ok", "value": ...} or {"status": "missing", "reason": ...}',
  };
  return words[p.expected]();
}

function expectedZh(p: Shaped): string {
  const words: Readonly<Record<ShapeExpected, () => string>> = {
    string: () => '字符串',
    boolean: () => 'true 或 false',
    number: () => (p.min === undefined ? '数字' : `不小于 ${p.min} 的数字`),
    'whole-number': () => (p.min === undefined ? '整数' : `不小于 ${p.min} 的整数`),
    'one-of': () => `以下取值之一：${(p.values ?? []).join('、')}`,
    list: () => '列表',
    'short-list': () => `至多 ${p.maxItems} 项的列表`,
    object: () => '对象',
    part: () => '{"status": "ok", "value": ...} 或 {"status": "missing", "reason": ...}',
  };
  return words[p.expected]();
}

/** A value as the English words name its kind (`a list`, `missing`), in Chinese; a JSON scalar as it is. */
const FOUND_ZH: Readonly<Record<string, string>> = {
  missing: '缺失',
  null: 'null',
  'a null': 'null',
  'a list': '列表',
  'an array': '数组',
  'an object': '对象',
  'a object': '对象',
  'a string': '字符串',
  'a long string': '长字符串',
  'a number': '数字',
  'a boolean': '布尔值',
  'a bigint': '整数',
  'a undefined': '缺失',
};
const foundZh = (shown: string): string => FOUND_ZH[shown] ?? shown;

const TRAINERS = 'LLaMA-Factory, Axolotl, torchtune, TrainingArguments/TRL, accelerate or DeepSpeed';
const TRAINERS_ZH = 'LLaMA-Factory、Axolotl、torchtune、TrainingArguments/TRL、accelerate 或 DeepSpeed';
const SCENARIO_EXAMPLE = '{"model": "llama-3.1-8b", "method": "lora"}';
const ENV_HINT_EN = 'capture one with: headroom env capture -o env.json';
const ENV_HINT_ZH = '用以下命令采集一份：headroom env capture -o env.json';

const KIND_HINT_EN: Readonly<Record<FileKind, string>> = {
  env: ENV_HINT_EN,
  'trainer-config': 'a trainer config nests a few levels; check that this is the config you meant',
};
const KIND_HINT_ZH: Readonly<Record<FileKind, string>> = {
  env: ENV_HINT_ZH,
  'trainer-config': '训练配置只嵌套几层；请确认这是你想给的配置',
};

const CORRUPT = 'the file is not a safetensors file or is corrupt';
const CORRUPT_ZH = '该文件不是 safetensors 文件，或已损坏';
const SAFETENSORS_HINT =
  'check that the file is a complete safetensors file (re-download it if it was cut short or is a Git LFS pointer)';
const SAFETENSORS_HINT_ZH =
  '确认这是完整的 safetensors 文件（若下载不完整或是 Git LFS 指针文件，请重新下载）';

const lineOf = (line: number) => (line > 0 ? `:${line}` : '');

export const FILE_ERRORS = defineDomain<ContentErrorParams>({
  name: 'file-errors',
  words: {
    en: {
      'config-dimension': (p) =>
        `${p.file}: "${p.field}" must be a whole number from ${p.min} to ${p.max}, not ${p.value}`,
      'config-missing-figure': (p) =>
        `${p.file} has no usable ${FIGURE_EN[p.figure]} (looked for ${p.keys.join(', ')})`,
      'too-deep': (p) => `${p.file}: nested more than ${p.maxDepth} levels deep (no real file is)`,
      'wrong-shape': (p) => `${p.file}: ${p.field || 'the file'} must be ${expectedEn(p)}, not ${p.value}`,
      'env-not-json': (p) => `${p.file}: not valid JSON (${p.detail})`,
      'env-not-object': (p) => `${p.file}: not a JSON object`,
      'env-not-headroom': (p) => `${p.file}: not a Headroom environment file (no "kind": "headroom-env")`,
      'env-version': (p) => `${p.file}: environment file version ${p.version} is not supported (1 is)`,
      'config-not-json': (p) => `${p.file}: not valid JSON (${p.detail})`,
      'config-not-yaml': (p) => `${p.file}${lineOf(p.line)}: not valid YAML (${p.detail})`,
      'config-yaml-too-large': (p) =>
        `${p.path} is ${p.bytes} characters of YAML: larger than any trainer config (limit ${p.maxBytes})`,
      'config-not-mapping': (p) =>
        `${p.file}: a trainer config must be a mapping of keys to values, not ${p.found}`,
      'config-unknown-format': (p) =>
        `${p.file}: not a trainer config Headroom recognises (${p.formats.join(', ')})`,
      'scenario-empty': (p) => `${p.file} is empty`,
      'scenario-not-json': (p) =>
        `${p.file} is not valid JSON${p.place === '' ? '' : ` at ${p.place}`} (${p.detail})`,
      'scenario-line-not-json': (p) => `${p.file}:${p.line}: not valid JSON (${p.detail})`,
      'scenario-not-object': (p) => `${p.file}:${p.line}: ${p.found}, not a scenario object`,
      'safetensors-too-short': (p) =>
        `${p.file}: file is ${p.bytes} bytes long, shorter than the 8-byte header length — not a safetensors file`,
      'safetensors-lfs-pointer': (p) => `${p.file}: is a Git LFS pointer file, not the weights`,
      'safetensors-empty-header': (p) => `${p.file}: header length is 0 — ${CORRUPT}`,
      'safetensors-header-too-large': (p) =>
        `${p.file}: header length ${formatBytes(p.headerBytes)} exceeds the ${formatBytes(p.maxBytes)} limit — ${CORRUPT}`,
      'safetensors-header-past-end': (p) =>
        `${p.file}: header length ${p.headerBytes} bytes runs past the end of the ${p.fileBytes}-byte file — the file is truncated or corrupt`,
      'safetensors-no-brace': (p) => `${p.file}: header does not begin with '{' — ${CORRUPT}`,
      'safetensors-not-utf8': (p) => `${p.file}: header is not valid UTF-8`,
      'safetensors-not-json': (p) =>
        `${p.file}: header is not valid JSON${p.detail === '' ? '' : ` (${p.detail})`}`,
    },
    zh: {
      'config-dimension': (p) =>
        `${p.file}：“${p.field}”必须是 ${p.min} 到 ${p.max} 之间的整数，而不是 ${foundZh(p.value)}`,
      'config-missing-figure': (p) =>
        `${p.file} 中没有可用的${FIGURE_ZH[p.figure]}（查找了 ${p.keys.join('、')}）`,
      'too-deep': (p) => `${p.file}：嵌套超过 ${p.maxDepth} 层（真实的文件不会这样）`,
      'wrong-shape': (p) =>
        p.value === 'missing'
          ? `${p.file}：缺少 ${p.field || '内容'}（应为${expectedZh(p)}）`
          : `${p.file}：${p.field || '文件本身'} 必须是${expectedZh(p)}，而不是 ${foundZh(p.value)}`,
      'env-not-json': (p) => `${p.file}：不是有效的 JSON（${p.detail}）`,
      'env-not-object': (p) => `${p.file}：不是 JSON 对象`,
      'env-not-headroom': (p) => `${p.file}：不是 Headroom 环境文件（没有 "kind": "headroom-env"）`,
      'env-version': (p) =>
        p.version === 'missing'
          ? `${p.file}：环境文件没有版本号（支持版本 1）`
          : `${p.file}：不支持版本为 ${foundZh(p.version)} 的环境文件（支持版本 1）`,
      'config-not-json': (p) => `${p.file}：不是有效的 JSON（${p.detail}）`,
      'config-not-yaml': (p) => `${p.file}${lineOf(p.line)}：不是有效的 YAML（${p.detail}）`,
      'config-yaml-too-large': (p) =>
        `${p.path} 有 ${p.bytes} 个字符的 YAML，比任何训练配置都大（上限 ${p.maxBytes}）`,
      'config-not-mapping': (p) => `${p.file}：训练配置必须是键到值的映射，而不是${foundZh(p.found)}`,
      'config-unknown-format': (p) => `${p.file}：不是 Headroom 认识的训练配置（${p.formats.join('、')}）`,
      'scenario-empty': (p) => `${p.file} 是空的`,
      'scenario-not-json': (p) =>
        `${p.file} 不是有效的 JSON${p.place === '' ? '' : `（位置：${p.place}）`}（${p.detail}）`,
      'scenario-line-not-json': (p) => `${p.file}:${p.line}：不是有效的 JSON（${p.detail}）`,
      'scenario-not-object': (p) => `${p.file}:${p.line}：该条目是 ${foundZh(p.found)}，而不是场景对象`,
      'safetensors-too-short': (p) =>
        `${p.file}：文件只有 ${p.bytes} 字节，不足 8 字节的头部长度字段——不是 safetensors 文件`,
      'safetensors-lfs-pointer': (p) => `${p.file}：是 Git LFS 指针文件，而不是权重本身`,
      'safetensors-empty-header': (p) => `${p.file}：头部长度为 0——${CORRUPT_ZH}`,
      'safetensors-header-too-large': (p) =>
        `${p.file}：头部长度 ${formatBytes(p.headerBytes)} 超过 ${formatBytes(p.maxBytes)} 的上限——${CORRUPT_ZH}`,
      'safetensors-header-past-end': (p) =>
        `${p.file}：头部长度 ${p.headerBytes} 字节超出了这个 ${p.fileBytes} 字节的文件末尾——文件不完整或已损坏`,
      'safetensors-no-brace': (p) => `${p.file}：头部不是以 '{' 开头——${CORRUPT_ZH}`,
      'safetensors-not-utf8': (p) => `${p.file}：头部不是有效的 UTF-8`,
      'safetensors-not-json': (p) =>
        `${p.file}：头部不是有效的 JSON${p.detail === '' ? '' : `（${p.detail}）`}`,
    },
  },
  examples: {
    'config-dimension': { file: 'my-model', field: 'hidden_size', min: 1, max: 1_048_576, value: '-5' },
    'config-missing-figure': { file: 'my-model', figure: 'vocab', keys: ['vocab_size', 'padded_vocab_size'] },
    'too-deep': { file: 'env.json', maxDepth: 64, kind: 'env' },
    'wrong-shape': {
      file: 'env.json',
      field: 'gpus.value[0].memoryTotalBytes',
      expected: 'number',
      min: 0,
      value: '"lots"',
      kind: 'env',
    },
    'env-not-json': { file: 'env.json', detail: 'Unexpected end of JSON input' },
    'env-not-object': { file: 'env.json' },
    'env-not-headroom': { file: 'env.json' },
    'env-version': { file: 'env.json', version: '2' },
    'config-not-json': { file: 'config.json', detail: 'Unexpected token }' },
    'config-not-yaml': { file: 'config.yaml', line: 3, detail: 'Nested mappings are not allowed' },
    'config-yaml-too-large': { path: 'config.yaml', problem: 'too-large', bytes: 300_000, maxBytes: 262_144 },
    'config-not-mapping': { file: 'config.yaml', found: 'a list' },
    'config-unknown-format': { file: 'config.yaml', formats: ['llamafactory', 'axolotl'] },
    'scenario-empty': { file: 'run.json' },
    'scenario-not-json': { file: 'run.json', place: 'line 3, column 1', detail: 'Unexpected token }' },
    'scenario-line-not-json': { file: 'runs.jsonl', line: 2, detail: 'Unexpected end of JSON input' },
    'scenario-not-object': { file: 'runs.jsonl', line: 4, found: 'null' },
    'safetensors-too-short': { file: 'model.safetensors', bytes: 3 },
    'safetensors-lfs-pointer': { file: 'model.safetensors' },
    'safetensors-empty-header': { file: 'model.safetensors' },
    'safetensors-header-too-large': {
      file: 'model.safetensors',
      headerBytes: 9_200_000_000,
      maxBytes: 100_000_000,
    },
    'safetensors-header-past-end': { file: 'model.safetensors', headerBytes: 4096, fileBytes: 100 },
    'safetensors-no-brace': { file: 'model.safetensors' },
    'safetensors-not-utf8': { file: 'model.safetensors' },
    'safetensors-not-json': { file: 'model.safetensors', detail: 'Unexpected end of JSON input' },
  },
});

export const FILE_ERROR_HINTS = defineDomain<ContentErrorParams>({
  name: 'file-error-hints',
  words: {
    en: {
      'config-dimension': () =>
        'fix the config.json (a per-layer list is not modelled), or pass a catalog id (headroom models)',
      'config-missing-figure': () =>
        'pass a complete Hugging Face config.json, or a catalog id (headroom models)',
      'too-deep': (p) => KIND_HINT_EN[p.kind],
      'wrong-shape': (p) => KIND_HINT_EN[p.kind],
      'env-not-json': () => ENV_HINT_EN,
      'env-not-object': () => ENV_HINT_EN,
      'env-not-headroom': () => ENV_HINT_EN,
      'env-version': () => ENV_HINT_EN,
      'config-not-json': () => 'fix the JSON, or check that this is the config you meant',
      'config-not-yaml': () => 'fix the YAML, or check that this is the config you meant',
      'config-yaml-too-large': () => 'check that this is the config you meant, or give it as JSON',
      'config-not-mapping': () => `pass a ${TRAINERS} config`,
      'config-unknown-format': () =>
        'write the scenario as JSON instead (docs/scenario.md) and pass it with --scenario',
      'scenario-empty': () => `write one scenario object, e.g. ${SCENARIO_EXAMPLE}`,
      'scenario-not-json': () =>
        'a scenario file is one JSON object (or an array of them), or JSON Lines: one complete object per line',
      'scenario-line-not-json': () => 'each line of a JSON Lines file must be one complete JSON object',
      'scenario-not-object': () => `each scenario is a JSON object, e.g. ${SCENARIO_EXAMPLE}`,
      'safetensors-too-short': () => SAFETENSORS_HINT,
      'safetensors-lfs-pointer': () => 'run `git lfs pull` in the model folder, or download the real file',
      'safetensors-empty-header': () => SAFETENSORS_HINT,
      'safetensors-header-too-large': () => SAFETENSORS_HINT,
      'safetensors-header-past-end': () => SAFETENSORS_HINT,
      'safetensors-no-brace': () => SAFETENSORS_HINT,
      'safetensors-not-utf8': () => SAFETENSORS_HINT,
      'safetensors-not-json': () => SAFETENSORS_HINT,
    },
    zh: {
      'config-dimension': () => '修改 config.json（不支持按层给出的列表），或给出目录 id（headroom models）',
      'config-missing-figure': () => '给出完整的 Hugging Face config.json，或目录 id（headroom models）',
      'too-deep': (p) => KIND_HINT_ZH[p.kind],
      'wrong-shape': (p) => KIND_HINT_ZH[p.kind],
      'env-not-json': () => ENV_HINT_ZH,
      'env-not-object': () => ENV_HINT_ZH,
      'env-not-headroom': () => ENV_HINT_ZH,
      'env-version': () => ENV_HINT_ZH,
      'config-not-json': () => '修正 JSON，或确认这是你想给的配置',
      'config-not-yaml': () => '修正 YAML，或确认这是你想给的配置',
      'config-yaml-too-large': () => '确认这是你想给的配置，或改用 JSON 给出',
      'config-not-mapping': () => `给出 ${TRAINERS_ZH} 的配置`,
      'config-unknown-format': () => '改为用 JSON 写出场景（见 docs/scenario.md），并用 --scenario 传入',
      'scenario-empty': () => `写一个场景对象，例如 ${SCENARIO_EXAMPLE}`,
      'scenario-not-json': () =>
        '场景文件是一个 JSON 对象（或它们的数组），或 JSON Lines：每行一个完整的对象',
      'scenario-line-not-json': () => 'JSON Lines 文件的每一行都必须是一个完整的 JSON 对象',
      'scenario-not-object': () => `每个场景都是一个 JSON 对象，例如 ${SCENARIO_EXAMPLE}`,
      'safetensors-too-short': () => SAFETENSORS_HINT_ZH,
      'safetensors-lfs-pointer': () => '在模型文件夹中运行 `git lfs pull`，或下载真正的文件',
      'safetensors-empty-header': () => SAFETENSORS_HINT_ZH,
      'safetensors-header-too-large': () => SAFETENSORS_HINT_ZH,
      'safetensors-header-past-end': () => SAFETENSORS_HINT_ZH,
      'safetensors-no-brace': () => SAFETENSORS_HINT_ZH,
      'safetensors-not-utf8': () => SAFETENSORS_HINT_ZH,
      'safetensors-not-json': () => SAFETENSORS_HINT_ZH,
    },
  },
  examples: FILE_ERRORS.examples,
});

/**
 * Every family of file errors: its messages and its hints. Each reason is worded in exactly one family;
 * `ALL_WORDED` below holds the families to every reason of src/core/file-errors.ts.
 */
const FAMILIES: readonly (readonly [AnyDomain, AnyDomain])[] = [
  [FILE_ERRORS, FILE_ERROR_HINTS],
  [PATH_ERRORS, PATH_ERROR_HINTS],
  [LEDGER_ERRORS, LEDGER_ERROR_HINTS],
  [MODEL_FILE_ERRORS, MODEL_FILE_ERROR_HINTS],
  [INDEX_ERRORS, INDEX_ERROR_HINTS],
  [HUB_ERRORS, HUB_ERROR_HINTS],
  [PROMETHEUS_ERRORS, PROMETHEUS_ERROR_HINTS],
  [CLI_ERRORS, CLI_ERROR_HINTS],
  [RUN_ERRORS, RUN_ERROR_HINTS],
  [SNAPSHOT_ERRORS, SNAPSHOT_ERROR_HINTS],
];

/** Fails to compile when a reason has no family. */
const ALL_WORDED: { readonly [R in FileErrorReason]: unknown } = {
  ...FILE_ERRORS.examples,
  ...PATH_ERRORS.examples,
  ...LEDGER_ERRORS.examples,
  ...MODEL_FILE_ERRORS.examples,
  ...INDEX_ERRORS.examples,
  ...HUB_ERRORS.examples,
  ...PROMETHEUS_ERRORS.examples,
  ...CLI_ERRORS.examples,
  ...RUN_ERRORS.examples,
  ...SNAPSHOT_ERRORS.examples,
};

/** The domains of file errors, for the catalog's list (src/words/index.ts). */
export const FILE_ERROR_DOMAINS: readonly AnyDomain[] = FAMILIES.flat();

/** Every file reason's example params, across the families (for tests that raise each one). */
export const FILE_ERROR_EXAMPLES: Readonly<Record<FileErrorReason, unknown>> = ALL_WORDED;

/** A file error's message and hint in a language. */
export function fileErrorWords(
  lang: Lang,
  reason: FileErrorReason,
  params: Readonly<Record<string, ErrorParam>>,
): { message: string; hint: string } {
  const family = FAMILIES.find(([words]) => reason in words.examples) ?? FAMILIES[0]!;
  const speak = (domain: AnyDomain) =>
    (domain.words[lang][reason] as unknown as (p: unknown, f: unknown) => string)(params, FORMATS[lang]);
  return { message: speak(family[0]), hint: speak(family[1]) };
}

// The core words a file error's `message` and `hint` in English through this catalog (core/file-errors.ts).
speakFileErrorsWith((reason, params) => fileErrorWords('en', reason, params));
