/** Internal: what every trainer mapper receives, and how a referenced DeepSpeed config joins its report. */
import { at, type Config, own, type ReportBuilder, truthy } from './_builder.js';
import { HF_OPTIMIZERS } from './_names.js';
import { deepspeedPrecision, mapDeepSpeedConfig } from './deepspeed.js';
import { because, type ImportReason } from './import-report.js';

/** A DeepSpeed file referenced by the config: read and parsed, or not found where it was looked for. */
export type ReferencedDeepSpeed =
  | { readonly path: string; readonly config: Config }
  | { readonly path: string; readonly searched: readonly string[] };

export interface MapperInput {
  readonly config: Config;
  /** The file's text: comments carry facts the parsed object loses (torchtune's recipe name). */
  readonly text: string;
  readonly fileName: string;
  /** The DeepSpeed file the config references by path, when the edge could look for it. */
  readonly deepspeed: ReferencedDeepSpeed | null;
}

/** Keys a trainer decides itself; the DeepSpeed file's "auto"/deferred entries for them are noise here. */
const TRAINER_OWNED = new Set([
  'train_micro_batch_size_per_gpu',
  'gradient_accumulation_steps',
  'train_batch_size',
  'fp16.enabled',
  'bf16.enabled',
]);

/**
 * Merges the DeepSpeed config a trainer config names (inline object or file path) into the report.
 * Returns whether DeepSpeed is in use and what it says about precision.
 */
export function absorbDeepSpeed(
  b: ReportBuilder,
  key: string,
  value: unknown,
  input: MapperInput,
): { readonly present: boolean; readonly precision: 'bf16' | 'fp16' | 'auto' | null } {
  if (value === undefined || value === null || value === false || value === '') {
    return { present: false, precision: null };
  }
  let config: Config | null = null;
  let prefix = `${key}.`;
  if (typeof value === 'object' && !Array.isArray(value)) {
    config = value as Config;
  } else if (typeof value === 'string') {
    const ref = input.deepspeed;
    if (ref && 'config' in ref) {
      config = ref.config;
      prefix = `${ref.path}:`;
    } else {
      b.skip(
        key,
        value,
        'unresolved',
        ref
          ? because('deepspeed-not-found', { folders: ref.searched.length - 1 })
          : because('deepspeed-not-read'),
      );
      return { present: true, precision: null };
    }
  } else {
    b.skip(key, value, 'unresolved', because('deepspeed-path-expected'));
    return { present: false, precision: null };
  }
  const report = mapDeepSpeedConfig(config);
  b.absorb(
    {
      ...report,
      unmapped: report.unmapped.filter((u) => !(TRAINER_OWNED.has(u.key) && u.kind !== 'no-field')),
    },
    prefix,
  );
  return { present: true, precision: deepspeedPrecision(config) };
}

/** Splits "a,b, c" or a YAML list into trimmed names. */
export function nameList(value: unknown): string[] | null {
  if (Array.isArray(value)) return value.every((v) => typeof v === 'string') ? (value as string[]) : null;
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return null;
}

/**
 * Activation offload as Hugging Face-based trainers write it: TrainingArguments'
 * `gradient_checkpointing_kwargs: {offload: true}` (torch save_on_cpu around each checkpointed layer,
 * transformers PR #48444), and TRL's and Axolotl's `activation_offloading` (true, or Axolotl's "legacy";
 * Axolotl's "disk" writes them to disk, which no scenario field holds).
 */
function mapActivationOffload(b: ReportBuilder, c: Readonly<Record<string, unknown>>): void {
  const kwargs = 'gradient_checkpointing_kwargs.offload';
  const viaCheckpointing = at(c, kwargs);
  if (truthy(viaCheckpointing)) b.map(kwargs, viaCheckpointing, 'offload.activations', 'cpu');
  const value = c.activation_offloading;
  if (value === 'disk') b.skip('activation_offloading', value, 'no-field', because('activations-to-disk'));
  else if (truthy(value) || value === 'legacy')
    b.map('activation_offloading', value, 'offload.activations', 'cpu');
}

/**
 * torch.compile as Hugging Face-based trainers write it: TrainingArguments' `torch_compile` (Axolotl and
 * LLaMA-Factory pass it through). Mapped on and off alike.
 */
export function mapTorchCompile(b: ReportBuilder, c: Readonly<Record<string, unknown>>): void {
  if (c.torch_compile !== undefined && c.torch_compile !== null)
    b.map('torch_compile', c.torch_compile, 'torchCompile', truthy(c.torch_compile));
}

/** HF TrainingArguments' checkpointing flavour, which no scenario field holds. */
const REENTRANT = [
  'gradient_checkpointing_kwargs.use_reentrant',
  because('reentrant-checkpointing'),
] as const;

/**
 * What TrainingArguments-shaped configs (Hugging Face/TRL, Axolotl) say about checkpointing and
 * compilation: activation offload and torch_compile mapped, the reentrant flavour reported.
 */
export function mapCheckpointingAndCompile(b: ReportBuilder, c: Readonly<Record<string, unknown>>): void {
  mapActivationOffload(b, c);
  mapTorchCompile(b, c);
  b.unmodelled(c, [REENTRANT]);
}

/**
 * Maps a Hugging Face optimizer name (TrainingArguments' optim, Axolotl's optimizer) to the scenario's.
 * When the key is not set and `unsetReason` is given, assumes the trainer's default, adamw.
 */
export function mapHfOptimizer(
  b: ReportBuilder,
  key: string,
  value: unknown,
  unsetReason?: ImportReason,
): void {
  if (typeof value === 'string') {
    const optimizer = own(HF_OPTIMIZERS, value);
    if (optimizer) b.map(key, value, 'optimizer', optimizer);
    else b.skip(key, value, 'unresolved', because('optimizer-not-modelled'));
    if (optimizer && HF_FUSED_OPTIMIZERS.has(value)) b.map(key, value, 'fusedOptimizer', true);
    // A torch AdamW named without "fused" (adamw_torch: foreach) is not fused, whatever the trainer's
    // default would be: said, so a framework profile does not assume the fused default over it.
    else if (optimizer === 'adamw') b.map(key, value, 'fusedOptimizer', false);
  } else if (value !== undefined && value !== null) {
    b.skip(key, value, 'unresolved', because('optimizer-name-expected'));
  } else if (unsetReason !== undefined) {
    b.assume('optimizer', 'adamw', unsetReason);
    b.assume('fusedOptimizer', true, unsetReason);
  }
}

/**
 * Why an unset `optim` is fused AdamW: TrainingArguments picks `adamw_torch_fused` when torch is 2.8 or
 * later (transformers training_args.py, `default_optim`), `adamw_torch` before.
 */
export const HF_DEFAULT_OPTIM = because('hf-default-optim');

/** Hugging Face optimizer names that run a fused kernel, with no state-sized temporary in the step. */
const HF_FUSED_OPTIMIZERS: ReadonlySet<string> = new Set([
  'adamw_torch_fused',
  'adamw_apex_fused',
  'adamw_torch_npu_fused',
]);
