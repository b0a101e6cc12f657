/**
 * A captured training environment (`headroom env capture`): GPUs, driver and CUDA, Python framework
 * versions, GPU interconnect and disk. Each part is either captured or recorded as missing with the
 * reason — a machine without nvidia-smi or torch is a fact to report, not an error. The parsers here
 * take the tools' text output; running the tools is the edge's job (src/io/env-capture.ts).
 */
import type { GpuSpec } from './catalog/gpu-spec.js';
import { GPUS } from './catalog/index.js';
import { fileError } from './file-errors.js';
import {
  depthOf,
  describeValue,
  isPlainObject,
  list,
  literal,
  MAX_INPUT_DEPTH,
  nullable,
  num,
  object,
  optional,
  readShape,
  record,
  type Shape,
  ShapeError,
  str,
  tooDeep,
  unknownValue,
  withDefault,
} from './input-shape.js';
import type { MessageOf, NoParams } from './message.js';
import { parseNvidiaSmiCsv } from './nvidia-smi.js';
import { parseNvidiaSmiTable } from './nvidia-smi-table.js';
import { MIB } from './units.js';

/**
 * Why a part could not be captured, as data (src/words/env.ts words it): the tool that is not
 * installed, timed out or failed, or what its output lacked.
 */
export interface EnvMissingParams {
  readonly 'not-installed': { readonly command: string };
  readonly 'timed-out': {
    readonly command: string;
    readonly args: readonly string[];
    readonly seconds: number;
  };
  /** The tool failed: the first line of what it printed. */
  readonly failed: { readonly command: string; readonly args: readonly string[]; readonly output: string };
  readonly 'no-gpus': NoParams;
  readonly 'no-driver-version': NoParams;
  readonly 'no-topology': NoParams;
  readonly 'no-package-versions': NoParams;
  /** The disk's free space could not be read: the error's code or message. */
  readonly 'disk-unreadable': { readonly path: string; readonly error: string };
}
export type EnvMissingWhy = MessageOf<EnvMissingParams>;

/** The params each code of EnvMissingParams carries, and their types: to read a file's codes safely. */
const ENV_MISSING_FIELDS: {
  readonly [C in keyof EnvMissingParams]: Readonly<Record<string, 'string' | 'number' | 'strings'>>;
} = {
  'not-installed': { command: 'string' },
  'timed-out': { command: 'string', args: 'strings', seconds: 'number' },
  failed: { command: 'string', args: 'strings', output: 'string' },
  'no-gpus': {},
  'no-driver-version': {},
  'no-topology': {},
  'no-package-versions': {},
  'disk-unreadable': { path: 'string', error: 'string' },
};

/**
 * A part that could not be captured. `reason` is the English sentence (every file has it; files from
 * before codes have only it); `code` and `params` say it as data for the words of another language.
 */
export interface EnvMissing {
  readonly status: 'missing';
  readonly reason: string;
  readonly code?: string;
  readonly params?: unknown;
}

/** One part of the environment: its value, or why it could not be captured. */
export type Captured<T> = { readonly status: 'ok'; readonly value: T } | EnvMissing;

/**
 * Why a part is missing, as data, when the file says it with a known code and well-formed params; null
 * for files that only have the English reason (or a code this version does not know).
 */
export function envMissingWhy(part: EnvMissing): EnvMissingWhy | null {
  const code = part.code;
  if (code === undefined || !Object.hasOwn(ENV_MISSING_FIELDS, code)) return null;
  const fields = ENV_MISSING_FIELDS[code as keyof EnvMissingParams];
  const params = part.params;
  if (params === null || typeof params !== 'object') return null;
  for (const [name, type] of Object.entries(fields)) {
    const v = (params as Record<string, unknown>)[name];
    const ok =
      type === 'strings'
        ? Array.isArray(v) && v.every((x) => typeof x === 'string')
        : type === 'number'
          ? typeof v === 'number' && Number.isFinite(v)
          : typeof v === 'string';
    if (!ok) return null;
  }
  return { code, params } as EnvMissingWhy;
}

export interface EnvGpu {
  readonly index: number;
  readonly name: string;
  /** nvidia-smi memory.total in bytes. */
  readonly memoryTotalBytes: number | null;
  readonly computeCapability: string | null;
  readonly migMode: 'enabled' | 'disabled' | null;
  /** Memory of each MIG instance when MIG is on: a process gets one instance, not the card. */
  readonly migDevicesMemoryBytes: readonly number[];
  readonly pcie: { readonly gen: number; readonly lanes: number } | null;
  /** The catalog GPU it is (by name and memory), or null. */
  readonly catalogId: string | null;
}

