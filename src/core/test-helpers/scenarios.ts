/** Scenarios more than one test file is about. */

/**
 * torchtune's Llama 3.1 8B full fine-tune as its README ran it on a 24 GB RTX 4090: pure bf16,
 * PagedAdamW8bit stepped inside backward, checkpointing and a chunked loss. Its 16 GB of weights and
 * 16 GB of paged states do not fit together, so the states spill to host RAM.
 */
export const TORCHTUNE_8B_FULL_PAGED = {
  method: 'full',
  precision: 'bf16-true',
  optimizer: 'paged-adamw-8bit',
  optimizerInBackward: true,
  gradientCheckpointing: 'full',
  loss: 'chunked',
} as const;
