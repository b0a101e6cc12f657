/**
 * The probe log: one JSON object per line, written by probe/headroom_probe.py (schema version 1).
 * A line that is truncated (a writer killed mid-write), not JSON, or not a probe event is returned
 * as a problem for that line; the lines around it still count.
 *
 * Every event has `v` (1), `event`, `t` (Unix time in seconds), `pid`, `rank`, `localRank` and
 * `worldSize`. Device figures (`devices`) are per local device; their peaks cover the time since the
 * previous event of the same process that carried devices (the probe resets the peak counters after
 * reading them), so the maximum over all events is the run's peak.
 */

import { SNAPSHOT_REASONS, type SnapshotReason } from './run-record.js';

/** Schema version written by the probe. */
export const PROBE_SCHEMA_VERSION = 1;
/** Longest line read; a longer one is reported, not parsed (the probe cuts its texts well below this). */
export const MAX_PROBE_LINE_BYTES = 1_048_576;

/** torch.cuda.memory_stats(device) of one device, read by the probe. */
export interface ProbeDeviceStats {
  /** Device index as the process sees it (after CUDA_VISIBLE_DEVICES). */
  readonly index: number;
  readonly allocatedBytes: number;
  readonly reservedBytes: number;
  /** Peak allocated since the previous device reading of this process. */
  readonly peakAllocatedBytes: number;
  readonly peakReservedBytes: number;
  readonly inactiveSplitBytes: number | null;
  readonly numAllocRetries: number | null;
  readonly numOoms: number | null;
}

interface ProbeBase {
  readonly v: number;
  /** Unix time in seconds. */
  readonly t: number;
  readonly pid: number;
  readonly rank: number;
  readonly localRank: number;
  readonly worldSize: number;
}

export interface ProbeStart extends ProbeBase {
  readonly event: 'start';
  readonly probeVersion: string | null;
  readonly host: string | null;
  readonly argv: readonly string[];
  readonly python: string | null;
  readonly torch: string | null;
  readonly cuda: string | null;
  /** The installed bitsandbytes (from its metadata); before 0.43.2 every 4-bit layer keeps its input. */
  readonly bitsandbytes: string | null;
  readonly cudaVisibleDevices: string | null;
  /**
   * Installed versions by distribution name (torch, transformers, peft, trl, accelerate, deepspeed,
   * bitsandbytes, …, from their metadata), the packages not installed left out; a probe before
   * `packages` gives torch and bitsandbytes only.
   */
  readonly packages: Readonly<Record<string, string>>;
}

export interface ProbeDevice extends ProbeBase {
  readonly event: 'device';
  readonly index: number;
  readonly name: string | null;
  readonly totalBytes: number | null;
  readonly uuid: string | null;
}

export interface ProbeStep extends ProbeBase {
  readonly event: 'step';
  readonly step: number;
  readonly phase: string;
  readonly loss: number | null;
  /** The loss as text when it was not a finite number ("nan", "inf"). */
  readonly lossText: string | null;
  readonly lr: number | null;
  readonly batchSize: number | null;
  readonly seqLen: number | null;
  /** Seconds since the previous step of this process; null for the first. */
  readonly durationS: number | null;
  readonly devices: readonly ProbeDeviceStats[];
}

export interface ProbePhase extends ProbeBase {
  readonly event: 'phase';
  readonly phase: string;
  readonly previous: string | null;
  readonly step: number | null;
  readonly devices: readonly ProbeDeviceStats[];
}

/** An uncaught exception (or one recorded with record_exception); `oom` when it is a CUDA out-of-memory. */
export interface ProbeException extends ProbeBase {
  readonly event: 'oom' | 'exception';
  /** Qualified class name, e.g. `torch.OutOfMemoryError`. */
  readonly type: string;
  readonly message: string;
  /** The full Python traceback text, chained exceptions included. */
  readonly traceback: string;
  readonly phase: string | null;
  /** The last step recorded before it. */
  readonly step: number | null;
  /** The thread's name for a thread's exception or a recorded one; null for the main thread's uncaught one. */
  readonly thread: string | null;
  readonly devices: readonly ProbeDeviceStats[];
}

/**
 * An allocator snapshot the probe wrote (HEADROOM_SNAPSHOT): the file, its size, why. A probe before
 * this reader said `request` for one the script asked for: read as `manual`.
 */
export interface ProbeSnapshot extends ProbeBase {
  readonly event: 'snapshot';
  readonly path: string;
  readonly bytes: number;
  readonly reason: SnapshotReason;
  readonly entries: number | null;
  readonly step: number | null;
}