export interface EnvDriver {
  readonly driverVersion: string | null;
  /** The highest CUDA version the driver supports (nvidia-smi's "CUDA Version"). */
  readonly cudaVersion: string | null;
}

/** Python packages whose versions matter to a fine-tuning run (distribution names). */
export const FRAMEWORK_PACKAGES = [
  'torch',
  'transformers',
  'peft',
  'trl',
  'accelerate',
  'deepspeed',
  'bitsandbytes',
  'torchao',
  'flash-attn',
  // The trainers whose versions decide framework profiles (src/core/frameworks, docs/frameworks.md).
  'torchtune',
  'litgpt',
  'lightning',
  'axolotl',
  'llamafactory',
  'ms-swift',
  'unsloth',
  'torchtitan',
] as const;

export interface EnvFrameworks {
  readonly python: string;
  /** Installed version per package; null when not installed. */
  readonly packages: Readonly<Record<string, string | null>>;
  /** The CUDA version torch was built against (torch.version.cuda), null for CPU builds or no torch. */
  readonly torchCuda: string | null;
}

export type LinkLabel = 'X' | 'NV' | 'PIX' | 'PXB' | 'PHB' | 'NODE' | 'SYS' | 'SOC' | 'OTHER';

export interface EnvInterconnect {
  /** nvlink: every GPU pair has NVLink; partial: some do; pcie: none; single: one GPU. */
  readonly kind: 'nvlink' | 'partial' | 'pcie' | 'single';
  readonly gpuCount: number;
  /** GPU pairs joined by NVLink, each counted once. */
  readonly nvlinkPairs: number;
  /** The GPU × GPU matrix as printed (`X`, `NV12`, `SYS`, ...). */
  readonly matrix: readonly (readonly string[])[];
}

export interface EnvDisk {
  readonly path: string;
  readonly freeBytes: number;
  readonly totalBytes: number;
  /** Sequential write throughput measured on that folder, bytes/s; null when not probed. */
  readonly writeBytesPerSecond: number | null;
}

export interface EnvHost {
  readonly hostname: string;
  readonly platform: string;
  readonly arch: string;
  readonly cpus: number;
  readonly memoryBytes: number;
}

export interface EnvSnapshot {
  readonly kind: 'headroom-env';
  readonly version: 1;
  /** ISO 8601. */
  readonly capturedAt: string;
  readonly host: EnvHost;
  readonly gpus: Captured<readonly EnvGpu[]>;
  readonly driver: Captured<EnvDriver>;
  readonly frameworks: Captured<EnvFrameworks>;
  readonly interconnect: Captured<EnvInterconnect>;
  readonly disk: Captured<EnvDisk>;
}

/** The fields `headroom env capture` asks nvidia-smi for (--query-gpu, --format=csv). */
export const GPU_QUERY_FIELDS = [
  'index',
  'name',
  'memory.total',
  'driver_version',
  'compute_cap',
  'mig.mode.current',
  'pcie.link.gen.max',
  'pcie.link.width.max',
] as const;

