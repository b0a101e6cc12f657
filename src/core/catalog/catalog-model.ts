/** One model of the embedded model catalog (data/catalog/models.json): a Hugging Face config plus facts. */
export interface CatalogModel {
  readonly id: string;
  readonly hfRepo: string;
  readonly model_type: string;
  readonly hidden_size: number;
  readonly intermediate_size: number;
  readonly num_hidden_layers: number;
  readonly num_attention_heads: number;
  readonly num_key_value_heads: number;
  readonly head_dim: number | null;
  readonly vocab_size: number;
  readonly max_position_embeddings: number | null;
  readonly tie_word_embeddings: boolean;
  readonly torch_dtype: string | null;
  readonly moe?: Readonly<Record<string, unknown>> | null;
  readonly mla?: Readonly<Record<string, unknown>> | null;
  readonly architectureFlags: Readonly<Record<string, unknown>>;
  readonly params: {
    readonly total: number;
    readonly activePerToken?: number;
    readonly method: string;
    readonly verified?: string;
    readonly externallyVerified?: boolean;
  };
  readonly sources: readonly string[];
  readonly uncertain?: readonly string[];
  readonly head_dim_effective?: number;
  readonly notes?: string;
  /**
   * The entry is the language model of a multimodal checkpoint (its `text_config`): the checkpoint's
   * vision encoder and projector are not in its shape or parameter count.
   */
  readonly textConfigOnly?: boolean;
  readonly [extra: string]: unknown;
}
