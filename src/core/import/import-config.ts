/**
 * Trainer config → scenario: detects the format of an already-parsed config and maps it. Reading the
 * file and finding a referenced DeepSpeed file happen at the edge (src/io/read-config.ts).
 */
import { fileError } from '../file-errors.js';
import type { Framework } from '../scenario/values.js';
import { at, type Config } from './_builder.js';
import type { MapperInput, ReferencedDeepSpeed } from './_trainer-input.js';
import { looksLikeAccelerate, mapAccelerateConfig } from './accelerate.js';
import { looksLikeAxolotl, mapAxolotlConfig } from './axolotl.js';
import { looksLikeDeepSpeed, mapDeepSpeedConfig } from './deepspeed.js';
import { looksLikeHfTrainer, mapHfTrainerConfig } from './hf-trainer.js';
import { because, CONFIG_FORMATS, type ConfigFormat, type ImportReport } from './import-report.js';
import { looksLikeLlamaFactory, mapLlamaFactoryConfig } from './llama-factory.js';
import { looksLikeTorchtune, mapTorchtuneConfig } from './torchtune.js';

export type { ReferencedDeepSpeed } from './_trainer-input.js';

/** Most specific first: LLaMA-Factory and Axolotl configs also carry TrainingArguments keys. */
const DETECTORS: readonly (readonly [ConfigFormat, (config: Config) => boolean])[] = [
  ['accelerate', looksLikeAccelerate],
  ['torchtune', looksLikeTorchtune],
  ['axolotl', looksLikeAxolotl],
  ['llama-factory', looksLikeLlamaFactory],
  ['hf-trainer', looksLikeHfTrainer],
  ['deepspeed', looksLikeDeepSpeed],
];

const MAPPERS: Readonly<Record<ConfigFormat, (input: MapperInput) => ImportReport>> = {
  'llama-factory': mapLlamaFactoryConfig,
  axolotl: mapAxolotlConfig,
  torchtune: mapTorchtuneConfig,
  'hf-trainer': mapHfTrainerConfig,
  accelerate: mapAccelerateConfig,
  deepspeed: (input) => mapDeepSpeedConfig(input.config),
};

/** The trainer format of a parsed config, or null when none matches. */
export function detectConfigFormat(config: Config): ConfigFormat | null {
  for (const [format, looksLike] of DETECTORS) if (looksLike(config)) return format;
  return null;
}

/** The DeepSpeed file a config names by path (LLaMA-Factory/Axolotl/TrainingArguments `deepspeed`, accelerate's `deepspeed_config_file`). */
export function deepspeedReference(config: Config, format: ConfigFormat): string | null {
  const value =
    format === 'accelerate'
      ? at(config, 'deepspeed_config.deepspeed_config_file')
      : format === 'deepspeed'
        ? null
        : config.deepspeed;
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

export interface ImportConfigInput {
  readonly config: unknown;
  /** The file's text, for facts kept in comments. */
  readonly text?: string;
  /** The file name, for messages and for recipe names (torchtune `*_single_device.yaml`). */
  readonly fileName?: string;
  /** Force a format instead of detecting it. */
  readonly format?: ConfigFormat;
  /** The referenced DeepSpeed file, read by the caller (see deepspeedReference). */
  readonly deepspeed?: ReferencedDeepSpeed | null;
}

/**
 * Maps a parsed trainer config to scenario fields with a report of what was mapped, left out and assumed.
 * Throws HeadroomUserError when the object is not a config Headroom recognises.
 * @example importConfig({ config: { base_model: 'NousResearch/Meta-Llama-3-8B', adapter: 'lora', lora_r: 16 } })
 */
export function importConfig(input: ImportConfigInput): ImportReport {
  const name = input.fileName ?? 'config';
  const config = input.config;
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    const found = Array.isArray(config)
      ? 'a list'
      : typeof config === 'object'
        ? 'null'
        : `a ${typeof config}`;
    throw fileError('config-not-mapping', { file: name, found }, name);
  }
  const format = input.format ?? detectConfigFormat(config as Config);
  if (format === null) {
    throw fileError('config-unknown-format', { file: name, formats: CONFIG_FORMATS }, name);
  }
  return withFramework(
    MAPPERS[format]({
      config: config as Config,
      text: input.text ?? '',
      fileName: name,
      deepspeed: input.deepspeed ?? null,
    }),
    format,
  );
}

/**
 * The framework each config format runs under, for its profile (src/core/frameworks): a LLaMA-Factory
 * file is trained by LLaMA-Factory, a TrainingArguments/TRL file by the Hugging Face Trainer, a bare
 * accelerate or DeepSpeed file by a loop under that launcher.
 */
const FRAMEWORK_OF_FORMAT: Readonly<Record<ConfigFormat, Framework>> = {
  'llama-factory': 'llama-factory',
  axolotl: 'axolotl',
  torchtune: 'torchtune',
  'hf-trainer': 'hf-trainer',
  accelerate: 'accelerate',
  deepspeed: 'deepspeed',
};

/** The report with `framework` assumed from the format (a flag or the file's own field wins). */
function withFramework(report: ImportReport, format: ConfigFormat): ImportReport {
  if (report.scenario.framework !== undefined) return report;
  const framework = FRAMEWORK_OF_FORMAT[format];
  return {
    ...report,
    scenario: { ...report.scenario, framework },
    assumed: [
      ...report.assumed,
      { field: 'framework', value: framework, reason: because('framework-of-format', { format }) },
    ],
  };
}
