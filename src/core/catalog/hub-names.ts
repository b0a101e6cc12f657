/**
 * Hub ids of catalog models under the spellings users type, resolved offline: other case, the base or
 * instruct variant, the old repo name, a known re-uploader's copy, a pre-quantized copy, and another
 * release with the same shapes. Each rule is data with the reason it keeps the shapes and its source;
 * a name that changes the shapes (a -Vision model, another size, a -1M context) matches no rule.
 */
import type { Quantization } from '../scenario.js';
import type { CatalogModel } from './catalog-model.js';
import { MODELS_DATA } from './models.data.js';

const CATALOG: readonly CatalogModel[] = MODELS_DATA;

/** A variant of a catalog model's checkpoint, named by a repo-name suffix (or infix). */
interface VariantRule {
  /** The name tokens (lower case, split at '-') that name the variant, contiguous anywhere in the name. */
  readonly tokens: readonly string[];
  readonly variant: ModelVariant;
  /** A dated re-release of the weights (Qwen's "-2507"); null for the original release. */
  readonly release: ModelRelease | null;
  /** The re-release's context length (config max_position_embeddings), when it differs. */
  readonly contextLength: number | null;
  /** The catalog ids (and RELEASES ids) the rule is verified for. */
  readonly models: RegExp;
  /** Why the variant has the catalog model's shapes, and where that is written. */
  readonly reason: string;
}

export type ModelVariant = 'instruct' | 'chat' | 'base' | 'thinking';

/** A release other than the catalog model's own with its shapes: Qwen2 for Qwen2.5, Qwen3's 2507. */
export type ModelRelease = 'qwen2' | '2507';

/**
 * Variant suffixes with the families where they keep every parameter shape. Sources: litgpt builds the
 * base and the variant from one config dict (Lightning-AI/litgpt@26857050 litgpt/config.py, loops
 * `for kind in ("", "-Instruct")` and the like); mlc-llm's presets are dumps of the variants' own
 * config.json (mlc-ai/mlc-llm@79d603f0 python/mlc_llm/model/model_preset.py); the tests compare those
 * dumps with the catalog.
 */
