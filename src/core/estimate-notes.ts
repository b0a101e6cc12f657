/**
 * The assumptions and caveats an estimate states, as data: a code and its figures. `estimate()` lists
 * them as `noteItems` and, in English words, as `notes`; the dashboard words them in Chinese too.
 */

import { formatBytes } from './units.js';

export type EstimateNote =
  | { readonly code: 'paged-optimizer' }
  | { readonly code: 'exact-params'; readonly fromWeights: number; readonly fromConfig: number }
  | { readonly code: 'fsdp-no-sync'; readonly bytes: number }
  | { readonly code: 'fsdp-root'; readonly bytes: number }
  | { readonly code: 'past-learned-positions'; readonly seqLen: number; readonly positions: number }
  | { readonly code: 'past-context'; readonly seqLen: number; readonly context: number }
  | { readonly code: 'eager-attention' }
  | { readonly code: 'fp32-math-attention'; readonly bytes: number }
  | { readonly code: 'compile-standard-loss' }
  | { readonly code: 'compile-no-checkpointing' }
  | { readonly code: 'zero-default-bucket'; readonly bytes: number; readonly autoBytes: number };

export type EstimateNoteCode = EstimateNote['code'];

/** A note in English: the words `notes` carries. */
export function noteText(note: EstimateNote): string {
  switch (note.code) {
    case 'paged-optimizer':
      return 'paged optimizer states live in CUDA managed memory: counted by nvidia-smi, not by torch allocated';
    case 'exact-params':
      return `parameter count ${note.fromWeights} read from the weight files (the config alone gives ${note.fromConfig})`;
    case 'fsdp-no-sync':
      return `FSDP accumulates whole, unsharded gradients inside no_sync() between syncs (${formatBytes(note.bytes)} here): reduce-scattering every micro-batch keeps one shard (--sync-each-micro-batch; Accelerate sync_each_batch=True)`;
    case 'fsdp-root':
      return `FSDP keeps its root unit (embeddings and output head) gathered through forward and backward: ${formatBytes(note.bytes)} here; wrapping them as units of their own avoids it (--wrap-embeddings; torchtune custom_sharded_layers)`;
    case 'past-learned-positions':
      return `sequence ${note.seqLen} is longer than the model's ${note.positions} learned positions: it cannot run at this length (its position table has no row past ${note.positions}); the memory is for the length as given`;
    case 'past-context':
      return `sequence ${note.seqLen} is past the model's ${note.context}-token context window: the memory is for the length as given, but training that long needs RoPE scaling (rope_scaling in config.json) and quality past the window is not assured`;
    case 'eager-attention':
      return 'eager attention keeps s×s scores per head: sdpa or flash would remove that term';
    case 'fp32-math-attention':
      return `fp32 attention over grouped KV heads runs SDPA's math path (no fused kernel takes fp32 with GQA), which keeps each head's s×s softmax: ${formatBytes(note.bytes)} here; bf16 or fp16 compute runs the fused kernels without it`;
    case 'compile-standard-loss':
      return "torch.compile's cross-entropy makes the logits' gradient in one kernel, but with the standard loss the fp32 logits stay in the estimate, which is high if the upcast runs inside the compiled model (Hugging Face's does); a chunked loss drops them";
    case 'compile-no-checkpointing':
      return 'torch.compile also recomputes elementwise ops instead of saving them, which the estimate does not count: without checkpointing it is high';
    case 'zero-default-bucket':
      return `DeepSpeed's default reduce bucket (5e8 elements) takes ${formatBytes(note.bytes)} on every GPU; "auto" (hidden², what the Hugging Face integration fills in) would take ${formatBytes(note.autoBytes)}: say which your config uses with --reduce-bucket-size`;
  }
}
