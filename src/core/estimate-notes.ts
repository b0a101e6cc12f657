/**
 * The assumptions and caveats an estimate states, as data: a code and its raw figures. `estimate()`
 * lists them as `notes`; src/words/estimate-notes.ts words them in English and Chinese at the edge.
 */
import type { MessageOf, NoParams } from './message.js';

/** The params of each note code: bytes, token counts and parameter counts, unformatted. */
export interface EstimateNoteParams {
  /** Paged optimizer states live in CUDA managed memory: nvidia-smi counts them, torch allocated does not. */
  readonly 'paged-optimizer': NoParams;
  /** The parameter count came from the weight files, not the config. */
  readonly 'exact-params': { readonly fromWeights: number; readonly fromConfig: number };
  /** FSDP accumulates unsharded gradients inside no_sync(): their bytes. */
  readonly 'fsdp-no-sync': { readonly bytes: number };
  /** FSDP keeps its root unit (embeddings, head) gathered: its bytes with its gradient. */
  readonly 'fsdp-root': { readonly bytes: number };
  /** The sequence is past the model's learned position table. */
  readonly 'past-learned-positions': { readonly seqLen: number; readonly positions: number };
  /** The sequence is past the model's context window. */
  readonly 'past-context': { readonly seqLen: number; readonly context: number };
  /** Eager attention keeps s×s scores per head. */
  readonly 'eager-attention': NoParams;
  /** fp32 attention over grouped KV heads runs SDPA's math path: the softmax it keeps. */
  readonly 'fp32-math-attention': { readonly bytes: number };
  /** torch.compile with the standard loss: the fp32 logits stay in the estimate. */
  readonly 'compile-standard-loss': NoParams;
  /** torch.compile without checkpointing recomputes elementwise ops the estimate counts as saved. */
  readonly 'compile-no-checkpointing': NoParams;
  /** DeepSpeed's default reduce bucket, against "auto" (hidden²). */
  readonly 'zero-default-bucket': { readonly bytes: number; readonly autoBytes: number };
}

export type EstimateNote = MessageOf<EstimateNoteParams>;
export type EstimateNoteCode = EstimateNote['code'];
