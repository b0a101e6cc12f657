/**
 * What importing a trainer config produces: the scenario fields the file decides (SCENARIO.md spelling),
 * and a report of every memory-relevant key — mapped to a field, left unmapped (with why), or a trainer
 * default assumed because the file leaves it unset.
 */

/** The trainer config formats Headroom reads. */
export const CONFIG_FORMATS = [
  'llama-factory',
  'axolotl',
  'torchtune',
  'hf-trainer',
  'accelerate',
  'deepspeed',
] as const;
export type ConfigFormat = (typeof CONFIG_FORMATS)[number];

/** A config key turned into a scenario field. */
export interface MappedKey {
  /** The key as written in the file, dotted for nested keys (`fsdp_config.fsdp_offload_params`). */
  readonly key: string;
  readonly value: unknown;
  /** The scenario field it set, dotted (`lora.rank`, `parallelism.strategy`). */
  readonly field: string;
  /** The value the field received. */
  readonly to: unknown;
}

/**
 * Why a memory-relevant key did not become a scenario field:
 * - `no-field`: it changes memory but SCENARIO.md has no field for it (ZeRO bucket sizes, activation offloading);
 * - `auto`: DeepSpeed's "auto", filled by the trainer at launch — reported, never guessed;
 * - `deferred`: it has a field, but this file alone does not decide it (a launcher or another file does);
 * - `unresolved`: a value Headroom does not recognise, or a referenced file it could not find.
 */
export type UnmappedKind = 'no-field' | 'auto' | 'deferred' | 'unresolved';

export interface UnmappedKey {
  readonly key: string;
  readonly value: unknown;
  readonly kind: UnmappedKind;
  readonly reason: string;
}

/** A scenario field the file leaves unset, filled with the trainer's own default. */
export interface AssumedField {
  readonly field: string;
  readonly value: unknown;
  readonly reason: string;
}

export interface ImportReport {
  readonly format: ConfigFormat;
  /** Scenario fields from the file and the trainer's defaults; Headroom's own defaults are not added. */
  readonly scenario: Readonly<Record<string, unknown>>;
  readonly mapped: readonly MappedKey[];
  readonly unmapped: readonly UnmappedKey[];
  readonly assumed: readonly AssumedField[];
}
