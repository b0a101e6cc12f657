/**
 * Reads a model's config.json and parameter count from the Hugging Face Hub: config.json is
 * downloaded, safetensors headers are read by HTTP range requests (no weights are downloaded).
 */
import {
  downloadFile,
  HubApiError,
  InvalidApiResponseFormatError,
  parseSafetensorsMetadata,
  SafetensorParseError,
} from '@huggingface/hub';
import { HeadroomUserError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import { type SafetensorsHeader, safetensorsHeaderFromJson } from '../core/safetensors.js';
import { buildModelFiles, MAX_CONFIG_BYTES, type ModelFiles, parseConfigJson } from './model-files.js';

export interface HubOptions {
  /** Hub base URL; defaults to env HF_ENDPOINT, then https://huggingface.co. */
  readonly hubUrl?: string;
  /** The fetch to use (tests, proxies); defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  /** A Hub access token (`hf_...`) for gated or private repos; defaults to env HF_TOKEN. */
  readonly accessToken?: string;
  /** Branch, tag or commit; defaults to `main`. */
  readonly revision?: string;
  /** How long one request may take before the Hub counts as unreachable, in ms; default 30 s. */
  readonly timeoutMs?: number;
  /**
   * Called as the fetch goes: after each answered request, and once more with `finished` when it is
   * over (whether it worked or not). A sharded checkpoint takes one request per shard header.
   */
  readonly onProgress?: (progress: HubProgress) => void;
}

/** How far a Hub fetch has got. */
export interface HubProgress {
  /** The repo (and revision) being read. */
  readonly ref: string;
  /** Requests answered so far. */
  readonly requests: number;
  readonly finished: boolean;
}

/**
 * One request's limit. undici's own limits are 10 s to connect but 300 s for the headers and the
 * body, so a proxy or firewall that accepts the connection and never answers would hold the command
 * for minutes with nothing on the screen.
 */
export const HUB_REQUEST_TIMEOUT_MS = 30_000;

/** A Hub repo id: `name` or `owner/name`, letters, digits, `-`, `_` and `.`. */
const REPO_ID_PATTERN = /^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)?$/;

/** Longest Hub repo id accepted, in characters (owner and name are at most 96 each on the Hub). */
const MAX_REPO_ID_CHARS = 193;

/** Prefix the Hub requires on access tokens (checked by @huggingface/hub `checkAccessToken`). */
const ACCESS_TOKEN_PREFIX = 'hf_';

/** Message @huggingface/hub throws when a repo has neither model.safetensors nor its index. */
const NO_SAFETENSORS_MESSAGE = 'does not seem to contain safetensors weights';

/**
 * The Hub could not be reached at all (refused, no DNS, no answer in time), as opposed to an answer
 * that refused the repo: the caller may then say what works offline.
 */
export class HubUnreachableError extends HeadroomUserError {}

/** Fetches config.json and the safetensors headers of Hub repo `repoId`; counts parameters without weights. */
export async function fetchHubModel(repoId: string, options: HubOptions = {}): Promise<ModelFiles> {
  if (repoId.length > MAX_REPO_ID_CHARS || !REPO_ID_PATTERN.test(repoId) || repoId.includes('..')) {
    throw fileError('hub-not-repo-id', { ref: repoId }, repoId, 'unknown-model');
  }
  const hubUrl = resolveHubUrl(options.hubUrl);
  const accessToken = resolveAccessToken(options.accessToken);
  const baseFetch = options.fetch ?? globalThis.fetch;
  // Errors thrown by fetch itself (DNS, refused connection) are remembered here: the Hub client
  // sometimes rewraps them, and they mean "unreachable" whatever error surfaces.
  let networkFailure: unknown;
  const timeoutMs = options.timeoutMs ?? HUB_REQUEST_TIMEOUT_MS;
  const ref = options.revision === undefined ? repoId : `${repoId}@${options.revision}`;
  let requests = 0;
  const trackedFetch: typeof fetch = async (input, init) => {
    const limit = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, limit]) : limit;
    try {
      const response = await baseFetch(input, { ...init, signal });
      requests++;
      options.onProgress?.({ ref, requests, finished: false });
      return response;
    } catch (error) {
      networkFailure ??= limit.aborted ? new HubTimeout(timeoutMs) : error;
      throw error;
    }
  };
  const params = {
    repo: { type: 'model' as const, name: repoId },
    fetch: trackedFetch,
    ...(hubUrl !== undefined && { hubUrl }),
    ...(accessToken !== undefined && { accessToken }),
    ...(options.revision !== undefined && { revision: options.revision }),
  };

  try {
    const [config, headers] = await Promise.all([fetchConfig(params, ref), fetchHeaders(params, ref)]);
    const notes =
      headers === null
        ? [
            'the repo has no model.safetensors or model.safetensors.index.json: the parameter count comes from config.json',
          ]
        : [`parameters counted from ${headers.length} safetensors header(s) read by HTTP range requests`];
    return buildModelFiles({ source: 'hub', ref, config, headers, notes });
  } catch (error) {
    throw toUserError(error, ref, networkFailure, hubUrl);
  } finally {
    options.onProgress?.({ ref, requests, finished: true });
  }
}