export const VARIANT_RULES: readonly VariantRule[] = [
  {
    tokens: ['instruct', '2507'],
    variant: 'instruct',
    release: '2507',
    contextLength: 262144,
    models: /^qwen3-(4b|30b-a3b)$/,
    reason:
      'litgpt config.py qwen_3_2507_thinking_instruct: Instruct-2507 and Thinking-2507 share one dict with Qwen3-4B / Qwen3-30B-A3B shapes, block_size 262144, rope_base 5e6 (4B) / 1e7 (30B-A3B)',
  },
  {
    tokens: ['thinking', '2507'],
    variant: 'thinking',
    release: '2507',
    contextLength: 262144,
    models: /^qwen3-(4b|30b-a3b)$/,
    reason: 'as Instruct-2507 (litgpt config.py qwen_3_2507_thinking_instruct)',
  },
  {
    tokens: ['instruct'],
    variant: 'instruct',
    release: null,
    contextLength: null,
    models:
      /^(llama-3(\.[12])?-\d+b|qwen2\.5-[\d.]+b|qwen2-(0\.5|1\.5|7)b|mistral-7b-v0\.[123]|mixtral-8x7b|smollm2-[\d.]+m|smollm2-1\.7b|falcon-(7b|40b)|codellama-34b)$/,
    reason:
      'litgpt config.py: llama_3, qwen_2_5, smollm2, falcon and mistral (v0.1, Mixtral-8x7B) append the "-Instruct" config from the base dict; Mistral-7B-Instruct-v0.2/-v0.3 and CodeLlama-34b-Instruct-hf have entries equal to their bases; mlc presets llama3_1_8b, llama3_1_70b, llama3_2_1b, llama3_2_3b, qwen2.5_3b, qwen2_0_5b, qwen2_1_5b and qwen2_7b are Instruct config.json dumps',
  },
  {
    tokens: ['it'],
    variant: 'instruct',
    release: null,
    contextLength: null,
    models: /^gemma-(2b|7b|2-2b|2-9b|2-27b|3-1b|3-4b-text|3-12b-text|3-27b-text)$/,
    reason:
      'litgpt config.py: every Gemma and Gemma 2 config is appended again as "-it"; mlc preset gemma2_2b is the gemma-2-2b-it dump (eos_token_id [1, 107]); the Gemma 3 catalog repos are the -it checkpoints themselves',
  },
  {
    tokens: ['chat', 'v1.0'],
    variant: 'chat',
    release: null,
    contextLength: null,
    models: /^tinyllama-1\.1b$/,
    reason: 'the catalog repo is TinyLlama-1.1B-Chat-v1.0 itself (see the -intermediate-step-1431k-3T rule)',
  },
  {
    tokens: ['chat'],
    variant: 'chat',
    release: null,
    contextLength: null,
    models: /^(llama-2-(7b|13b|70b))$/,
    reason: 'litgpt config.py llama_2: `for kind in ("", "-chat")` over one dict per size',
  },
  {
    tokens: ['base'],
    variant: 'base',
    release: null,
    contextLength: null,
    models: /^qwen3-(0\.6b|1\.7b|4b|8b|14b|30b-a3b)$/,
    reason:
      'litgpt config.py qwen_3: `for kind in ("", "-Base")`; Qwen3-30B-A3B-Base has its own entry equal to Qwen3-30B-A3B (Qwen3-32B has no Base release)',
  },
  {
    tokens: ['pt'],
    variant: 'base',
    release: null,
    contextLength: null,
    models: /^gemma-3-(1b|4b-text|12b-text|27b-text)$/,
    reason:
      'the pretrained Gemma 3 checkpoints (-pt) are what -it is post-trained from; task-vector merges add (it - pt) tensor by tensor, which needs equal shapes (find_string id 151296950)',
  },
  {
    tokens: ['intermediate', 'step', '1431k', '3t'],
    variant: 'base',
    release: null,
    contextLength: null,
    models: /^tinyllama-1\.1b$/,
    reason:
      'litgpt config.py tiny_llama: TinyLlama-1.1B-intermediate-step-1431k-3T and -Chat-v1.0 come from one dict',
  },
];

/** Name tokens that change no weights: `-hf` marks the transformers-format conversion of a checkpoint. */
const SPELLING_TOKENS: ReadonlySet<string> = new Set(['hf']);

export type PrequantizedFormat = 'bnb-4bit' | 'bnb-nf4' | 'gptq-int4' | 'gptq-int8' | 'awq-int4' | 'fp8';

/** The suffixes of pre-quantized copies: the base's shapes, stored quantized. Longest first. */
export const PREQUANTIZED_SUFFIXES: ReadonlyArray<{
  readonly tokens: readonly string[];
  readonly format: PrequantizedFormat;
}> = [
  // Unsloth's dynamic 4-bit: most linear layers NF4, a few left 16-bit (unsloth mapper.py names).
  { tokens: ['unsloth', 'bnb', '4bit'], format: 'bnb-4bit' },
  { tokens: ['bnb', '4bit'], format: 'bnb-4bit' },
  { tokens: ['bnb', 'nf4'], format: 'bnb-nf4' },
  { tokens: ['gptq', 'int4'], format: 'gptq-int4' },
  { tokens: ['gptq', 'int8'], format: 'gptq-int8' },
  { tokens: ['gptq'], format: 'gptq-int4' },
  { tokens: ['awq', 'int4'], format: 'awq-int4' },
  { tokens: ['awq'], format: 'awq-int4' },
  { tokens: ['fp8', 'dynamic'], format: 'fp8' },
  { tokens: ['fp8', 'block'], format: 'fp8' },
  { tokens: ['fp8'], format: 'fp8' },
];