const normalizeName = (name: string): string =>
  name
    .toLowerCase()
    .replace(/nvidia|geforce|tesla|amd|instinct/g, ' ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/**
 * The catalog GPU an nvidia-smi name and memory.total describe. The model number must match
 * (H200, A100, 4090, L40S); ties are broken by the catalog's recorded nvidia-smi memory.total.
 * @example matchCatalogGpu('NVIDIA H100 80GB HBM3', 81559) // 'h100-sxm'
 */
export function matchCatalogGpu(
  name: string,
  memoryTotalMiB: number | null,
  catalog: readonly GpuSpec[] = GPUS,
): string | null {
  const words = normalizeName(name).split(' ').filter(Boolean);
  const model =
    words.find((w) => /\d/.test(w) && /[a-z]/.test(w) && !/^\d+gb$/.test(w)) ??
    words.find((w) => /^\d{4}$/.test(w));
  if (!model) return null;
  const candidates = catalog.filter((g) => {
    const catalogWords = new Set(normalizeName(`${g.name} ${g.id.replace(/-/g, ' ')}`).split(' '));
    return catalogWords.has(model);
  });
  if (candidates.length === 0) return null;
  const score = (g: GpuSpec): number => {
    const catalogWords = new Set(normalizeName(`${g.name} ${g.id.replace(/-/g, ' ')}`).split(' '));
    const shared = words.filter((w) => catalogWords.has(w)).length;
    const smi = g.nvidiaSmi?.memoryTotalMiB ?? null;
    const memoryMatch =
      memoryTotalMiB === null || smi === null
        ? 0
        : smi === memoryTotalMiB
          ? 100
          : -Math.abs(smi - memoryTotalMiB) / 1024;
    return memoryMatch + shared;
  };
  return [...candidates].sort((a, b) => score(b) - score(a))[0]!.id;
}

/**
 * GPUs from `nvidia-smi --query-gpu=<GPU_QUERY_FIELDS> --format=csv` (header and units kept; any field
 * order and extra fields are fine). MIG instance sizes come from the plain `nvidia-smi` table when given.
 */
export function parseEnvGpus(queryCsv: string, table = ''): EnvGpu[] {
  const csv = parseNvidiaSmiCsv(queryCsv, { kind: 'gpu' });
  const mig = table ? parseNvidiaSmiTable(table).migDevices : [];
  return csv.rows.map((row, i) => {
    const cell = (field: string) => row.cells[field];
    const number = (field: string): number | null => {
      const v = cell(field)?.value;
      return typeof v === 'number' ? v : null;
    };
    const text = (field: string): string | null => {
      const c = cell(field);
      return c && c.value !== null ? c.raw : null;
    };
    const index = number('index') ?? i;
    const totalMiB = number('memory.total');
    const migText = text('mig.mode.current');
    const gen = number('pcie.link.gen.max');
    const lanes = number('pcie.link.width.max');
    const name = text('name') ?? text('gpu_name') ?? 'unknown GPU';
    return {
      index,
      name,
      memoryTotalBytes: totalMiB === null ? null : totalMiB * MIB,
      computeCapability: text('compute_cap'),
      migMode: migText === null ? null : /^enabled$/i.test(migText) ? 'enabled' : 'disabled',
      migDevicesMemoryBytes: mig.filter((d) => d.gpu === index).map((d) => d.totalMiB * MIB),
      pcie: gen !== null && lanes !== null ? { gen, lanes } : null,
      catalogId: matchCatalogGpu(name, totalMiB),
    };
  });
}

/** Driver and CUDA versions from the plain `nvidia-smi` table header or `nvidia-smi -q`. */
export function parseDriverVersions(text: string): EnvDriver {
  const driver = /Driver Version\s*:?\s*([\d.]+)/.exec(text)?.[1] ?? null;
  const cuda = /CUDA Version\s*:?\s*([\d.]+)/.exec(text)?.[1] ?? null;
  return { driverVersion: driver, cudaVersion: cuda };
}

function linkLabel(cell: string): LinkLabel {
  const c = cell.trim();
  if (c === 'X') return 'X';
  if (/^NV\d+$/.test(c)) return 'NV';
  if (['PIX', 'PXB', 'PHB', 'NODE', 'SYS', 'SOC'].includes(c)) return c as LinkLabel;
  return 'OTHER';
}

/**
 * The GPU-to-GPU matrix of `nvidia-smi topo -m` (NIC rows and affinity columns ignored).
 * Returns null when the text has no GPU matrix.
 */
export function parseTopoMatrix(text: string): EnvInterconnect | null {
  const lines = text.split(/\r?\n/);
  const headerAt = lines.findIndex((l) => /^\s*GPU0(\s|$)/.test(l) && !/^\s*GPU0\s+X\b/.test(l));
  if (headerAt < 0) return null;
  const header = lines[headerAt]!.trim()
    .split(/\t+|\s{2,}/)
    .map((h) => h.trim());
  const gpuColumns = header.filter((h) => /^GPU\d+$/.test(h));
  const matrix: string[][] = [];
  for (const line of lines.slice(headerAt + 1)) {
    const cells = line.split('\t').map((c) => c.trim());
    if (!/^GPU\d+$/.test(cells[0] ?? '')) {
      if (line.trim() === '' || /^Legend/.test(line.trim())) break;
      continue;
    }
    matrix.push(cells.slice(1, 1 + gpuColumns.length));
  }
  if (matrix.length === 0) return null;
  const n = matrix.length;
  let pairs = 0;
  let nv = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      pairs++;
      if (linkLabel(matrix[i]![j] ?? '') === 'NV') nv++;
    }
  }
  const kind = n === 1 ? 'single' : nv === pairs ? 'nvlink' : nv > 0 ? 'partial' : 'pcie';
  return { kind, gpuCount: n, nvlinkPairs: nv, matrix };
}

