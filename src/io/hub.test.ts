import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { asyncUserErrorOf as userErrorOf } from '../core/test-helpers/user-error.js';
import { fetchHubModel, HubUnreachableError } from './hub.js';
import { buildSafetensors, type FixtureTensor } from './test-helpers/safetensors-fixture.js';

/** A local stand-in for the Hub: `/{repo}/resolve|raw/{revision}/{file}`, with Range support. */
interface FakeHub {
  readonly url: string;
  /** Every request, as `METHOD /path [range]`. */
  readonly requests: string[];
  /** The Authorization header of every request ('' when absent). */
  readonly authorizations: string[];
  close(): Promise<void>;
}

interface FakeRepo {
  readonly files: Record<string, Uint8Array>;
  /** Answer 401 unless the request carries this token, like a gated repo. */
  readonly requiresToken?: string;
}

const REPO_PATH = /^\/([^/]+\/[^/]+)\/(resolve|raw)\/([^/]+)\/(.+)$/;
const RANGE = /^bytes=(\d+)-(\d+)?$/;

async function startFakeHub(repos: Record<string, FakeRepo>): Promise<FakeHub> {
  const requests: string[] = [];
  const authorizations: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    const range = req.headers.range;
    requests.push(`${req.method} ${path}${range === undefined ? '' : ` [${range}]`}`);
    authorizations.push(req.headers.authorization ?? '');
    const match = REPO_PATH.exec(path);
    const repo = match ? repos[match[1] ?? ''] : undefined;
    if (!match || repo === undefined) {
      return sendError(res, 404, 'RepoNotFound', 'Repository not found');
    }
    if (repo.requiresToken !== undefined && req.headers.authorization !== `Bearer ${repo.requiresToken}`) {
      return sendError(res, 401, 'GatedRepo', 'Access to this model is restricted');
    }
    if (decodeURIComponent(match[3] ?? '') !== 'main') {
      return sendError(res, 404, 'RevisionNotFound', 'Revision not found');
    }
    const body = repo.files[decodeURIComponent(match[4] ?? '')];
    if (body === undefined) {
      return sendError(res, 404, 'EntryNotFound', 'Entry not found');
    }
    const etag = `"etag-${body.length}"`;
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'Content-Length': body.length, ETag: etag });
      return res.end();
    }
    const ranged = range === undefined ? null : RANGE.exec(range);
    if (ranged) {
      const start = Number(ranged[1]);
      const end = Math.min(ranged[2] === undefined ? body.length - 1 : Number(ranged[2]), body.length - 1);
      res.writeHead(206, {
        'Content-Range': `bytes ${start}-${end}/${body.length}`,
        'Content-Length': end - start + 1,
        'Content-Type': 'application/octet-stream',
        ETag: etag,
      });
      return res.end(body.subarray(start, end + 1));
    }
    res.writeHead(200, {
      'Content-Length': body.length,
      'Content-Type': 'application/octet-stream',
      ETag: etag,
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    authorizations,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'X-Error-Code': code });
  res.end(JSON.stringify({ error: message }));
}

const text = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

const CONFIG = { model_type: 'llama', hidden_size: 8, num_hidden_layers: 1, vocab_size: 10 };
const SHARD_1: FixtureTensor[] = [
  { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [10, 8] },
  { name: 'model.layers.0.self_attn.rotary_emb.inv_freq', dtype: 'F32', shape: [2] },
];
const SHARD_2: FixtureTensor[] = [
  { name: 'model.layers.0.mlp.down_proj.weight', dtype: 'BF16', shape: [8, 16] },
  { name: 'lm_head.weight', dtype: 'BF16', shape: [10, 8] },
];
const SHARD_1_FILE = 'model-00001-of-00002.safetensors';
const SHARD_2_FILE = 'model-00002-of-00002.safetensors';
const SHARD_1_BYTES = buildSafetensors(SHARD_1, { format: 'pt' });
const SHARD_2_BYTES = buildSafetensors(SHARD_2, { format: 'pt' });
const weightMap = Object.fromEntries([
  ...SHARD_1.map((t) => [t.name, SHARD_1_FILE]),
  ...SHARD_2.map((t) => [t.name, SHARD_2_FILE]),
]);
const SHARDED_REPO: FakeRepo = {
  files: {
    'config.json': text(CONFIG),
    'model.safetensors.index.json': text({ metadata: { total_size: 488 }, weight_map: weightMap }),
    [SHARD_1_FILE]: SHARD_1_BYTES,
    [SHARD_2_FILE]: SHARD_2_BYTES,
  },
};
// embed 80 + down_proj 128 + lm_head 80 = 288 parameters; the 2 inv_freq elements are left out.
const SHARDED_PARAMETERS = 288;
// 288 BF16 elements × 2 bytes + 2 F32 elements × 4 bytes.
const SHARDED_TENSOR_BYTES = 584;