export interface ProbeEnd extends ProbeBase {
  readonly event: 'end';
  readonly reason: 'exit' | 'oom' | 'exception';
  readonly steps: number;
}

/** An event of a kind this reader does not know (a newer probe); kept whole. */
export interface ProbeOther extends ProbeBase {
  readonly event: 'other';
  readonly kind: string;
  readonly raw: Readonly<Record<string, unknown>>;
}

export type ProbeEvent =
  | ProbeStart
  | ProbeDevice
  | ProbeStep
  | ProbePhase
  | ProbeException
  | ProbeSnapshot
  | ProbeEnd
  | ProbeOther;

export type ProbeLineProblemCode = 'truncated' | 'not-json' | 'invalid' | 'too-long';

/** Why a line was not read, as data. */
export interface ProbeLineProblem {
  readonly code: ProbeLineProblemCode;
  readonly message: string;
  /** The start of the line (at most 200 characters). */
  readonly excerpt: string;
  /** The line's length in characters. */
  readonly chars: number;
  /** The parser's own words: JSON.parse's message (not-json), the field at fault (invalid); else null. */
  readonly detail: string | null;
}

export type ProbeLine =
  | { readonly ok: true; readonly event: ProbeEvent }
  | { readonly ok: false; readonly problem: ProbeLineProblem };

class Invalid extends Error {}

type Json = Readonly<Record<string, unknown>>;

function num(o: Json, key: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Invalid(`"${key}" is not a number`);
  return v;
}
function numOrNull(o: Json, key: string): number | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Invalid(`"${key}" is not a number or null`);
  return v;
}
function strOrNull(o: Json, key: string): string | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new Invalid(`"${key}" is not a string or null`);
  return v;
}
function str(o: Json, key: string): string {
  const v = o[key];
  if (typeof v !== 'string') throw new Invalid(`"${key}" is not a string`);
  return v;
}

/** The command line: words as strings (a number or boolean as written); an object in it is no argv. */
function argvOf(o: Json): string[] {
  if (!Array.isArray(o.argv)) return [];
  return o.argv.map((a: unknown, i) => {
    if (typeof a === 'string') return a;
    if (typeof a === 'number' || typeof a === 'boolean') return String(a);
    throw new Invalid(`argv[${i}] is not a string`);
  });
}

function devices(o: Json): ProbeDeviceStats[] {
  const list = o.devices;
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new Invalid('"devices" is not a list');
  return list.map((d: unknown, i) => {
    if (typeof d !== 'object' || d === null) throw new Invalid(`devices[${i}] is not an object`);
    const x = d as Json;
    return {
      index: num(x, 'index'),
      allocatedBytes: num(x, 'allocatedBytes'),
      reservedBytes: num(x, 'reservedBytes'),
      peakAllocatedBytes: num(x, 'peakAllocatedBytes'),
      peakReservedBytes: num(x, 'peakReservedBytes'),
      inactiveSplitBytes: numOrNull(x, 'inactiveSplitBytes'),
      numAllocRetries: numOrNull(x, 'numAllocRetries'),
      numOoms: numOrNull(x, 'numOoms'),
    };
  });
}