/** The python3 probe's JSON output (see src/io/env-capture.ts) as framework versions. */
export function parseFrameworkProbe(json: string): EnvFrameworks | null {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return null;
  }
  if (raw === null || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  if (typeof r.python !== 'string' || r.packages === null || typeof r.packages !== 'object') return null;
  const packages: Record<string, string | null> = {};
  for (const name of FRAMEWORK_PACKAGES) {
    const v = (r.packages as Record<string, unknown>)[name];
    packages[name] = typeof v === 'string' ? v : null;
  }
  return { python: r.python, packages, torchCuda: typeof r.torch_cuda === 'string' ? r.torch_cuda : null };
}

const count = num({ min: 0, integer: true });
const bytes = num({ min: 0 });
const maybeString = withDefault(nullable(str), null);

const MISSING: Shape<EnvMissing> = object<EnvMissing>({
  status: literal('missing'),
  reason: str,
  code: optional(str),
  params: unknownValue,
});

/** A captured part: `{"status": "ok", "value": …}` read with `value`, or `{"status": "missing", …}`. */
function captured<T>(value: Shape<T>): Shape<Captured<T>> {
  const ok = object<{ status: 'ok'; value: T }>({ status: literal('ok'), value });
  return (v, p) => {
    const status = isPlainObject(v) ? v.status : undefined;
    if (status === 'missing') return MISSING(v, p);
    if (status === 'ok') return ok(v, p);
    throw new ShapeError(p, 'part', v);
  };
}

const GPU: Shape<EnvGpu> = object<EnvGpu>({
  index: count,
  name: str,
  memoryTotalBytes: withDefault(nullable(bytes), null),
  computeCapability: maybeString,
  migMode: withDefault(nullable(literal('enabled', 'disabled')), null),
  migDevicesMemoryBytes: withDefault(list(bytes), []),
  pcie: withDefault(nullable(object<{ gen: number; lanes: number }>({ gen: count, lanes: count })), null),
  catalogId: maybeString,
});

const SNAPSHOT: Shape<EnvSnapshot> = object<EnvSnapshot>({
  kind: literal('headroom-env'),
  version: literal(1),
  capturedAt: str,
  host: object<EnvHost>({ hostname: str, platform: str, arch: str, cpus: count, memoryBytes: bytes }),
  gpus: captured(list(GPU, 4096)),
  driver: captured(object<EnvDriver>({ driverVersion: maybeString, cudaVersion: maybeString })),
  frameworks: captured(
    object<EnvFrameworks>({ python: str, packages: record(nullable(str)), torchCuda: maybeString }),
  ),
  interconnect: captured(
    object<EnvInterconnect>({
      kind: literal('nvlink', 'partial', 'pcie', 'single'),
      gpuCount: count,
      nvlinkPairs: count,
      matrix: list(list(str, 4096), 4096),
    }),
  ),
  disk: captured(
    object<EnvDisk>({
      path: str,
      freeBytes: bytes,
      totalBytes: bytes,
      writeBytesPerSecond: withDefault(nullable(bytes), null),
    }),
  ),
});

/**
 * Reads an environment file written by `headroom env capture`; throws a user error naming the file.
 * @example parseEnvSnapshot(readFileSync('env.json', 'utf8'), 'env.json').gpus
 */
export function parseEnvSnapshot(text: string, fileName: string): EnvSnapshot {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw fileError('env-not-json', { file: fileName, detail: (error as Error).message }, fileName);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw fileError('env-not-object', { file: fileName }, fileName);
  const r = raw as Record<string, unknown>;
  if (r.kind !== 'headroom-env') throw fileError('env-not-headroom', { file: fileName }, fileName);
  if (r.version !== 1)
    throw fileError('env-version', { file: fileName, version: describeValue(r.version) }, fileName);
  if (depthOf(raw) > MAX_INPUT_DEPTH) throw tooDeep(fileName, 'env');
  // Every field checked here, once: env show and migrate read the value as typed.
  return readShape(SNAPSHOT, raw, fileName, 'env');
}