function headerLength(file: Uint8Array): number {
  return Number(new DataView(file.buffer, file.byteOffset, 8).getBigUint64(0, true));
}

let hub: FakeHub;
beforeEach(async () => {
  // The tests choose the endpoint and token themselves; the developer's environment must not leak in.
  vi.stubEnv('HF_ENDPOINT', '');
  vi.stubEnv('HF_TOKEN', '');
  hub = await startFakeHub({
    'acme/tiny-llama': SHARDED_REPO,
    'acme/single': {
      files: { 'config.json': text(CONFIG), 'model.safetensors': buildSafetensors(SHARD_2) },
    },
    'acme/config-only': { files: { 'config.json': text(CONFIG) } },
    'acme/gated': { ...SHARDED_REPO, requiresToken: 'hf_secret' },
    'acme/no-config': { files: { 'model.safetensors': buildSafetensors(SHARD_2) } },
    'acme/corrupt': {
      files: {
        'config.json': text(CONFIG),
        'model.safetensors': (() => {
          const file = buildSafetensors(SHARD_2);
          // lm_head's data_offsets now end past the data section: rewrite the header in place.
          const header = new TextDecoder().decode(file.subarray(8, 8 + headerLength(file)));
          const bad = header.replace(
            '"lm_head.weight":{"dtype":"BF16","shape":[10,8]',
            '"lm_head.weight":{"dtype":"BF16","shape":[10,9]',
          );
          file.set(new TextEncoder().encode(bad), 8);
          return file;
        })(),
      },
    },
    'acme/traversal': {
      files: {
        'config.json': text(CONFIG),
        'model.safetensors.index.json': text({ weight_map: { w: '../other/model.safetensors' } }),
      },
    },
  });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await hub.close();
});