function readEvent(o: Json): ProbeEvent {
  // The common fields are written out in each literal (not spread from one object): V8 builds
  // spread-then-extend literals far more slowly, and this runs for every line of every run.
  const v = num(o, 'v');
  const t = num(o, 't');
  const pid = num(o, 'pid');
  const rank = numOrNull(o, 'rank') ?? 0;
  const localRank = numOrNull(o, 'localRank') ?? 0;
  const worldSize = numOrNull(o, 'worldSize') ?? 1;
  const kind = str(o, 'event');
  switch (kind) {
    case 'start':
      return {
        v,
        t,
        pid,
        rank,
        localRank,
        worldSize,
        event: 'start',
        probeVersion: strOrNull(o, 'probeVersion'),
        host: strOrNull(o, 'host'),
        argv: argvOf(o),
        python: strOrNull(o, 'python'),
        torch: strOrNull(o, 'torch'),
        cuda: strOrNull(o, 'cuda'),
        bitsandbytes: strOrNull(o, 'bitsandbytes'),
        cudaVisibleDevices: strOrNull(o, 'cudaVisibleDevices'),
        packages: startPackages(o),
      };
    case 'device':
      return {
        v,
        t,
        pid,
        rank,
        localRank,
        worldSize,
        event: 'device',
        index: num(o, 'index'),
        name: strOrNull(o, 'name'),
        totalBytes: numOrNull(o, 'totalBytes'),
        uuid: strOrNull(o, 'uuid'),
      };
    case 'step':
      return {
        v,
        t,
        pid,
        rank,
        localRank,
        worldSize,
        event: 'step',
        step: num(o, 'step'),
        phase: strOrNull(o, 'phase') ?? 'train',
        loss: numOrNull(o, 'loss'),
        lossText: strOrNull(o, 'lossText'),
        lr: numOrNull(o, 'lr'),
        batchSize: numOrNull(o, 'batchSize'),
        seqLen: numOrNull(o, 'seqLen'),
        durationS: numOrNull(o, 'durationS'),
        devices: devices(o),
      };
    case 'phase':
      return {
        v,
        t,
        pid,
        rank,
        localRank,
        worldSize,
        event: 'phase',
        phase: str(o, 'phase'),
        previous: strOrNull(o, 'previous'),
        step: numOrNull(o, 'step'),
        devices: devices(o),
      };
    case 'oom':
    case 'exception':
      return {
        v,
        t,
        pid,
        rank,
        localRank,
        worldSize,
        event: kind,
        type: str(o, 'type'),
        message: str(o, 'message'),
        traceback: strOrNull(o, 'traceback') ?? '',
        phase: strOrNull(o, 'phase'),
        step: numOrNull(o, 'step'),
        thread: strOrNull(o, 'thread'),
        devices: devices(o),
      };
    case 'snapshot': {
      const said = str(o, 'reason');
      const reason = said === 'request' ? 'manual' : said;
      if (!(SNAPSHOT_REASONS as readonly string[]).includes(reason))
        throw new Invalid(`"reason" is "${said}", not oom, exit or manual`);
      return {
        v,
        t,
        pid,
        rank,
        localRank,
        worldSize,
        event: 'snapshot',
        path: str(o, 'path'),
        bytes: num(o, 'bytes'),
        reason: reason as SnapshotReason,
        entries: numOrNull(o, 'entries'),
        step: numOrNull(o, 'step'),
      };
    }
    case 'end': {
      const reason = str(o, 'reason');
      if (reason !== 'exit' && reason !== 'oom' && reason !== 'exception')
        throw new Invalid(`"reason" is "${reason}", not exit, oom or exception`);
      return {
        v,
        t,
        pid,
        rank,
        localRank,
        worldSize,
        event: 'end',
        reason,
        steps: numOrNull(o, 'steps') ?? 0,
      };
    }
    default:
      return { v, t, pid, rank, localRank, worldSize, event: 'other', kind, raw: o };
  }
}

const excerpt = (line: string) => (line.length > 200 ? `${line.slice(0, 200)}…` : line);

/** Parses one line of a probe log (without its newline). */
/** A start record's installed versions: its `packages` (strings only), torch and bitsandbytes as well. */
function startPackages(o: Readonly<Record<string, unknown>>): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  const given = o.packages;
  if (given !== null && typeof given === 'object' && !Array.isArray(given)) {
    for (const [name, version] of Object.entries(given)) if (typeof version === 'string') out[name] = version;
  }
  for (const name of ['torch', 'bitsandbytes']) {
    const version = o[name];
    if (out[name] === undefined && typeof version === 'string') out[name] = version;
  }
  return out;
}

export function parseProbeLine(line: string): ProbeLine {
  if (line.length > MAX_PROBE_LINE_BYTES) {
    return {
      ok: false,
      problem: {
        code: 'too-long',
        message: `line of ${line.length} characters is longer than ${MAX_PROBE_LINE_BYTES}`,
        excerpt: excerpt(line),
        chars: line.length,
        detail: null,
      },
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const truncated = line.trimStart().startsWith('{') && !line.trimEnd().endsWith('}');
    return {
      ok: false,
      problem: {
        code: truncated ? 'truncated' : 'not-json',
        message: truncated
          ? 'truncated line (the writer stopped in the middle of it)'
          : `not JSON (${(error as Error).message})`,
        excerpt: excerpt(line),
        chars: line.length,
        detail: truncated ? null : (error as Error).message,
      },
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      problem: {
        code: 'invalid',
        message: 'not a JSON object',
        excerpt: excerpt(line),
        chars: line.length,
        detail: null,
      },
    };
  }
  try {
    return { ok: true, event: readEvent(value as Json) };
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    return {
      ok: false,
      problem: {
        code: 'invalid',
        message: `not a probe event: ${error.message}`,
        excerpt: excerpt(line),
        chars: line.length,
        detail: error.message,
      },
    };
  }
}