/**
 * The scenario quantization that sizes a pre-quantized copy's weights as stored, or null when none does.
 * bitsandbytes copies named -bnb-4bit are Unsloth's, made with NF4 and double quantization
 * (unslothai/unsloth@015bdef0 unsloth/models/llama.py BitsAndBytesConfig); AWQ's packed 4-bit codes with
 * group-128 scales size as GPTQ's; GPTQ 8-bit sizes as bitsandbytes int8 (one byte a weight).
 */
export const PREQUANTIZED_AS: Readonly<Record<PrequantizedFormat, Quantization | null>> = {
  'bnb-4bit': 'nf4-dq',
  'bnb-nf4': 'nf4',
  'gptq-int4': 'int4-gptq',
  'awq-int4': 'int4-gptq',
  'gptq-int8': 'int8',
  fp8: null,
};

/** Orgs whose uploads of a catalog model are its weights unchanged (or quantized), and for which models. */
export const MIRROR_ORGS: ReadonlyArray<{
  readonly org: string;
  readonly models: RegExp;
  /** Unsloth short names for the original repo name (unsloth mapper.py), matched after the org. */
  readonly renames?: Readonly<Record<string, string>>;
  readonly reason: string;
}> = [
  {
    org: 'unsloth',
    models: /./,
    renames: {
      'mistral-7b': 'mistral-7b-v0.1',
      tinyllama: 'tinyllama-1.1b-intermediate-step-1431k-3t',
      'tinyllama-chat': 'tinyllama-1.1b-chat-v1.0',
    },
    reason:
      'unslothai/unsloth@015bdef0 unsloth/models/mapper.py maps each unsloth/ name to the original repo it copies, 16-bit or as -bnb-4bit, -unsloth-bnb-4bit and -FP8 quantizations',
  },
  {
    org: 'nousresearch',
    models: /^(llama-|codellama-)/,
    reason:
      "ungated copies of Meta's Llama checkpoints; Axolotl's own examples train NousResearch/Meta-Llama-3-8B and NousResearch/Meta-Llama-3.1-8B",
  },
  {
    org: 'thebloke',
    models: /./,
    reason: 'GPTQ and AWQ quantizations of the original weights, named after the original plus -GPTQ / -AWQ',
  },
  {
    org: 'hugging-quants',
    models: /^llama-3\.[123]-/,
    reason: "Hugging Face's AWQ, GPTQ and bitsandbytes quantizations of Llama 3.1 (…-AWQ-INT4, …-BNB-NF4)",
  },
  {
    org: 'alpindale',
    models: /^mistral-7b-v0\.2$/,
    reason:
      'the first transformers conversion of the raw Mistral-7B-v0.2 release; unsloth mapper.py names alpindale/Mistral-7B-v0.2-hf as the original of unsloth/mistral-7b-v0.2',
  },
];

/** Orgs that publish a catalog model themselves besides its catalog repo's owner (not copies). */
const OWN_ORGS: ReadonlyArray<{ readonly org: string; readonly models: RegExp }> = [
  // The catalog's Mistral-7B-v0.2 is mistral-community's conversion; mistralai publishes its Instruct.
  { org: 'mistralai', models: /^mistral-7b-v0\.2$/ },
];

/**
 * Other releases with exactly a catalog model's parameter shapes, under their own names. Qwen2 and
 * Qwen2.5 share hidden size, MLP width, layers, heads, KV heads, vocabulary and tying at 0.5B, 1.5B and
 * 7B: mlc presets qwen2_0_5b, qwen2_1_5b and qwen2_7b (the Qwen2 Instruct config.json dumps), the
 * Qwen2-7B base config (find_string id 3761174183, `"_name_or_path": "Qwen/Qwen2-7B"`) and Qwen2-0.5B's
 * (rwth-i6/i6_experiments qwen2_configs.py). Qwen2-72B is left out: no config was found to check.
 */
