/**
 * A run's nvidia-smi samples as columns, the input of the card rules (card-rules.ts): one typed array
 * per field the rules read, row i of each being one sample, and each text (a UUID, a process name) an
 * index into one list of the distinct texts. 500,000 per-GPU and 500,000 per-process samples are about
 * 45 MB so, where as records they held about 400 MB at their peak (npm run bench:ledger-rows). A
 * missing figure (null in the record) is NaN in its column; SQLite stores no NaN, so none is lost.
 */
import type { GpuSampleRecord, ProcessSampleRecord } from '../run-record.js';

/** A run's nvidia-smi samples as records, in time order (tests, and what a caller has in hand). */
export interface RunSamples {
  readonly gpus: readonly GpuSampleRecord[];
  readonly processes: readonly ProcessSampleRecord[];
}

/** Text of a column row: an index into SampleColumns.texts, NO_TEXT for null. */
export const NO_TEXT = -1;

/** The per-GPU samples' fields the rules read (GpuSampleRecord's), as columns. */
export interface GpuSampleColumns {
  readonly length: number;
  readonly tMs: Float64Array;
  readonly gpu: Float64Array;
  readonly uuid: Int32Array;
  readonly name: Int32Array;
  readonly totalBytes: Float64Array;
  readonly usedBytes: Float64Array;
  readonly ownBytes: Float64Array;
}

/** The per-process samples' fields (ProcessSampleRecord's), as columns; `ours` is 1 or 0. */
export interface ProcessSampleColumns {
  readonly length: number;
  readonly tMs: Float64Array;
  readonly gpu: Float64Array;
  readonly gpuUuid: Int32Array;
  readonly pid: Float64Array;
  readonly name: Int32Array;
  readonly usedBytes: Float64Array;
  readonly ours: Uint8Array;
}

/** A run's nvidia-smi samples as columns, in time order (the order written). */
export interface SampleColumns {
  readonly gpus: GpuSampleColumns;
  readonly processes: ProcessSampleColumns;
  /** The distinct texts the columns' text rows point into. */
  readonly texts: readonly string[];
}

/** A figure of a column, null where the record had none. */
export const figure = (v: number): number | null => (Number.isNaN(v) ? null : v);

/** A text of a column, null where the record had none. */
export const textAt = (c: SampleColumns, i: number): string | null => (i === NO_TEXT ? null : c.texts[i]!);

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Typed = Float64Array | Int32Array | Uint8Array;

/** Columns of `size` rows for these fields, grown (doubled) when more come, cut to the rows by `done`. */
class Growing<K extends string> {
  private cols: Record<K, Typed>;
  private size: number;
  n = 0;

  constructor(
    private readonly kinds: Readonly<Record<K, new (n: number) => Typed>>,
    expected: number,
  ) {
    this.size = Math.max(16, expected);
    this.cols = this.allocate(this.size);
  }

  private allocate(size: number): Record<K, Typed> {
    const out = {} as Record<K, Typed>;
    for (const k of Object.keys(this.kinds) as K[]) out[k] = new this.kinds[k](size);
    return out;
  }

  /** The columns, with room for one more row at index `n`. */
  row(): Record<K, Typed> {
    if (this.n === this.size) {
      const next = this.allocate(this.size * 2);
      for (const k of Object.keys(this.kinds) as K[]) next[k].set(this.cols[k]);
      this.cols = next;
      this.size *= 2;
    }
    return this.cols;
  }

  done(): Record<K, Typed> & { length: number } {
    const out = { length: this.n } as Record<K, Typed> & { length: number };
    for (const k of Object.keys(this.kinds) as K[])
      (out as Record<K, Typed>)[k] = this.cols[k].subarray(0, this.n);
    return out;
  }
}

const GPU_KINDS = {
  tMs: Float64Array,
  gpu: Float64Array,
  uuid: Int32Array,
  name: Int32Array,
  totalBytes: Float64Array,
  usedBytes: Float64Array,
  ownBytes: Float64Array,
} as const;

const PROCESS_KINDS = {
  tMs: Float64Array,
  gpu: Float64Array,
  gpuUuid: Int32Array,
  pid: Float64Array,
  name: Int32Array,
  usedBytes: Float64Array,
  ours: Uint8Array,
} as const;

