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

/**
 * Llama 3.1 8B LoRA with everything cheap already on (pure bf16, checkpointing, a compiled chunked
 * loss), over ZeRO-3 on two GPUs with DeepSpeed's default reduce bucket, at 512 tokens: on a 12 GB card the
 * 1 GB bucket is what the ladder still has to take away (a 10 GB card needs QLoRA, which fits without it).
 */
export const LORA_8B_ZERO3_DEFAULT_BUCKET = {
  model: 'llama-3.1-8b',
  method: 'lora',
  precision: 'bf16-true',
  gradientCheckpointing: 'full',
  loss: 'chunked',
  torchCompile: true,
  seqLen: 512,
  parallelism: { strategy: 'zero3', gpus: 2 },
} as const;