export const RELEASES: ReadonlyArray<{
  readonly name: string;
  readonly model: string;
  readonly org: string;
  readonly release: ModelRelease;
}> = [
  { name: 'qwen2-0.5b', model: 'qwen2.5-0.5b', org: 'qwen', release: 'qwen2' },
  { name: 'qwen2-1.5b', model: 'qwen2.5-1.5b', org: 'qwen', release: 'qwen2' },
  { name: 'qwen2-7b', model: 'qwen2.5-7b', org: 'qwen', release: 'qwen2' },
];

/** How a name the user typed reached its catalog model (null fields: that step was not needed). */
export interface ModelResolution {
  /** The name as typed. */
  readonly resolvedFrom: string;
  readonly variant: ModelVariant | null;
  /** Another release with the same shapes. */
  readonly release: ModelRelease | null;
  /** The re-uploader whose copy it is ("unsloth"). */
  readonly mirror: string | null;
  /** How the copy's weights are stored, when pre-quantized. */
  readonly prequantized: PrequantizedFormat | null;
  /** The context length the variant has instead of the catalog model's; null when the same. */
  readonly contextLength: number | null;
}

export interface HubNameMatch {
  readonly model: CatalogModel;
  /** Null when the name is the catalog id itself. */
  readonly resolution: ModelResolution | null;
}

const normalize = (text: string): string =>
  text
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');

/** Tokens of a repo name, without the spellings that change nothing ("-hf", the "Meta-" of Meta-Llama). */
function nameTokens(name: string): string[] {
  const tokens = name.split('-').filter((t) => t !== '' && !SPELLING_TOKENS.has(t));
  // meta-llama renamed Meta-Llama-3.1-8B to Llama-3.1-8B (the Hub redirects the old name).
  return tokens[0] === 'meta' && tokens[1]?.startsWith('llama') ? tokens.slice(1) : tokens;
}

function indexOfRun(tokens: readonly string[], run: readonly string[]): number {
  for (let i = 0; i + run.length <= tokens.length; i++) {
    if (run.every((t, j) => tokens[i + j] === t)) return i;
  }
  return -1;
}

/** The tokens with the first variant rule verified for `family` removed, and that rule. */
function stripVariant(
  tokens: readonly string[],
  family: string,
): { rest: string[]; rule: VariantRule | null } {
  for (const rule of VARIANT_RULES) {
    if (!rule.models.test(family)) continue;
    const at = indexOfRun(tokens, rule.tokens);
    if (at >= 0) return { rest: [...tokens.slice(0, at), ...tokens.slice(at + rule.tokens.length)], rule };
  }
  return { rest: [...tokens], rule: null };
}

/** The pre-quantized suffix at the end of the tokens, and the tokens without it. */
function stripPrequantized(tokens: readonly string[]): { rest: string[]; format: PrequantizedFormat | null } {
  for (const suffix of PREQUANTIZED_SUFFIXES) {
    const at = tokens.length - suffix.tokens.length;
    if (at > 0 && suffix.tokens.every((t, j) => tokens[at + j] === t)) {
      return { rest: tokens.slice(0, at), format: suffix.format };
    }
  }
  return { rest: [...tokens], format: null };
}

/** One name a catalog model goes by: its repo, its id, or another release's repo name. */
interface NameEntry {
  readonly model: CatalogModel;
  /** The family the variant rules are checked against: the catalog id, or the release's name. */
  readonly family: string;
  /** The name tokens, without spellings and without the catalog repo's own variant. */
  readonly key: string;
  /** The catalog repo's own variant (gemma-3-4b-it is itself an instruct variant). */
  readonly ownVariant: VariantRule | null;
  /** The org of its catalog repo (lower case). */
  readonly org: string;
  readonly release: ModelRelease | null;
}

