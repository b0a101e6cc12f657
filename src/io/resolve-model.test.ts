import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { asyncUserErrorOf as userErrorOf } from '../core/test-helpers/user-error.js';
import { resolveModel } from './resolve-model.js';

beforeEach(() => {
  vi.stubEnv('HF_ENDPOINT', '');
  vi.stubEnv('HF_TOKEN', '');
});
afterEach(() => vi.unstubAllEnvs());

/** A fetch that records what was asked and fails like a machine without a network. */
function offlineFetch(): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    urls.push(String(input instanceof Request ? input.url : input));
    throw new TypeError('fetch failed', {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }),
    });
  };
  return { fetch, urls };
}

describe('resolveModel with Hub ids', () => {
  it('resolves a catalog model under another spelling without a request', async () => {
    const hub = offlineFetch();
    const model = await resolveModel('mistralai/Mistral-7B-Instruct-v0.3', { fetch: hub.fetch });
    expect(hub.urls).toEqual([]);
    expect(model.id).toBe('mistral-7b-v0.3');
    expect(model.source).toBe('catalog');
    expect(model.resolution).toEqual({
      resolvedFrom: 'mistralai/Mistral-7B-Instruct-v0.3',
      variant: 'instruct',
      release: null,
      mirror: null,
      prequantized: null,
      contextLength: null,
    });
  });

  it('names the nearest catalog models, how to add one, and the models query when the Hub is unreachable', async () => {
    const hub = offlineFetch();
    const error = await userErrorOf(() => resolveModel('acme/Llama-3.1-8B-Instruct', { fetch: hub.fetch }));
    expect(hub.urls.length).toBeGreaterThan(0);
    expect(error.code).toBe('network');
    expect(error.where).toBe('acme/Llama-3.1-8B-Instruct');
    expect(error.message).toBe(
      'acme/Llama-3.1-8B-Instruct is not in the catalog and the Hugging Face Hub (https://huggingface.co) could not be reached (ENOTFOUND)',
    );
    expect(error.hint).toBe(
      'acme/Llama-3.1-8B-Instruct has the name of catalog model llama-3.1-8b: if it is a copy of it, use llama-3.1-8b; ' +
        'the nearest catalog models are llama-3.1-8b, llama-3.1-70b, llama-3.1-405b (headroom models llama lists that family); ' +
        'for a model the catalog lacks, give its folder or its config.json: headroom estimate ./my-model/; ' +
        'or check the network and HF_ENDPOINT',
    );
  });

  it('leaves out the copy advice when no catalog model has the name', async () => {
    const error = await userErrorOf(() =>
      resolveModel('Qwen/Qwen2-72B-Instruct', { fetch: offlineFetch().fetch }),
    );
    expect(error.hint).toMatch(
      /^the nearest catalog models are qwen2\.5-72b, [^;]+ \(headroom models qwen2 lists that family\); for a model/,
    );
  });

  it('still asks the Hub about an id outside the catalog when it is reachable', async () => {
    const urls: string[] = [];
    const notFound: typeof fetch = async (input) => {
      urls.push(String(input instanceof Request ? input.url : input));
      return new Response(JSON.stringify({ error: 'Repository not found' }), {
        status: 404,
        headers: { 'Content-Type': 'application/json', 'X-Error-Code': 'RepoNotFound' },
      });
    };
    const error = await userErrorOf(() => resolveModel('acme/Llama-3.1-8B-Instruct', { fetch: notFound }));
    expect(error.message).toBe('acme/Llama-3.1-8B-Instruct: no such repo on the Hub');
    expect(urls.some((u) => u.includes('/acme/Llama-3.1-8B-Instruct/'))).toBe(true);
  });
});
