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
  type EnvSnapshot,
  FRAMEWORK_PACKAGES,
  GPU_QUERY_FIELDS,
  parseDriverVersions,
  parseEnvGpus,
  parseFrameworkProbe,
  parseTopoMatrix,
} from '../core/env.js';

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

interface ToolResult {
  readonly ok: boolean;
  readonly stdout: string;
  readonly reason: string;
}

/** Runs a tool; never throws. */
function runTool(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<ToolResult> {
  return new Promise((done) => {
    execFile(
      command,
      [...args],
      { timeout: TOOL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, env, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (!error) return done({ ok: true, stdout, reason: '' });
        const code = (error as NodeJS.ErrnoException).code;
        const reason =
          code === 'ENOENT'
            ? `${command} is not installed (not on PATH)`
            : error.killed
              ? `${command} ${args.join(' ')} did not answer within ${TOOL_TIMEOUT_MS / 1000} s`
              : `${command} ${args.join(' ')} failed: ${(stderr || stdout || error.message).trim().split('\n')[0]}`;
        done({ ok: false, stdout, reason });
      },
    );
  });
}

const missing = (reason: string): { status: 'missing'; reason: string } => ({ status: 'missing', reason });

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
    return missing(
      `cannot read free space of ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
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
  if (!query.ok) gpus = missing(query.reason);
  else {
    const parsed = parseEnvGpus(query.stdout, table.ok ? table.stdout : '');
    gpus = parsed.length > 0 ? { status: 'ok', value: parsed } : missing('nvidia-smi lists no GPU');
  }
  let driver: EnvSnapshot['driver'];
  const versions = table.ok ? parseDriverVersions(table.stdout) : null;
  if (versions && (versions.driverVersion || versions.cudaVersion))
    driver = { status: 'ok', value: versions };
  else driver = missing(table.ok ? 'nvidia-smi printed no driver or CUDA version' : table.reason);

  let interconnect: EnvSnapshot['interconnect'];
  if (!topo.ok) interconnect = missing(topo.reason);
  else {
    const matrix = parseTopoMatrix(topo.stdout);
    interconnect = matrix
      ? { status: 'ok', value: matrix }
      : missing('nvidia-smi topo -m printed no GPU matrix');
  }
  let frameworks: EnvSnapshot['frameworks'];
  if (!python.ok) frameworks = missing(python.reason);
  else {
    const parsed = parseFrameworkProbe(python.stdout.trim().split('\n').pop() ?? '');
    frameworks = parsed ? { status: 'ok', value: parsed } : missing('python3 printed no package versions');
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