describe('fetchHubModel', () => {
  it('reads config.json and counts parameters of a sharded repo by range requests', async () => {
    const files = await fetchHubModel('acme/tiny-llama', { hubUrl: hub.url });
    expect(files).toEqual({
      source: 'hub',
      ref: 'acme/tiny-llama',
      config: CONFIG,
      parameterCount: SHARDED_PARAMETERS,
      tensorBytes: SHARDED_TENSOR_BYTES,
      quantizedHint: false,
      notes: [
        'parameters counted from 2 safetensors header(s) read by HTTP range requests',
        'left out 2 elements of non-parameter buffers (rotary inv_freq, attention masks)',
      ],
    });
    // Exactly what @huggingface/hub 2.17.5 asks for; the weights are never requested.
    const n1 = headerLength(SHARD_1_BYTES);
    const n2 = headerLength(SHARD_2_BYTES);
    expect([...hub.requests].sort()).toEqual(
      [
        'GET /acme/tiny-llama/resolve/main/config.json [bytes=0-0]',
        'GET /acme/tiny-llama/resolve/main/config.json',
        'HEAD /acme/tiny-llama/raw/main/model.safetensors',
        'HEAD /acme/tiny-llama/raw/main/model.safetensors.index.json',
        'GET /acme/tiny-llama/resolve/main/model.safetensors.index.json [bytes=0-0]',
        'GET /acme/tiny-llama/resolve/main/model.safetensors.index.json',
        `GET /acme/tiny-llama/resolve/main/${SHARD_1_FILE} [bytes=0-0]`,
        `GET /acme/tiny-llama/resolve/main/${SHARD_1_FILE} [bytes=0-7]`,
        `GET /acme/tiny-llama/resolve/main/${SHARD_1_FILE} [bytes=8-${8 + n1 - 1}]`,
        `GET /acme/tiny-llama/resolve/main/${SHARD_2_FILE} [bytes=0-0]`,
        `GET /acme/tiny-llama/resolve/main/${SHARD_2_FILE} [bytes=0-7]`,
        `GET /acme/tiny-llama/resolve/main/${SHARD_2_FILE} [bytes=8-${8 + n2 - 1}]`,
      ].sort(),
    );
  });

  it('reports each answered request, then the end, to onProgress', async () => {
    const seen: Array<{ ref: string; requests: number; finished: boolean }> = [];
    await fetchHubModel('acme/tiny-llama', { hubUrl: hub.url, onProgress: (p) => seen.push({ ...p }) });
    // One report a request the Hub answered (12 for this two-shard repo), then one to say it is over.
    expect(seen.map((p) => p.requests)).toEqual([...Array.from({ length: 12 }, (_, i) => i + 1), 12]);
    expect(seen.map((p) => p.finished)).toEqual([...Array<boolean>(12).fill(false), true]);
    expect(new Set(seen.map((p) => p.ref))).toEqual(new Set(['acme/tiny-llama']));
    expect(hub.requests).toHaveLength(12);
    // A failed fetch still ends its progress, so a terminal line is cleared.
    const failed: boolean[] = [];
    await userErrorOf(() =>
      fetchHubModel('acme/missing', { hubUrl: hub.url, onProgress: (p) => failed.push(p.finished) }),
    );
    expect(failed.at(-1)).toBe(true);
  });

  it('reads a single model.safetensors', async () => {
    const files = await fetchHubModel('acme/single', { hubUrl: hub.url });
    expect(files.parameterCount).toBe(208);
    expect(files.tensorBytes).toBe(416);
    expect(files.notes).toEqual([
      'parameters counted from 1 safetensors header(s) read by HTTP range requests',
    ]);
  });

  it('falls back to config.json when the repo has no safetensors weights', async () => {
    expect(await fetchHubModel('acme/config-only', { hubUrl: hub.url })).toEqual({
      source: 'hub',
      ref: 'acme/config-only',
      config: CONFIG,
      parameterCount: null,
      tensorBytes: null,
      quantizedHint: false,
      notes: [
        'the repo has no model.safetensors or model.safetensors.index.json: the parameter count comes from config.json',
      ],
    });
  });

  it('uses HF_ENDPOINT and HF_TOKEN from the environment when no options are given', async () => {
    vi.stubEnv('HF_ENDPOINT', `${hub.url}/`);
    vi.stubEnv('HF_TOKEN', 'hf_secret');
    const files = await fetchHubModel('acme/gated');
    expect(files.parameterCount).toBe(SHARDED_PARAMETERS);
    expect(new Set(hub.authorizations)).toEqual(new Set(['Bearer hf_secret']));
  });

  it('asks for HF_TOKEN when a gated repo answers 401', async () => {
    const error = await userErrorOf(() => fetchHubModel('acme/gated', { hubUrl: hub.url }));
    expect(error.code).toBe('network');
    expect(error.where).toBe('acme/gated');
    expect(error.message).toBe(
      'the Hub refused access to acme/gated (HTTP 401): the repo is gated or private, or does not exist',
    );
    expect(error.hint).toBe(
      'for a gated model, accept its licence on the Hub and set HF_TOKEN to an access token; otherwise check the repo id',
    );
  });

  it('says there is no such repo on a 404', async () => {
    const error = await userErrorOf(() => fetchHubModel('acme/missing', { hubUrl: hub.url }));
    expect(error.code).toBe('unknown-model');
    expect(error.message).toBe('acme/missing: no such repo on the Hub');
    // An answer, not an unreachable Hub: the catalog suggestions of an offline error do not apply.
    expect(error).not.toBeInstanceOf(HubUnreachableError);
    const revision = await userErrorOf(() =>
      fetchHubModel('acme/single', { hubUrl: hub.url, revision: 'v9' }),
    );
    expect(revision.message).toBe('acme/single@v9: no such repo on the Hub (or no such revision)');
  });

  it('says when the repo has no config.json', async () => {
    const error = await userErrorOf(() => fetchHubModel('acme/no-config', { hubUrl: hub.url }));
    expect(error.code).toBe('bad-file');
    expect(error.where).toBe('acme/no-config/config.json');
    expect(error.message).toBe(
      "acme/no-config has no config.json on the Hub; Headroom needs it to know the model's shape",
    );
  });

  it('validates headers from the Hub with the same checks as local files', async () => {
    const error = await userErrorOf(() => fetchHubModel('acme/corrupt', { hubUrl: hub.url }));
    expect(error.code).toBe('bad-file');
    expect(error.where).toBe('acme/corrupt/model.safetensors');
    expect(error.message).toBe(
      'acme/corrupt/model.safetensors: tensor "lm_head.weight" (BF16 [10,9]) spans 160 bytes but needs 180',
    );
  });

  it('refuses an index whose shard names leave the repo, without fetching them', async () => {
    const error = await userErrorOf(() => fetchHubModel('acme/traversal', { hubUrl: hub.url }));
    expect(error.code).toBe('bad-file');
    expect(error.message).toBe(
      'acme/traversal: Unsafe shard filename in weight_map: "../other/model.safetensors" (dot segment)',
    );
    expect(hub.requests.some((r) => r.includes('other'))).toBe(false);
  });

  it('rejects a repo id that is not owner/name', async () => {
    const error = await userErrorOf(() => fetchHubModel('../etc/passwd', { hubUrl: hub.url }));
    expect(error.code).toBe('unknown-model');
    expect(error.message).toBe(
      '"../etc/passwd" is not in the catalog and is not a Hugging Face repo id (owner/name)',
    );
    expect(hub.requests).toEqual([]);
  });

  it('rejects a token that is not a Hub token before any request', async () => {
    const error = await userErrorOf(() =>
      fetchHubModel('acme/single', { hubUrl: hub.url, accessToken: 'abc' }),
    );
    expect(error.code).toBe('invalid-field');
    expect(error.where).toBe('accessToken');
    expect(hub.requests).toEqual([]);
  });
});