type HubParams = {
  repo: { type: 'model'; name: string };
  fetch: typeof fetch;
  hubUrl?: string;
  accessToken?: string;
  revision?: string;
};

async function fetchConfig(params: HubParams, ref: string): Promise<Record<string, unknown>> {
  const where = `${ref}/config.json`;
  const blob = await downloadFile({ ...params, path: 'config.json' });
  if (blob === null) {
    throw fileError('hub-no-config', { ref }, where);
  }
  if (blob.size > MAX_CONFIG_BYTES) {
    throw fileError(
      'hub-config-too-large',
      { file: where, bytes: blob.size, maxBytes: MAX_CONFIG_BYTES },
      where,
    );
  }
  return parseConfigJson(await blob.text(), where);
}

/** The repo's safetensors headers, or null when it has no safetensors weights. */
async function fetchHeaders(params: HubParams, ref: string): Promise<SafetensorsHeader[] | null> {
  let parsed: Awaited<ReturnType<typeof parseSafetensorsMetadata>>;
  try {
    parsed = await parseSafetensorsMetadata(params);
  } catch (error) {
    if (error instanceof Error && error.message.includes(NO_SAFETENSORS_MESSAGE)) {
      return null;
    }
    throw error;
  }
  const byFile: Array<[string, unknown]> = parsed.sharded
    ? Object.entries(parsed.headers)
    : [[parsed.filepaths[0] ?? 'model.safetensors', parsed.header]];
  return byFile.map(([file, header]) => safetensorsHeaderFromJson(header, `${ref}/${file}`));
}

function resolveHubUrl(option: string | undefined): string | undefined {
  const fromEnv = process.env.HF_ENDPOINT;
  const raw = option ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined);
  if (raw === undefined) return undefined;
  if (!URL.canParse(raw)) {
    const from = option === undefined ? 'HF_ENDPOINT' : 'hubUrl';
    throw fileError('hub-bad-url', { url: raw, from }, from, 'invalid-field');
  }
  return raw.replace(/\/+$/, '');
}

function resolveAccessToken(option: string | undefined): string | undefined {
  const fromEnv = process.env.HF_TOKEN;
  const token = option ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined);
  if (token !== undefined && !token.startsWith(ACCESS_TOKEN_PREFIX)) {
    const from = option === undefined ? 'HF_TOKEN' : 'accessToken';
    throw fileError('hub-bad-token', { from, prefix: ACCESS_TOKEN_PREFIX }, from, 'invalid-field');
  }
  return token;
}

function toUserError(
  error: unknown,
  ref: string,
  networkFailure: unknown,
  hubUrl: string | undefined,
): unknown {
  if (error instanceof HeadroomUserError) return error;
  const host = hubUrl ?? 'https://huggingface.co';
  if (networkFailure instanceof HubTimeout) {
    const seconds = networkFailure.ms / 1000;
    return new HubUnreachableError(fileError('hub-timeout', { ref, host, seconds }, ref, 'network').init());
  }
  if (networkFailure !== undefined) {
    const cause = causeCode(networkFailure);
    return new HubUnreachableError(fileError('hub-unreachable', { ref, host, cause }, ref, 'network').init());
  }
  if (error instanceof HubApiError) {
    if (error.statusCode === 401 || error.statusCode === 403) {
      return fileError('hub-refused', { ref, status: error.statusCode }, ref, 'network');
    }
    if (error.statusCode === 404) {
      return fileError('hub-no-repo', { ref, revision: ref.includes('@') }, ref, 'unknown-model');
    }
    return fileError('hub-http', { ref, status: error.statusCode }, ref, 'network');
  }
  if (error instanceof InvalidApiResponseFormatError) {
    return fileError('hub-unexpected', { ref, host, detail: error.message }, ref, 'network');
  }
  if (error instanceof SafetensorParseError) {
    return fileError('hub-bad-checkpoint', { ref, detail: error.message }, ref);
  }
  return error;
}

/** A request that ran past its limit (what `networkFailure` records instead of the AbortError). */
class HubTimeout {
  constructor(readonly ms: number) {}
}

/** The system's code of a fetch failure (`ECONNREFUSED`), or ''. */
function causeCode(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const code =
    typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string'
      ? cause.code
      : undefined;
  return code ?? '';
}
