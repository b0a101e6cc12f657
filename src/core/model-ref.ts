/** Resolving the scenario's `model` field when no file or network is needed: catalog ids and inline configs. */
import { type ModelShape, shapeFromConfig } from './architecture.js';
import type { CatalogModel } from './catalog/catalog-model.js';
import { type ModelResolution, matchHubName } from './catalog/hub-names.js';
import { nearestModelIds } from './catalog/index.js';
import type { HeadroomUserError } from './errors.js';
import { fileError } from './file-errors.js';
import type { ModelRef } from './scenario.js';

export interface ResolvedModel {
  /** How the user can name it again: the catalog id, the repo id, the path, or "inline config". */
  readonly id: string;
  readonly shape: ModelShape;
  /** Exact parameter count from weight files, when they were read. */
  readonly exactParams: number | null;
  readonly catalog: CatalogModel | null;
  /** Where the shape came from, for the report ("catalog", "config.json", "safetensors headers", "hub"). */
  readonly source: string;
  /** How a name other than the catalog id reached the catalog model (variant, copy, release). */
  readonly resolution?: ModelResolution;
}

/**
 * Resolves a catalog id, a Hub id of a catalog model (under the spellings hub-names.ts accepts), or an
 * inline config object; null for anything else.
 */
export function resolveModelRef(ref: ModelRef): ResolvedModel | null {
  if (typeof ref !== 'string') {
    return {
      id: 'inline config',
      shape: shapeFromConfig(ref, 'model (inline config)'),
      exactParams: null,
      catalog: null,
      source: 'inline config',
    };
  }
  const match = matchHubName(ref);
  if (!match) return null;
  const { model: entry, resolution } = match;
  // A re-release with a longer context (Qwen3 -2507) keeps every weight shape; only the context differs.
  const config =
    resolution?.contextLength == null
      ? entry
      : { ...entry, max_position_embeddings: resolution.contextLength };
  return {
    id: entry.id,
    shape: shapeFromConfig(config, `catalog entry ${entry.id}`),
    exactParams: null,
    catalog: entry,
    source: 'catalog',
    ...(resolution ? { resolution } : {}),
  };
}

/** The error for a model name that is neither in the catalog nor a file, with the nearest catalog ids. */
export function unknownModelError(ref: string): HeadroomUserError {
  return fileError('model-unknown', { ref, nearest: nearestModelIds(ref) }, 'model', 'unknown-model');
}
