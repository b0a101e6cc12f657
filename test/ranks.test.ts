/**
 * The two-rank proof: `headroom run` of a launcher that starts two workers with RANK, LOCAL_RANK and
 * WORLD_SIZE (what torchrun, accelerate launch, deepspeed and srun set), against the stand-in torch and
 * nvidia-smi. Both ranks' peaks are recorded exactly (test/fixtures/train_ranks.py computes them),
 * the run's peak is rank 1's and says so, and the diagnosis names rank 1 and uneven shards.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './data.js';
import { standinHome } from './standins.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const TRAIN = join(REPO_ROOT, 'test', 'fixtures', 'train_ranks.py');
const MIB = 2 ** 20;
const RANK0_MIB = 2040 + 520 + 1020 + 260;
const EXTRA_MIB = 2040;
const RANK1_MIB = RANK0_MIB + EXTRA_MIB;
/** The stand-in's CUDA context per process and device (probe/tests/standin/torch/cuda.py). */
const CONTEXT_MIB = 500;

function headroom(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('headroom run of a two-rank launcher', () => {
  const { env } = standinHome('headroom-ranks-', { idleGpu: true });
  let run: ReturnType<typeof headroom>;

  beforeAll(() => {
    run = headroom(
      env,
      'run',
      '--name',
      'two-ranks',
      '--interval-ms',
      '50',
      '--json',
      '--',
      'python3',
      TRAIN,
      // Off the stand-in nvidia-smi's one card (GPU-…0000): each rank's figure is then its own process.
      '--first-device',
      '1',
    );
  }, 90_000);

  it('is one run with both ranks, each with its own exact peaks; the run’s peak is rank 1’s', () => {
    expect(run.code, run.stderr).toBe(0);
    const [record] = JSON.parse(headroom(env, 'runs', '--json').stdout) as Record<string, unknown>[];
    expect(record).toMatchObject({
      name: 'two-ranks',
      status: 'ok',
      steps: 6,
      peakRank: 1,
      peakAllocatedBytes: RANK1_MIB * MIB,
      peakReservedBytes: RANK1_MIB * MIB,
    });
    const ranks = record!.ranks as Record<string, unknown>[];
    expect(
      ranks.map((r) => [
        r.rank,
        r.localRank,
        r.worldSize,
        r.gpu,
        r.peakAllocatedBytes,
        r.peakReservedBytes,
        r.peakDeviceBytes,
        r.steps,
        r.lastStep,
        r.peakAllocatedStep,
      ]),
    ).toEqual([
      [0, 0, 2, 1, RANK0_MIB * MIB, RANK0_MIB * MIB, (RANK0_MIB + CONTEXT_MIB) * MIB, 6, 6, 2],
      [1, 1, 2, 2, RANK1_MIB * MIB, RANK1_MIB * MIB, (RANK1_MIB + CONTEXT_MIB) * MIB, 6, 6, 2],
    ]);
    expect(ranks.map((r) => r.host)).toEqual([ranks[0]!.host, ranks[0]!.host]);
    expect(ranks[0]!.gpuUuid).toBe('GPU-00000000-0000-0000-0000-000000000001');
    // run --json printed the same record.
    expect(JSON.parse(run.stdout).ranks).toEqual(ranks);
  });

  it('the imbalance finding names rank 1 and uneven shards, in English and Chinese', () => {
    const d = JSON.parse(headroom(env, 'diagnose', 'two-ranks', '--json').stdout) as {
      findings: { code: string; params: Record<string, unknown>; title: string }[];
    };
    const f = d.findings.find((x) => x.code === 'rank-imbalance');
    expect(f?.params).toEqual({
      rank: 1,
      reason: 'uneven-shards',
      aboveBytes: EXTRA_MIB * MIB,
      contexts: null,
    });
    const en = headroom(env, 'diagnose', 'two-ranks', '--lang', 'en');
    expect(en.stdout).toContain(
      'Rank 1 holds 1.99 GiB more than the others at every step, from the first: uneven shards',
    );
    const zh = headroom(env, 'diagnose', 'two-ranks', '--lang', 'zh');
    expect(zh.stdout).toContain('rank 1 从第一步起每一步都比其他 rank 多 1.99 GiB：分片不均');
  });

  it('runs show prints the ranks side by side and each step’s peak per rank', () => {
    const show = headroom(env, 'runs', 'show', 'two-ranks', '--lang', 'en');
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('2 ranks (◀ rank 1 holds the run’s peak)');
    expect(show.stdout).toMatch(/\n\s+1 ◀\s+1\s+\S+\s+2\s+5\.74 GiB\s+5\.74 GiB\s+6\.23 GiB\s+6\n/);
    expect(show.stdout).toContain('per-step peak allocated per rank');
    expect(show.stdout).toMatch(/\n\s+1\s+3\.24 GiB\s+5\.23 GiB\n/);
    expect(show.stdout).toMatch(/\n\s+6\s+3\.75 GiB\s+5\.74 GiB\n/);
    const zh = headroom(env, 'runs', 'show', 'two-ranks', '--lang', 'zh');
    expect(zh.stdout).toContain('2 个 rank（◀ rank 1 的峰值即本次运行的峰值）');
    const csv = headroom(env, 'runs', 'export', 'two-ranks', '--format', 'csv', '--table', 'ranks');
    expect(csv.stdout.split('\n')[0]).toBe(
      'rank,localRank,worldSize,host,pid,gpu,gpuUuid,cudaVisibleDevices,peakAllocatedBytes,peakAllocatedStep,peakAllocatedPhase,peakReservedBytes,peakDeviceBytes,steps,lastStep',
    );
  });
});

/** A finished rank's probe file as another node writes it: start, device, steps, end. */
function nodeFile(path: string, rank: number, host: string, peakMiB: number, steps: number): void {
  const base = { v: 1, pid: 4000 + rank, rank, localRank: rank % 2, worldSize: 4 };
  const dev = {
    index: rank % 2,
    allocatedBytes: MIB,
    reservedBytes: peakMiB * MIB,
    peakAllocatedBytes: peakMiB * MIB,
    peakReservedBytes: peakMiB * MIB,
  };
  const lines = [
    { ...base, event: 'start', t: 1, host, argv: ['train.py'] },
    {
      ...base,
      event: 'device',
      t: 1.5,
      index: rank % 2,
      name: 'NVIDIA H100',
      totalBytes: 80 * 2 ** 30,
      uuid: null,
    },
    ...Array.from({ length: steps }, (_, i) => ({
      ...base,
      event: 'step',
      t: 2 + i,
      step: i + 1,
      phase: 'train',
      devices: [dev],
    })),
    { ...base, event: 'end', t: 9, reason: 'exit', steps },
  ];
  writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}

describe('a multi-node run: each node’s probe files, one run', () => {
  it('headroom watch --run adds a second node’s ranks by rank and host, leaving the run’s status', () => {
    const { env } = standinHome('headroom-ranks-nodes-');
    const a = headroom(
      env,
      'run',
      '--name',
      'nodes',
      '--no-smi',
      '--json',
      '--',
      'python3',
      TRAIN,
      '--hold-s',
      '0',
    );
    expect(a.code, a.stderr).toBe(0);
    const folder = mkdtempSync(join(tmpdir(), 'headroom-node-b-'));
    nodeFile(join(folder, 'probe.rank2.jsonl'), 2, 'node-b', 4000, 6);
    nodeFile(join(folder, 'probe.rank3.jsonl'), 3, 'node-b', 9000, 6);
    const b = headroom(
      env,
      'watch',
      '--run',
      'nodes',
      '--log',
      join(folder, 'probe.jsonl'),
      '--no-smi',
      '--json',
    );
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toContain(`headroom: adding the ranks of ${join(folder, 'probe.jsonl')} to run 1`);
    const [record] = JSON.parse(headroom(env, 'runs', '--json').stdout) as {
      status: string;
      peakRank: number;
      peakAllocatedBytes: number;
      ranks: { rank: number; host: string; peakAllocatedBytes: number; steps: number }[];
    }[];
    expect(record!.status).toBe('ok');
    expect(
      record!.ranks.map((r) => [r.rank, r.host === 'node-b', r.peakAllocatedBytes / MIB, r.steps]),
    ).toEqual([
      [0, false, RANK0_MIB, 6],
      [1, false, RANK1_MIB, 6],
      [2, true, 4000, 6],
      [3, true, 9000, 6],
    ]);
    expect([record!.peakRank, record!.peakAllocatedBytes]).toEqual([3, 9000 * MIB]);
    // Watching the same files again repeats no line.
    const again = headroom(
      env,
      'watch',
      '--run',
      'nodes',
      '--log',
      join(folder, 'probe.jsonl'),
      '--no-smi',
      '--json',
    );
    expect(again.code, again.stderr).toBe(0);
    const ranks = (JSON.parse(headroom(env, 'runs', '--json').stdout) as { ranks: { steps: number }[] }[])[0]!
      .ranks;
    expect(ranks.map((r) => r.steps)).toEqual([6, 6, 6, 6]);
  });

  it('headroom run --log in a shared folder merges the other node’s rank files, waiting for their end', () => {
    const { env } = standinHome('headroom-ranks-shared-');
    const folder = mkdtempSync(join(tmpdir(), 'headroom-shared-'));
    // The other node's rank 2 is already there (a shared folder); this node runs ranks 0 and 1.
    nodeFile(join(folder, 'probe.rank2.jsonl'), 2, 'node-b', 4000, 6);
    const r = headroom(
      env,
      'run',
      '--no-smi',
      '--log',
      join(folder, 'probe.jsonl'),
      '--json',
      '--',
      'python3',
      TRAIN,
      '--hold-s',
      '0',
    );
    expect(r.code, r.stderr).toBe(0);
    const record = JSON.parse(r.stdout) as { ranks: { rank: number; host: string }[]; peakRank: number };
    expect(record.ranks.map((x) => [x.rank, x.host === 'node-b'])).toEqual([
      [0, false],
      [1, false],
      [2, true],
    ]);
    expect(record.peakRank).toBe(1);
  });
});
