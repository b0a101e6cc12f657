/** Lookup and search over the embedded GPU and model catalogs. */
import type { CatalogModel } from './catalog-model.js';
import type { GpuSpec } from './gpu-spec.js';
import { GPUS_DATA } from './gpus.data.js';
import { likenessKey, matchHubName } from './hub-names.js';
import { MODELS_DATA } from './models.data.js';

export const GPUS: readonly GpuSpec[] = GPUS_DATA;
export const MODELS: readonly CatalogModel[] = MODELS_DATA;

const normalize = (text: string): string => text.toLowerCase().replace(/[\s_]+/g, '-');

/**
 * Finds a catalog model by id or Hugging Face repo id, under the spellings hub-names.ts accepts (case,
 * base/instruct variants, known re-uploads and pre-quantized copies, same-shape releases).
 */
export function findModel(ref: string): CatalogModel | undefined {
  return matchHubName(ref)?.model;
}

/** Finds a catalog GPU by id, or by its full name ("NVIDIA A10G 24GB (AWS G5)"). */
export function findGpu(ref: string): GpuSpec | undefined {
  const key = normalize(ref);
  return GPUS.find((g) => normalize(g.id) === key || normalize(g.name) === key);
}

function matches(haystack: readonly (string | undefined)[], query: string): boolean {
  // Each whitespace-separated word must appear as typed ("llama-3" does not match "llama-2-13b").
  const words = query.toLowerCase().replace(/_/g, '-').split(/\s+/).filter(Boolean);
  const text = haystack
    .filter(Boolean)
    .map((s) => normalize(s!))
    .join(' ');
  return words.every((w) => text.includes(w));
}

/**
 * Catalog models whose id, repo or architecture contain every word of the query; a query that is a Hub
 * id of a catalog model under another spelling (Qwen/Qwen2-7B-Instruct) finds that model first.
 */
export function searchModels(query = ''): CatalogModel[] {
  const named = query.trim() === '' ? undefined : matchHubName(query)?.model;
  const found = MODELS.filter((m) => matchesAny(m, query));
  return named ? [named, ...found.filter((m) => m !== named)] : found;
}

const matchesAny = (m: CatalogModel, query: string): boolean =>
  matches([m.id, m.hfRepo, m.model_type], query);

/** Catalog GPUs whose id, name, vendor or architecture contain every word of the query. */
export function searchGpus(query = ''): GpuSpec[] {
  return GPUS.filter((g) => matches([g.id, g.name, g.vendor, g.architecture], query));
}

/**
 * The closest catalog ids to a mistyped one, for "did you mean": first the ids that share the longest
 * run of characters with it ("4090ti" → rtx-4090, whose "4090" a plain edit distance would rank below
 * "h20"), then by edit distance.
 */
export function suggestIds(ref: string, ids: readonly string[], count = 3): string[] {
  return rankBySimilarity(
    normalize(ref),
    ids.map((id) => ({ id, key: normalize(id) })),
    count,
  );
}

/**
 * The catalog models nearest to a model name the catalog does not know, by likeness of the names with
 * org, case, pre-quantized suffix and variant suffixes dropped: "acme/Llama-3.1-8B-Instruct" ranks
 * llama-3.1-8b first.
 */
export function nearestModelIds(ref: string, count = 3): string[] {
  const candidates = MODELS.flatMap((m) => [
    { id: m.id, key: likenessKey(m.id) },
    { id: m.id, key: likenessKey(m.hfRepo) },
  ]);
  return rankBySimilarity(likenessKey(ref), candidates, count);
}

function rankBySimilarity(
  key: string,
  candidates: ReadonlyArray<{ readonly id: string; readonly key: string }>,
  count: number,
): string[] {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0]!;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const current = row[j]!;
        row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = current;
      }
    }
    return row[b.length]!;
  };
  const sharedRun = (a: string, b: string): number => {
    let best = 0;
    const row = new Array<number>(b.length + 1).fill(0);
    for (let i = 1; i <= a.length; i++) {
      for (let j = b.length; j >= 1; j--) {
        row[j] = a[i - 1] === b[j - 1] ? row[j - 1]! + 1 : 0;
        best = Math.max(best, row[j]!);
      }
    }
    return best;
  };
  const best = new Map<string, { run: number; edits: number }>();
  for (const c of candidates) {
    const score = { run: sharedRun(key, c.key), edits: distance(key, c.key) };
    const seen = best.get(c.id);
    if (!seen || score.run > seen.run || (score.run === seen.run && score.edits < seen.edits))
      best.set(c.id, score);
  }
  return [...best]
    .sort(([, a], [, b]) => b.run - a.run || a.edits - b.edits)
    .slice(0, count)
    .map(([id]) => id);
}