function entry(model: CatalogModel, family: string, repo: string, release: ModelRelease | null): NameEntry {
  const slash = repo.indexOf('/');
  const name = normalize(slash < 0 ? repo : repo.slice(slash + 1));
  const { rest, rule } = stripVariant(nameTokens(name), family);
  return {
    model,
    family,
    key: rest.join('-'),
    ownVariant: rule,
    org: normalize(repo.slice(0, slash)),
    release,
  };
}

let entries: NameEntry[] | undefined;

function nameEntries(): NameEntry[] {
  if (entries) return entries;
  const byId = new Map(CATALOG.map((m) => [m.id, m]));
  // The id is a name too ("qwen2.5-7b-instruct"), under the catalog repo's org.
  const owner = (m: CatalogModel) => m.hfRepo.slice(0, m.hfRepo.indexOf('/'));
  entries = CATALOG.flatMap((m) => [
    entry(m, m.id, m.hfRepo, null),
    entry(m, m.id, `${owner(m)}/${m.id}`, null),
  ]);
  for (const r of RELEASES) {
    const model = byId.get(r.model);
    if (model) entries.push(entry(model, r.name, `${r.org}/${r.name}`, r.release));
  }
  return entries;
}

/**
 * Why `org` may publish the entry's model: no org typed, its own org, or a mirror (named); undefined
 * when none of these (an unknown org's upload may be a fine-tune with other shapes).
 */
function orgStanding(org: string | null, e: NameEntry): { mirror: string | null } | undefined {
  if (org === null || org === e.org) return { mirror: null };
  if (OWN_ORGS.some((o) => o.org === org && o.models.test(e.model.id))) return { mirror: null };
  const mirror = MIRROR_ORGS.find((m) => m.org === org && m.models.test(e.model.id));
  return mirror ? { mirror: mirror.org } : undefined;
}

/**
 * The catalog model a name stands for, offline, with how it was reached; null when no rule applies (a
 * Hub id outside the catalog, an org that is not a known copy, a variant that changes the shapes).
 * @example matchHubName('mistralai/Mistral-7B-Instruct-v0.3')?.model.id // 'mistral-7b-v0.3'
 */
export function matchHubName(ref: string): HubNameMatch | null {
  const key = normalize(ref);
  const byId = CATALOG.find((m) => normalize(m.id) === key);
  if (byId) return { model: byId, resolution: null };
  const parts = key.split('/');
  if (parts.length > 2 || parts.some((p) => p === '')) return null;
  const org = parts.length === 2 ? parts[0]! : null;
  const quantized = stripPrequantized(nameTokens(parts.at(-1)!));
  const renamed = MIRROR_ORGS.find((m) => m.org === org)?.renames?.[quantized.rest.join('-')];
  const tokens = renamed === undefined ? quantized.rest : nameTokens(renamed);
  for (const e of nameEntries()) {
    const standing = orgStanding(org, e);
    if (!standing) continue;
    const { rest, rule } = stripVariant(tokens, e.family);
    if (rest.join('-') !== e.key) continue;
    // A variant the catalog repo already is (typing gemma-3-4b-it for gemma-3-4b-text) is no variant.
    const variant = rule && rule !== e.ownVariant ? rule : null;
    return {
      model: e.model,
      resolution: {
        resolvedFrom: ref,
        variant: variant?.variant ?? null,
        release: variant?.release ?? e.release,
        mirror: standing.mirror,
        prequantized: quantized.format,
        contextLength: variant?.contextLength ?? null,
      },
    };
  }
  return null;
}

/** A name reduced for likeness: org, case, pre-quantized suffix, spellings and variant tokens dropped. */
export function likenessKey(ref: string): string {
  const name = normalize(ref).split('/').at(-1) ?? '';
  let tokens = stripPrequantized(nameTokens(name)).rest;
  for (const rule of VARIANT_RULES) {
    const at = indexOfRun(tokens, rule.tokens);
    if (at >= 0) tokens = [...tokens.slice(0, at), ...tokens.slice(at + rule.tokens.length)];
  }
  return tokens.join('-');
}
