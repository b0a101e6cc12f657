/**
 * LoRA settings a trainer uses when its config leaves them out: the LLaMA-Factory importer assumes
 * them for a YAML without the keys, and the framework profiles fill them for a scenario that names the
 * trainer and not the setting (facts-hf.ts). One declaration for both.
 */

/**
 * LLaMA-Factory's LoraArguments (src/llamafactory/hparams/finetuning_args.py @00577a85; `lora_target`
 * has defaulted to "all", every linear layer but the head, since v0.6.0, src/llmtuner then).
 */
export const LLAMA_FACTORY_LORA = { rank: 8, dropout: 0, target: 'all' } as const;

/** ms-swift's TunerArguments (swift/arguments/tuner_args.py @3602360a; the same at v3.0.0). */
export const MS_SWIFT_LORA = { rank: 8, dropout: 0.05, targets: 'all-linear' } as const;
