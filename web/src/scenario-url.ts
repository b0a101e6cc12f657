/** The scenario in the URL, so a link reproduces it: flat query fields, and an inline config as base64url JSON. */
import { DEFAULT_MARGIN_FRACTION } from '../../src/core/margin.js';
import {
  fusesInTorch,
  type Quantization,
  torchaoQuantizes,
  usesBitsandbytes,
} from '../../src/core/scenario.js';

export type FormState = Record<string, string>;

export const FORM_DEFAULTS: FormState = {
  model: 'llama-3.1-8b',
  method: 'lora',
  // "default": the parser's method-aware default (bf16-true for LoRA/QLoRA, bf16-mixed for full).
  precision: 'default',
  quantization: 'none',
  optimizer: 'adamw',
  microBatchSize: '1',
  seqLen: '2048',
  gradAccumSteps: '1',
  gradientCheckpointing: 'none',
  attention: 'sdpa',
  loss: 'standard',
  strategy: 'single',
  gpus: '1',
  gpu: 'rtx-4090',
  loraRank: '16',
  loraTargets: 'q_proj,v_proj',
  loraAdapterDtype: 'fp32',
  optimizerInBackward: 'false',
  fusedOptimizer: 'false',
  wrapEmbeddings: 'false',
  syncEachMicroBatch: 'false',
  quantizedInputsKept: 'default',
  quantizer: 'bitsandbytes',
  reduceBucketSize: '',
  overlapComm: 'false',
  offloadActivations: 'false',
  expandableSegments: 'false',
  torchCompile: 'false',
  offloadOptimizer: 'none',
  offloadParams: 'none',
  // The share of the GPU kept free when judging the fit, in percent (margin.ts; --headroom).
  headroom: '10',
};

/** The margin the form judges the fit with, as a fraction; the default when the field is not a percent. */
export function marginOf(form: FormState): number {
  const n = Number(form.headroom);
  return Number.isFinite(n) && n >= 0 && n < 90 ? n / 100 : DEFAULT_MARGIN_FRACTION;
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** Reads the form state from a hash query string ("model=...&method=..."). */
export function formFromQuery(query: string): { form: FormState; config: Record<string, unknown> | null } {
  const params = new URLSearchParams(query);
  const form: FormState = { ...FORM_DEFAULTS };
  for (const key of Object.keys(FORM_DEFAULTS)) {
    const value = params.get(key);
    if (value !== null) form[key] = value;
  }
  let config: Record<string, unknown> | null = null;
  const encoded = params.get('config');
  if (encoded) {
    try {
      config = JSON.parse(fromBase64Url(encoded)) as Record<string, unknown>;
    } catch {
      config = null;
    }
  }
  return { form, config };
}

/** Writes the non-default form fields (and an inline config) as a query string. */
export function queryFromForm(form: FormState, config: Record<string, unknown> | null): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(form)) if (FORM_DEFAULTS[key] !== value) params.set(key, value);
  if (config) params.set('config', toBase64Url(JSON.stringify(config)));
  return params.toString();
}

/** The quantization the form runs with: QLoRA without a choice is nf4. */
function quantizationOf(form: FormState): Quantization {
  if (form.method === 'qlora')
    return form.quantization === 'none' ? 'nf4' : (form.quantization as Quantization);
  return form.method === 'lora' ? (form.quantization as Quantization) : 'none';
}

/** Whether the form's quantization is one torchao also does (torchtune's NF4), so the library is a choice. */
export function quantizerChoice(form: FormState): boolean {
  return torchaoQuantizes(quantizationOf(form));
}

/** The library the form says quantized the base: "torchao" only where it can be. */
function torchaoBase(form: FormState): boolean {
  return quantizerChoice(form) && form.quantizer === 'torchao';
}

/** Whether the base is a bitsandbytes one, whose layers may keep their inputs (quantizedInputsKept). */
export function bitsandbytesBase(form: FormState): boolean {
  return usesBitsandbytes({
    quantization: quantizationOf(form),
    ...(torchaoBase(form) ? { quantizer: 'torchao' as const } : {}),
  });
}

/** DeepSpeed's reduce bucket as the form gives it: a number of elements, "auto", or DeepSpeed's default. */
function reduceBucketOf(form: FormState): number | string | undefined {
  const raw = (form.reduceBucketSize ?? '').trim();
  if (raw === '') return undefined;
  if (raw === 'auto') return 'auto';
  const n = Number(raw);
  // A word the parser should name: passed on as written, so the error says which field.
  return Number.isFinite(n) ? n : raw;
}

/** The scenario object (SCENARIO.md spelling) the form describes. */
export function scenarioFromForm(
  form: FormState,
  config: Record<string, unknown> | null,
): Record<string, unknown> {
  const method = form.method;
  const lora = method === 'lora' || method === 'qlora';
  const targets =
    form.loraTargets === 'all-linear'
      ? 'all-linear'
      : (form.loraTargets ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  const gpus = Number(form.gpus);
  const fsdp = form.strategy === 'fsdp' || form.strategy === 'fsdp-grad-op';
  const zero = form.strategy!.startsWith('zero');
  const bucket = zero ? reduceBucketOf(form) : undefined;
  return {
    model: config ?? form.model,
    method,
    ...(lora
      ? {
          lora: {
            rank: Number(form.loraRank),
            targets,
            ...(form.loraAdapterDtype === 'model' ? { adapterDtype: 'model' } : {}),
          },
        }
      : {}),
    quantization: quantizationOf(form),
    ...(torchaoBase(form) ? { quantizer: 'torchao' } : {}),
    ...(bitsandbytesBase(form) && form.quantizedInputsKept !== 'default'
      ? { quantizedInputsKept: form.quantizedInputsKept }
      : {}),
    ...(form.precision === 'default' ? {} : { precision: form.precision }),
    optimizer: form.optimizer,
    microBatchSize: Number(form.microBatchSize),
    seqLen: Number(form.seqLen),
    gradAccumSteps: Number(form.gradAccumSteps),
    ...(form.optimizerInBackward === 'true' ? { optimizerInBackward: true } : {}),
    ...(form.fusedOptimizer === 'true' && fusesInTorch(form.optimizer!) ? { fusedOptimizer: true } : {}),
    gradientCheckpointing: form.gradientCheckpointing,
    attention: form.attention,
    loss: form.loss,
    ...(form.torchCompile === 'true' ? { torchCompile: true } : {}),
    parallelism: {
      strategy: form.strategy === 'single' && gpus > 1 ? 'ddp' : form.strategy,
      gpus: form.strategy === 'single' && gpus <= 1 ? 1 : gpus,
      ...(fsdp && form.wrapEmbeddings === 'true' ? { wrapEmbeddings: true } : {}),
      ...(fsdp && form.syncEachMicroBatch === 'true' ? { syncEachMicroBatch: true } : {}),
      ...(bucket === undefined ? {} : { reduceBucketSize: bucket }),
      ...(zero && form.strategy !== 'zero3' && form.overlapComm === 'true' ? { overlapComm: true } : {}),
    },
    offload: {
      // Offload only where the strategy allows it; the fields stay in the URL for when it does again.
      optimizer: form.strategy !== 'single' && form.strategy !== 'ddp' ? form.offloadOptimizer : 'none',
      params: form.strategy === 'zero3' || form.strategy === 'fsdp' ? form.offloadParams : 'none',
      ...(form.offloadActivations === 'true' ? { activations: 'cpu' } : {}),
    },
    ...(form.expandableSegments === 'true' ? { expandableSegments: true } : {}),
    ...(form.gpu ? { gpu: form.gpu } : {}),
  };
}
