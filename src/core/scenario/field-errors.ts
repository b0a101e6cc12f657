/**
 * The errors a scenario's fields raise, as data: a reason (the catalog's code, src/words/errors.ts),
 * the path of the field and the raw figures. The words are the catalog's; the English ones fill the
 * error's `message` for logs, the server and stack traces, and the CLI and the dashboard render them
 * in their own language, naming the field the way the user set it.
 */
import { type ErrorParam, fieldErrorText, HeadroomUserError, type UserErrorCode } from '../errors.js';

/** Params of a reason that has no figures. */
type NoParams = Readonly<Record<never, never>>;

/** The value as an error shows it: a number as it is, anything else as JSON (`"fp8"`, `[1]`). */
export type Shown = number | string;

/** The params of each reason a field can be refused for. */
export interface FieldErrorParams {
  /** The scenario is not an object. */
  'not-a-scenario': NoParams;
  /** A top-level key that is no field; `known` lists the fields. */
  'unknown-field': { readonly known: readonly string[] };
  /** A key of `lora` that is no LoRA field. */
  'unknown-lora-field': { readonly known: readonly string[] };
  /** A key of another group (`parallelism`, `offload`) that is none of its fields. */
  'unknown-sub-field': { readonly known: readonly string[] };
  /** A key of `versions` that is no package Headroom knows. */
  'unknown-package': { readonly known: readonly string[] };
  'not-an-object': NoParams;
  'model-empty': NoParams;
  'model-missing': NoParams;
  /** A method Headroom declines (PEFT's other adapters). */
  'not-modelled': { readonly value: Shown };
  'not-one-of': { readonly value: Shown; readonly accepted: readonly string[] };
  'not-whole-number': { readonly value: Shown; readonly min: number; readonly max: number };
  /** Past the field's limit; the words say the limit's unit and why (src/words/fields.ts). */
  'above-limit': { readonly value: Shown; readonly min: number; readonly max: number };
  'not-boolean': { readonly value: Shown };
  'not-fraction': { readonly value: Shown };
  'not-positive': { readonly value: Shown };
  'not-targets': NoParams;
  'not-module-list': NoParams;
  'not-bucket-size': { readonly value: Shown };
  'not-version': { readonly value: Shown };
  'not-gpu-id': NoParams;
  'qlora-needs-quantization': { readonly quantization: string };
  'trains-base': { readonly method: string; readonly quantization: string };
  'only-lora-method': { readonly method: string };
  'only-freeze-method': { readonly method: string };
  'sync-needs-fsdp': { readonly strategy: string };
  'wrap-needs-fsdp': { readonly strategy: string };
  'needs-zero': { readonly strategy: string };
  /** An FSDP setting (its version, mixed-precision dtypes, frozen gradients) under another strategy. */
  'needs-fsdp': { readonly strategy: string };
  /** checkpointEvery without gradientCheckpointing "every-nth". */
  'needs-every-nth': { readonly checkpointing: string };
  'single-one-gpu': { readonly gpus: number };
  'offload-needs-sharding': { readonly strategy: string };
  'param-offload-needs-full-shard': { readonly strategy: string };
  'fused-torch-only': { readonly optimizer: string };
  'in-backward-accumulates': { readonly gradAccumSteps: number };
  'in-backward-deepspeed': { readonly strategy: string };
  'torchao-needs-nf4': { readonly quantization: string };
  'bitsandbytes-quantizations': { readonly quantization: string };
  /** quantizeHead, quantizedFrom, quantizedInputsKept without a bitsandbytes base; `quantizer` says whose it is. */
  'bnb-head': { readonly quantization: string; readonly quantizer: string };
  'bnb-from': { readonly quantization: string; readonly quantizer: string };
  'bnb-inputs': { readonly quantization: string; readonly quantizer: string };
  /** An evaluation setting without the evaluation batch size it is about. */
  'eval-needs-batch': NoParams;
  /** A LoRA rank past the model's hidden size (scenario-limits.ts); the context names the model. */
  'rank-above-hidden': { readonly value: number; readonly max: number };
  /** More trainable layers than the model has; the context names the model. */
  'layers-above-model': { readonly value: number; readonly max: number };
  /** A LoRA target the model has no linear module of (the estimator resolves targets against the shape). */
  'not-a-linear-module': {
    readonly value: Shown;
    readonly modelType: string;
    readonly known: readonly string[];
  };
  /** A module to save (train in full) that Headroom cannot size: only the embeddings and the head. */
  'module-not-sizable': { readonly value: Shown };
  /** A numeric flag that is no number; `max` when the field is a count with a limit. */
  'flag-not-number': { readonly raw: string; readonly max?: number };
  /** An item of --versions that is not PACKAGE=VERSION. */
  'flag-not-package-version': { readonly raw: string; readonly item: string };
}

export type FieldErrorReason = keyof FieldErrorParams;

/** The coarse code of each reason that is not `invalid-field`. */
const CODES: Partial<Record<FieldErrorReason, UserErrorCode>> = {
  'not-modelled': 'unsupported',
  'not-whole-number': 'out-of-range',
  'above-limit': 'out-of-range',
  'rank-above-hidden': 'out-of-range',
  'layers-above-model': 'out-of-range',
  'flag-not-number': 'bad-flag',
  'flag-not-package-version': 'bad-flag',
};

/** The code a reason's error carries. */
export function codeOf(reason: FieldErrorReason): UserErrorCode {
  return CODES[reason] ?? 'invalid-field';
}

/** How an error shows a value it was given. */
export function shown(value: unknown): Shown {
  return typeof value === 'number' ? value : JSON.stringify(value);
}

/**
 * The error of a field: its reason, path and figures; `context` for names the words need (a model id).
 * @example fieldError('not-one-of', ['precision'], { value: '"fp8"', accepted: ['fp32', 'bf16-true'] })
 */
export function fieldError<R extends FieldErrorReason>(
  reason: R,
  path: readonly string[],
  params: FieldErrorParams[R],
  context?: Readonly<Record<string, string>>,
): HeadroomUserError {
  const { message, hint } = fieldErrorText(
    reason,
    path,
    params as Readonly<Record<string, ErrorParam>>,
    context,
  );
  return new HeadroomUserError({
    code: codeOf(reason),
    where: path.length === 0 ? 'scenario' : path.join('.'),
    message,
    ...(hint === undefined ? {} : { hint }),
    ...(Object.keys(params).length === 0 ? {} : { params: params as Readonly<Record<string, ErrorParam>> }),
    path,
    reason,
    ...(context === undefined ? {} : { context }),
  });
}
