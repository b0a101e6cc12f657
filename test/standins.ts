/** A HEADROOM_HOME of its own with the stand-in nvidia-smi and torch, for end-to-end runs under `headroom run`. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { dataFile, REPO_ROOT } from './data.js';

export const STANDIN_BIN = join(REPO_ROOT, 'test', 'fixtures', 'bin');
export const STANDIN_TORCH = join(REPO_ROOT, 'probe', 'tests', 'standin');

/**
 * A fresh home and the environment that puts the stand-ins first. The GPU is real sample 12 (an H200
 * with other processes on it), or with `idleGpu` the same card with nothing used and no process listed.
 */
export function standinHome(
  prefix: string,
  options: { readonly idleGpu?: boolean; readonly env?: NodeJS.ProcessEnv } = {},
): {
  dir: string;
  env: NodeJS.ProcessEnv;
} {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const state = join(dir, 'nvsmi-state');
  mkdirSync(state);
  let idle: NodeJS.ProcessEnv = {};
  if (options.idleGpu) {
    // Sample 12's header and row with the GPU idle: nothing used, everything free.
    const [header, row] = readFileSync(
      dataFile('validation', 'nvidia-smi', '12_h200_query_gpu_full.csv'),
      'utf8',
    ).split('\n');
    const csv = join(dir, 'idle.csv');
    writeFileSync(csv, `${header}\n${row!.replace('32362 MiB, 110796 MiB', '0 MiB, 143157 MiB')}\n`);
    idle = { STANDIN_NVSMI_APPS_CSV: 'none', STANDIN_NVSMI_GPU_CSV: csv };
  }
  return {
    dir,
    env: {
      ...process.env,
      NO_COLOR: '1',
      HEADROOM_HOME: dir,
      PATH: [STANDIN_BIN, process.env.PATH].join(delimiter),
      PYTHONPATH: STANDIN_TORCH,
      STANDIN_NVSMI_STATE_DIR: state,
      ...idle,
      ...options.env,
    },
  };
}
