/**
 * The snapshot API: analyse an uploaded PyTorch memory snapshot (the request body, bounded), or the one
 * a recorded run keeps in its folder. The answer is `headroom snapshot --json`'s report.
 *
 * The page uploads rather than decoding in the browser (which the core could): the server is always
 * there (it serves the page), its Node process has the memory a 100 MB snapshot needs without freezing
 * the tab, and the CLI, the API and the page then share one path and its errors.
 */
import { readFile } from 'node:fs/promises';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { fileError } from '../core/file-errors.js';
import { analyseSnapshot, type SnapshotAnswer } from '../core/snapshot/analyse.js';
import { formatBytes } from '../core/units.js';
import type { RunSnapshotFile } from '../io/read-snapshot.js';

/** The route of an uploaded snapshot. */
export const SNAPSHOT_PATH = '/api/snapshot';

/** Largest snapshot accepted as a request body. */
export const SNAPSHOT_BODY_LIMIT_BYTES = 512 * 2 ** 20;

/** Sites per view a page shows (`?top=`, 1–100). */
function topOf(c: Context): number {
  const n = Number(c.req.query('top') ?? 10);
  return Number.isInteger(n) && n >= 1 && n <= 100 ? n : 10;
}

/** Mounts POST /snapshot (the body is the pickle) on the API; `limit` bounds the body. */
export function mountSnapshotUpload(api: Hono, limit = SNAPSHOT_BODY_LIMIT_BYTES): void {
  api.post(
    '/snapshot',
    bodyLimit({
      maxSize: limit,
      onError: (c) =>
        c.json(
          {
            error: {
              code: 'too-large',
              message: `the snapshot is over the ${formatBytes(limit)} this server accepts`,
              hint: `run headroom snapshot FILE on the machine that has it (no limit but memory), or record fewer events: _record_memory_history(max_entries=100000)`,
            },
          },
          413,
        ),
    }),
    async (c) => {
      const name = c.req.query('name') ?? 'the uploaded snapshot';
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      if (bytes.length === 0) {
        // The same words as an empty snapshot file given to `headroom snapshot`.
        throw fileError('pickle-empty', { file: name }, name);
      }
      const answer: SnapshotAnswer = {
        file: name,
        ...analyseSnapshot(bytes, { source: name, top: topOf(c) }),
      };
      return c.json(answer);
    },
  );
}

/**
 * Mounts GET /runs/:id/snapshot[?rank=N]: the snapshot a recorded run's probe wrote (the OOM's first),
 * found by `find` from the run's id and rank alone; a client never names a path. Null from `find`: no
 * such run.
 */
export function mountRunSnapshot(
  api: Hono,
  find: (runId: number, rank?: number) => RunSnapshotFile | null,
): void {
  api.get('/runs/:id/snapshot', async (c) => {
    const id = Number(c.req.param('id'));
    const rankText = c.req.query('rank');
    const rank = rankText === undefined ? undefined : Number(rankText);
    if (rank !== undefined && !(Number.isInteger(rank) && rank >= 0)) {
      return c.json(
        { error: { code: 'bad-request', message: `rank ${rankText}: not a whole number of at least 0` } },
        400,
      );
    }
    const found = Number.isInteger(id) && id > 0 ? find(id, rank) : null;
    if (found === null) {
      return c.json({ error: { code: 'not-found', message: `no run ${c.req.param('id')}` } }, 404);
    }
    if (!found.ok && found.reason === 'outside') {
      return c.json(
        {
          error: {
            code: 'forbidden',
            message: `run ${id}'s snapshot is recorded outside its folders; it is not served`,
            hint: `headroom snapshot FILE reads it on this machine`,
          },
        },
        403,
      );
    }
    const bytes = found.ok ? await readFile(found.path).catch(() => null) : null;
    if (bytes === null) {
      return c.json(
        {
          error: {
            code: 'not-found',
            message: `run ${id} has no memory snapshot${rank === undefined ? '' : ` of rank ${rank}`}`,
            hint: 'record one: headroom run --snapshot -- COMMAND (or torch.cuda.memory._dump_snapshot() in the script)',
          },
        },
        404,
      );
    }
    const name = `run ${id} snapshot${rank === undefined ? '' : ` rank ${rank}`}`;
    const report = analyseSnapshot(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      source: name,
      top: topOf(c),
    });
    return c.json({ file: name, ...report } satisfies SnapshotAnswer);
  });
}
