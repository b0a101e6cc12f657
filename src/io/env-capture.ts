/**
 * Captures the training environment of this machine: runs nvidia-smi (GPUs, driver/CUDA, topology) and
 * python3 (framework versions), reads the disk's free space and measures its write throughput. A tool
 * that is not installed, fails or times out makes that part "missing" with the reason; nothing here
 * throws for a machine that simply lacks something.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { open, rm, statfs } from 'node:fs/promises';
import { arch, cpus, hostname, platform, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type Captured,
  type EnvDisk,
  type EnvMissing,
  type EnvMissingWhy,
  type EnvSnapshot,
  FRAMEWORK_PACKAGES,
  GPU_QUERY_FIELDS,
  parseDriverVersions,
  parseEnvGpus,
  parseFrameworkProbe,
  parseTopoMatrix,
} from '../core/env.js';
import { say } from '../words/catalog.js';
import { ENV_MISSING } from '../words/env.js';

/** How long one tool may run before its part is recorded as missing. */
export const TOOL_TIMEOUT_MS = 20_000;
/** Size of the write-throughput probe: large enough to pass the page cache's first burst, small enough to be quick. */
export const DISK_PROBE_BYTES = 64 * 1024 * 1024;

/**
 * Asks python3 for package versions without importing them (importlib.metadata), and reads
 * torch.version.cuda from torch/version.py so that a broken CUDA install cannot hang the probe.
 */
export const PYTHON_PROBE = `
import json, sys, os, re
from importlib import metadata, util
names = ${JSON.stringify([...FRAMEWORK_PACKAGES])}
out = {"python": sys.version.split()[0], "packages": {}, "torch_cuda": None}
for name in names:
    try:
        out["packages"][name] = metadata.version(name)
    except Exception:
        out["packages"][name] = None
try:
    spec = util.find_spec("torch")
    if spec and spec.origin:
        text = open(os.path.join(os.path.dirname(spec.origin), "version.py")).read()
        m = re.search(r"^cuda\\s*(?::[^=]*)?=\\s*['\\"]([^'\\"]+)['\\"]", text, re.M)
        out["torch_cuda"] = m.group(1) if m else None
except Exception:
    pass
print(json.dumps(out))
`;

/** What a tool printed, or why it failed. */
type ToolResult =
  | { readonly ok: true; readonly stdout: string }
  | { readonly ok: false; readonly stdout: string; readonly why: EnvMissingWhy };