describe('fetchHubModel without a network', () => {
  it('says the Hub could not be reached when the port is closed', async () => {
    const closed = await startFakeHub({});
    const url = closed.url;
    await closed.close();
    const error = await userErrorOf(() => fetchHubModel('acme/tiny-llama', { hubUrl: url }));
    expect(error.code).toBe('network');
    expect(error.where).toBe('acme/tiny-llama');
    expect(error).toBeInstanceOf(HubUnreachableError);
    expect(error.message).toBe(
      `acme/tiny-llama is not in the catalog and the Hugging Face Hub (${url}) could not be reached (ECONNREFUSED)`,
    );
    expect(error.hint).toBe(
      'use a catalog id (headroom models), or pass a local folder or a config.json path',
    );
  });

  it('gives up on a Hub that accepts the connection and never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer(() => {
      // Never answer.
    });
    silent.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const error = await userErrorOf(() =>
        fetchHubModel('acme/tiny-llama', { hubUrl: url, timeoutMs: 300 }),
      );
      expect(error.code).toBe('network');
      expect(error.message).toBe(
        `acme/tiny-llama is not in the catalog and the Hugging Face Hub (${url}) did not answer within 0.3 s`,
      );
      expect(error.hint).toMatch(/^check the network or HF_ENDPOINT/);
      expect(error).toBeInstanceOf(HubUnreachableError);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('says the Hub could not be reached when DNS fails (injected fetch)', async () => {
    const offline: typeof fetch = async () => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }),
      });
    };
    const error = await userErrorOf(() => fetchHubModel('meta-llama/Llama-3.1-8B', { fetch: offline }));
    expect(error.code).toBe('network');
    expect(error.message).toBe(
      'meta-llama/Llama-3.1-8B is not in the catalog and the Hugging Face Hub (https://huggingface.co) could not be reached (ENOTFOUND)',
    );
  });
});
