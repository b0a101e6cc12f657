/**
 * Resolves the scenario's `model` from whatever the user gave: a catalog id or repo id (no I/O), an
 * inline config, a config.json path, a local model folder (exact count from safetensors headers), or a
 * Hub repo id outside the catalog (fetched).
 */
import { stat } from 'node:fs/promises';
import { shapeFromConfig } from '../core/architecture.js';
import { likenessKey } from '../core/catalog/hub-names.js';
import { nearestModelIds, searchModels } from '../core/catalog/index.js';
import type { HeadroomUserError } from '../core/errors.js';
import { type FileErrorParams, fileError } from '../core/file-errors.js';
import { type ResolvedModel, resolveModelRef, unknownModelError } from '../core/model-ref.js';
import type { ModelRef } from '../core/scenario.js';
import type { HubOptions } from './hub.js';
import type { ModelFiles } from './model-files.js';

const HUB_REPO_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;
/** What only a local path looks like: relative or absolute, or a JSON file (no repo id ends in .json). */
const LOOKS_LIKE_PATH = /^(\.{1,2}[\\/]|[\\/]|~)|\.json$/i;

function fromFiles(files: ModelFiles): ResolvedModel {
  return {
    id: files.ref,
    shape: shapeFromConfig(files.config, files.ref),
    exactParams: files.parameterCount,
    catalog: null,
    source:
      files.source === 'hub'
        ? 'Hugging Face Hub (config.json + safetensors headers)'
        : files.parameterCount === null
          ? 'config.json'
          : 'config.json + safetensors headers',
  };
}

async function pathKind(path: string): Promise<'file' | 'dir' | null> {
  try {
    const info = await stat(path);
    return info.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

/** Resolves any model reference; throws HeadroomUserError with the nearest catalog ids when nothing matches. */
export async function resolveModel(ref: ModelRef, hub: HubOptions = {}): Promise<ResolvedModel> {
  const known = resolveModelRef(ref);
  if (known) return known;
  const name = ref as string;
  const kind = await pathKind(name);
  // File and Hub readers load lazily: a catalog estimate should not pay for the Hub client at start-up.
  if (kind === 'dir') return fromFiles(await (await import('./model-files.js')).readModelFolder(name));
  if (kind === 'file') return fromFiles(await (await import('./model-files.js')).readConfigFile(name));
  if (LOOKS_LIKE_PATH.test(name)) {
    throw fileError('model-ref-missing', { path: name }, name);
  }
  if (HUB_REPO_ID.test(name)) {
    const { fetchHubModel, HubUnreachableError } = await import('./hub.js');
    try {
      return fromFiles(await fetchHubModel(name, hub));
    } catch (error) {
      if (error instanceof HubUnreachableError) throw offlineModelError(name, error);
      throw error;
    }
  }
  throw unknownModelError(name);
}

/**
 * A Hub id the catalog does not know, with the Hub out of reach: the Hub's message, then the nearest
 * catalog models (names compared without org, case and variant suffixes), how to size a model the
 * catalog lacks, and the `headroom models` query that lists its family.
 */
function offlineModelError(ref: string, unreachable: HeadroomUserError): HeadroomUserError {
  const nearest = nearestModelIds(ref);
  const key = likenessKey(ref);
  const family = key.split('-')[0] ?? '';
  const query = family !== '' && searchModels(family).length > 0 ? family : (nearest[0] ?? '').split('-')[0];
  const sameName = nearest.find((id) => likenessKey(id) === key);
  const offline = { nearest, sameName: sameName ?? '', query: query ?? '' };
  // The Hub's reason and figures, with the nearest catalog models: its words say both (model-errors.ts).
  if (unreachable.reason === 'hub-timeout' || unreachable.reason === 'hub-unreachable') {
    const params = { ...(unreachable.params as unknown as FileErrorParams['hub-timeout']), ...offline };
    return fileError(unreachable.reason, params as FileErrorParams['hub-timeout'], ref, 'network');
  }
  return unreachable;
}