const num = (v: number | null): number => (v === null ? Number.NaN : v);

/**
 * Sample columns written a row at a time (a per-GPU row, a per-process row, in any interleaving): sized
 * for the expected rows when known, grown when more come, cut to the rows written by `done`.
 */
export class SampleWriter {
  private readonly gpus: Growing<keyof typeof GPU_KINDS>;
  private readonly processes: Growing<keyof typeof PROCESS_KINDS>;
  private readonly texts: string[] = [];
  private readonly textIndex = new Map<string, number>();

  constructor(expected: { readonly gpus?: number; readonly processes?: number } = {}) {
    this.gpus = new Growing(GPU_KINDS, expected.gpus ?? 1024);
    this.processes = new Growing(PROCESS_KINDS, expected.processes ?? 1024);
  }

  private text(s: string | null): number {
    if (s === null) return NO_TEXT;
    let i = this.textIndex.get(s);
    if (i === undefined) {
      i = this.texts.length;
      this.texts.push(s);
      this.textIndex.set(s, i);
    }
    return i;
  }

  /** One per-GPU sample, its figures null where unknown. */
  gpu(
    tMs: number,
    gpu: number,
    uuid: string | null,
    name: string | null,
    totalBytes: number | null,
    usedBytes: number | null,
    ownBytes: number | null,
  ): void {
    const c = this.gpus.row();
    const i = this.gpus.n++;
    c.tMs[i] = tMs;
    c.gpu[i] = gpu;
    c.uuid[i] = this.text(uuid);
    c.name[i] = this.text(name);
    c.totalBytes[i] = num(totalBytes);
    c.usedBytes[i] = num(usedBytes);
    c.ownBytes[i] = num(ownBytes);
  }

  /** One per-process sample. */
  process(
    tMs: number,
    gpu: number | null,
    gpuUuid: string | null,
    pid: number | null,
    name: string | null,
    usedBytes: number | null,
    ours: boolean,
  ): void {
    const c = this.processes.row();
    const i = this.processes.n++;
    c.tMs[i] = tMs;
    c.gpu[i] = num(gpu);
    c.gpuUuid[i] = this.text(gpuUuid);
    c.pid[i] = num(pid);
    c.name[i] = this.text(name);
    c.usedBytes[i] = num(usedBytes);
    c.ours[i] = ours ? 1 : 0;
  }

  done(): SampleColumns {
    return {
      gpus: this.gpus.done() as unknown as Mutable<GpuSampleColumns>,
      processes: this.processes.done() as unknown as Mutable<ProcessSampleColumns>,
      texts: this.texts,
    };
  }
}

const asColumns = new WeakMap<RunSamples, SampleColumns>();

/** Samples as columns (records are turned into columns once). */
export function sampleColumns(samples: RunSamples | SampleColumns): SampleColumns {
  if (!Array.isArray(samples.gpus)) return samples as SampleColumns;
  const records = samples as RunSamples;
  let cols = asColumns.get(records);
  if (!cols) {
    const w = new SampleWriter({ gpus: records.gpus.length, processes: records.processes.length });
    for (const g of records.gpus) w.gpu(g.tMs, g.gpu, g.uuid, g.name, g.totalBytes, g.usedBytes, g.ownBytes);
    for (const p of records.processes) w.process(p.tMs, p.gpu, p.gpuUuid, p.pid, p.name, p.usedBytes, p.ours);
    cols = w.done();
    asColumns.set(records, cols);
  }
  return cols;
}

/** The first per-GPU sample that names its card: the name and memory.total nvidia-smi gave; null if none. */
export function namedCard(
  c: SampleColumns,
): { readonly name: string; readonly totalBytes: number | null } | null {
  const g = c.gpus;
  for (let i = 0; i < g.length; i++)
    if (g.name[i] !== NO_TEXT) return { name: c.texts[g.name[i]!]!, totalBytes: figure(g.totalBytes[i]!) };
  return null;
}

/** The smallest memory.total above zero nvidia-smi gave; null when none did. */
export function smallestCardBytes(c: SampleColumns): number | null {
  const t = c.gpus.totalBytes;
  let min: number | null = null;
  for (let i = 0; i < t.length; i++) {
    const v = t[i]!;
    if (v > 0 && (min === null || v < min)) min = v;
  }
  return min;
}