/** Runs a tool; never throws. */
function runTool(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<ToolResult> {
  return new Promise((done) => {
    execFile(
      command,
      [...args],
      { timeout: TOOL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, env, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (!error) return done({ ok: true, stdout });
        const code = (error as NodeJS.ErrnoException).code;
        const why: EnvMissingWhy =
          code === 'ENOENT'
            ? { code: 'not-installed', params: { command } }
            : error.killed
              ? { code: 'timed-out', params: { command, args: [...args], seconds: TOOL_TIMEOUT_MS / 1000 } }
              : {
                  code: 'failed',
                  params: {
                    command,
                    args: [...args],
                    output: (stderr || stdout || error.message).trim().split('\n')[0] ?? '',
                  },
                };
        done({ ok: false, stdout, why });
      },
    );
  });
}

/** A missing part: why, as data, with the English reason every file carries (src/words/env.ts). */
const missing = (why: EnvMissingWhy): EnvMissing => ({
  status: 'missing',
  reason: say(ENV_MISSING, 'en', why),
  code: why.code,
  params: why.params,
});

/** Free space of the folder's file system and a sequential write probe (fsync'd, then removed). */
export async function captureDisk(
  dir: string,
  probeBytes: number = DISK_PROBE_BYTES,
): Promise<Captured<EnvDisk>> {
  const path = resolve(dir);
  let freeBytes: number;
  let totalBytes: number;
  try {
    const fs = await statfs(path);
    freeBytes = fs.bavail * fs.bsize;
    totalBytes = fs.blocks * fs.bsize;
  } catch (error) {
    return missing({
      code: 'disk-unreadable',
      params: { path, error: (error as NodeJS.ErrnoException).code ?? (error as Error).message },
    });
  }
  let writeBytesPerSecond: number | null = null;
  if (probeBytes > 0 && freeBytes > probeBytes * 4) {
    const file = join(path, `.headroom-write-probe-${randomBytes(4).toString('hex')}`);
    const chunk = randomBytes(Math.min(probeBytes, 8 * 1024 * 1024));
    try {
      const handle = await open(file, 'w');
      const start = process.hrtime.bigint();
      try {
        for (let written = 0; written < probeBytes; written += chunk.length) await handle.write(chunk);
        await handle.sync();
      } finally {
        await handle.close();
      }
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      writeBytesPerSecond = Math.round(probeBytes / Math.max(seconds, 1e-6));
    } catch {
      writeBytesPerSecond = null;
    } finally {
      await rm(file, { force: true });
    }
  }
  return { status: 'ok', value: { path, freeBytes, totalBytes, writeBytesPerSecond } };
}

export interface CaptureOptions {
  /** Folder whose disk is measured (checkpoints and data go there). */
  readonly dir: string;
  /** Environment for the tools (PATH decides which nvidia-smi and python3 run). */
  readonly env?: NodeJS.ProcessEnv;
  /** Bytes written by the disk probe; 0 skips it. */
  readonly probeBytes?: number;
  readonly now?: Date;
}

/** Captures everything; each part that cannot be read is recorded as missing with the reason. */
export async function captureEnvironment(options: CaptureOptions): Promise<EnvSnapshot> {
  const env = options.env ?? process.env;
  const [query, table, topo, python, disk] = await Promise.all([
    runTool('nvidia-smi', [`--query-gpu=${GPU_QUERY_FIELDS.join(',')}`, '--format=csv'], env),
    runTool('nvidia-smi', [], env),
    runTool('nvidia-smi', ['topo', '-m'], env),
    runTool('python3', ['-c', PYTHON_PROBE], env),
    captureDisk(options.dir, options.probeBytes ?? DISK_PROBE_BYTES),
  ]);

  let gpus: EnvSnapshot['gpus'];
  if (!query.ok) gpus = missing(query.why);
  else {
    const parsed = parseEnvGpus(query.stdout, table.ok ? table.stdout : '');
    gpus = parsed.length > 0 ? { status: 'ok', value: parsed } : missing({ code: 'no-gpus', params: {} });
  }
  let driver: EnvSnapshot['driver'];
  const versions = table.ok ? parseDriverVersions(table.stdout) : null;
  if (versions && (versions.driverVersion || versions.cudaVersion))
    driver = { status: 'ok', value: versions };
  else driver = table.ok ? missing({ code: 'no-driver-version', params: {} }) : missing(table.why);

  let interconnect: EnvSnapshot['interconnect'];
  if (!topo.ok) interconnect = missing(topo.why);
  else {
    const matrix = parseTopoMatrix(topo.stdout);
    interconnect = matrix ? { status: 'ok', value: matrix } : missing({ code: 'no-topology', params: {} });
  }
  let frameworks: EnvSnapshot['frameworks'];
  if (!python.ok) frameworks = missing(python.why);
  else {
    const parsed = parseFrameworkProbe(python.stdout.trim().split('\n').pop() ?? '');
    frameworks = parsed
      ? { status: 'ok', value: parsed }
      : missing({ code: 'no-package-versions', params: {} });
  }
  return {
    kind: 'headroom-env',
    version: 1,
    capturedAt: (options.now ?? new Date()).toISOString(),
    host: {
      hostname: hostname(),
      platform: platform(),
      arch: arch(),
      cpus: cpus().length,
      memoryBytes: totalmem(),
    },
    gpus,
    driver,
    frameworks,
    interconnect,
    disk,
  };
}
