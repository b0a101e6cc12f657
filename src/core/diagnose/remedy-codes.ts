/**
 * The changes the estimator can price for a finding, as data: a code and the values the change moves
 * between. remedies.ts prices them; src/words/remedies.ts words them.
 */
import type { MessageOf, NoParams } from '../message.js';
import type { Checkpointing, Optimizer, Precision } from '../scenario.js';

/** Each change's figures: what the scenario had, what the change makes it. */
export interface RemedyParams {
  readonly 'bitsandbytes-upgrade': NoParams;
  readonly 'micro-batch': { readonly from: number; readonly to: number };
  readonly 'gradient-checkpointing': { readonly from: Checkpointing; readonly to: Checkpointing };
  readonly 'fused-loss': NoParams;
  readonly 'compile-loss': NoParams;
  readonly 'fused-optimizer': NoParams;
  readonly 'offload-activations': NoParams;
  readonly sdpa: NoParams;
  readonly 'shorter-seq': { readonly from: number; readonly to: number };
  readonly 'bf16-true': { readonly from: Precision; readonly to: Precision };
  readonly lora: NoParams;
  readonly qlora: NoParams;
  readonly zero3: { readonly gpus: number };
  readonly 'adamw-8bit': { readonly from: Optimizer; readonly to: Optimizer };
  readonly zero2: { readonly gpus: number };
  readonly 'offload-optimizer': NoParams;
}

export type RemedyCode = keyof RemedyParams;

/** One change a remedy makes. */
export type RemedyChange = MessageOf<RemedyParams>;
