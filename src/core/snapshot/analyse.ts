/**
 * What a memory snapshot says, as data: the allocator's totals and fragmentation (MemoryViz's measures:
 * reserved, allocated, requested, cached, the largest free block), the trace's active-memory peak and
 * the moment it happens, what was live then — by part and by allocation site — and the OOMs the trace
 * recorded. Words come from words.ts.
 *
 * The trace is replayed as the validation data defines it (data/fixtures/snapshots/README.md): live
 * bytes start at the end state's allocated bytes minus the trace's net change (allocs minus
 * free_completed), then each alloc adds and each free_completed subtracts. What was live at a moment is
 * MemoryViz's reconstruction (torch/utils/viz/MemoryViz.js `process_alloc_data`): the trace's allocs not
 * yet freed, the blocks freed in the trace that it never saw allocated, and the end state's blocks the
 * trace never touched.
 */
import {
  type AttributionRule,
  attributeAllocation,
  noStackSite,
  RULE_PART,
  type Site,
  type SiteKind,
  SNAPSHOT_PARTS,
  type SnapshotPart,
  type StackFacts,
  stackFacts,
} from './attribute.js';
import {
  ACTION,
  type AllocatorSettings,
  readSnapshot,
  type Snapshot,
  type SnapshotFrame,
  type TraceColumns,
} from './snapshot.js';

/** The facts validation's expected.jsonl names, under its names. */
export interface SnapshotFacts {
  readonly segments: number;
  /** Sum of the segments' total_size. */
  readonly reservedBytes: number;
  /** Sum of `size` over blocks in state active_allocated. */
  readonly allocatedBytes: number;
  /** Sum of `requested_size` over the same blocks. */
  readonly requestedBytes: number;
  /** Cached, unused bytes: blocks in state inactive. */
  readonly inactiveBytes: number;
  readonly largestInactiveBlockBytes: number;
  readonly activeBlocks: number;
  /** Blocks freed but waiting for another stream (active_pending_free, record_stream). */
  readonly pendingFreeBytes: number;
  /** Events per device. */
  readonly traceEvents: readonly number[];
  readonly traceActions: Readonly<Record<string, number>>;
  /** The trace's peak of live bytes per device; null for a device without events. */
  readonly tracePeakActiveBytes: readonly (number | null)[];
}

export interface SiteBytes {
  readonly kind: SiteKind;
  readonly frame: SnapshotFrame | null;
  readonly bytes: number;
  readonly count: number;
  /** The part most of its bytes went to (null: mostly unattributed). */
  readonly part: SnapshotPart | null;
}

export interface RuleBytes {
  readonly rule: AttributionRule;
  readonly part: SnapshotPart | null;
  readonly bytes: number;
  readonly count: number;
}

/** The allocations live at one moment, by part, by rule and by site. */
export interface LiveView {
  /** Bytes of the live allocations found; `parts` and `unattributedBytes` add up to it. */
  readonly liveBytes: number;
  readonly count: number;
  readonly parts: Readonly<Record<SnapshotPart, number>>;
  readonly unattributedBytes: number;
  /** Bytes live since before the trace began, without a stack (part of unattributedBytes). */
  readonly beforeRecordingBytes: number;
  readonly rules: readonly RuleBytes[];
  /** The largest sites, largest first. */
  readonly sites: readonly SiteBytes[];
}

export interface TracePeak {
  readonly device: number;
  /** The peak of live bytes (tracePeakActiveBytes). */
  readonly activeBytes: number;
  /** The event after which it is reached; -1: before the first event. */
  readonly eventIndex: number;
  readonly events: number;
  /** Microseconds since the epoch, when the trace has times. */
  readonly timeUs: number | null;
  /** Reserved bytes at that moment (replaying segment_alloc/free/map/unmap from the end state). */
  readonly reservedBytes: number;
  readonly live: LiveView;
}

export interface TraceOom {
  readonly device: number;
  readonly eventIndex: number;
  readonly timeUs: number | null;
  /** The allocation that failed. */
  readonly requestedBytes: number;
  /** What CUDA said was free on the device. */
  readonly deviceFreeBytes: number;
  readonly activeBytes: number;
  readonly reservedBytes: number;
  readonly live: LiveView;
}

/** Active and reserved bytes over the trace, min and max per bucket of events (every peak is kept). */
export interface Timeline {
  readonly device: number;
  readonly events: number;
  /** First event of each bucket. */
  readonly start: readonly number[];
  readonly timeUs: readonly (number | null)[];
  readonly activeMin: readonly number[];
  readonly activeMax: readonly number[];
  /** True where the bucket reaches its max before its min (draw order). */
  readonly maxFirst: readonly boolean[];
  readonly reservedMin: readonly number[];
  readonly reservedMax: readonly number[];
}

export interface SnapshotFindingParams {
  'fragmentation-high': {
    readonly inactiveBytes: number;
    readonly reservedBytes: number;
    readonly share: number;
    readonly largestInactiveBlockBytes: number;
  };
  'oom-in-trace': {
    readonly device: number;
    readonly eventIndex: number;
    readonly requestedBytes: number;
    readonly deviceFreeBytes: number;
    readonly activeBytes: number;
    readonly reservedBytes: number;
  };
  'no-trace': Record<string, never>;
  'unattributed-large': {
    readonly bytes: number;
    readonly share: number;
    readonly beforeRecordingBytes: number;
  };
  'pending-free': { readonly bytes: number };
  'estimate-part-low': EstimatePartParams;
  'estimate-part-high': EstimatePartParams;
}

export interface EstimatePartParams {
  readonly part: SnapshotPart;
  readonly estimateBytes: number;
  readonly measuredBytes: number;
  /** (estimate − measured) / measured; negative: the estimate is too low. */
  readonly error: number;
  /** Live bytes the snapshot could not attribute (some of the part may be among them). */
  readonly unattributedBytes: number;
}

export type SnapshotFindingCode = keyof SnapshotFindingParams;
export type SnapshotFinding = {
  readonly [C in SnapshotFindingCode]: { readonly code: C; readonly params: SnapshotFindingParams[C] };
}[SnapshotFindingCode];

export interface SnapshotReport extends SnapshotFacts {
  /** What is allocated at the moment of the snapshot (the active blocks), by part and site. */
  readonly end: LiveView;
  /** The trace's peak per device with events. */
  readonly peaks: readonly TracePeak[];
  readonly ooms: readonly TraceOom[];
  readonly timelines: readonly Timeline[];
  readonly allocatorSettings: AllocatorSettings | null;
  readonly stacks: number;
  readonly frames: number;
  readonly findings: readonly SnapshotFinding[];
}

/** What the CLI's --json and the API answer: the report and the name its file was read under. */
export type SnapshotAnswer = { readonly file: string } & SnapshotReport;

export interface AnalyseOptions {
  /** The file, named in errors. */
  readonly source?: string;
  /** Sites listed per view. */
  readonly top?: number;
  /** Timeline buckets per device. */
  readonly buckets?: number;
}

/** Cached over reserved at or above this share, and at least FRAGMENTED_MIN_BYTES: fragmentation-high. */
export const FRAGMENTED_SHARE = 0.25;
export const FRAGMENTED_MIN_BYTES = 2 ** 30;
/** Unattributed over live at or above this share: unattributed-large. */
export const UNATTRIBUTED_SHARE = 0.1;
/** Bytes waiting on another stream at or above this: pending-free. */
export const PENDING_FREE_MIN_BYTES = 64 * 2 ** 20;
/** OOMs analysed one by one (the trace lists any more in the counts). */
export const MAX_OOMS = 16;
export const DEFAULT_TOP = 10;
export const DEFAULT_BUCKETS = 2048;

/** The heaviest of the views' peaks (the device that matters), or null without a trace. */
export function mainPeak(report: Pick<SnapshotReport, 'peaks'>): TracePeak | null {
  let best: TracePeak | null = null;
  for (const p of report.peaks) if (best === null || p.activeBytes > best.activeBytes) best = p;
  return best;
}

/** One live allocation, to attribute. */
interface Live {
  size: number;
  stack: number;
  freedBy: number;
  beforeRecording: boolean;
}

/** Adds live allocations up by rule, part and site. */
class LiveTally {
  private readonly ruleBytes = new Map<AttributionRule, { bytes: number; count: number }>();
  private readonly siteParts = new Map<number, { bytes: number; count: number; parts: Float64Array }>();
  private bytes = 0;
  private count = 0;

  constructor(
    private readonly facts: readonly StackFacts[],
    private readonly sites: readonly Site[],
    private readonly noSite: number,
  ) {}

  add(a: Live): void {
    const alloc = a.stack >= 0 ? this.facts[a.stack]! : null;
    const freed = a.freedBy >= 0 ? this.facts[a.freedBy]! : null;
    const rule = attributeAllocation(alloc, freed, a.size, a.beforeRecording);
    const r = this.ruleBytes.get(rule) ?? { bytes: 0, count: 0 };
    r.bytes += a.size;
    r.count += 1;
    this.ruleBytes.set(rule, r);
    const siteId = alloc ? alloc.site : this.noSite;
    let s = this.siteParts.get(siteId);
    if (!s) {
      s = { bytes: 0, count: 0, parts: new Float64Array(SNAPSHOT_PARTS.length + 1) };
      this.siteParts.set(siteId, s);
    }
    s.bytes += a.size;
    s.count += 1;
    const part = RULE_PART[rule];
    s.parts[part === null ? SNAPSHOT_PARTS.length : SNAPSHOT_PARTS.indexOf(part)]! += a.size;
    this.bytes += a.size;
    this.count += 1;
  }

  view(top: number): LiveView {
    const parts = Object.fromEntries(SNAPSHOT_PARTS.map((p) => [p, 0])) as Record<SnapshotPart, number>;
    let unattributed = 0;
    const rules: RuleBytes[] = [];
    for (const [rule, r] of this.ruleBytes) {
      const part = RULE_PART[rule];
      if (part === null) unattributed += r.bytes;
      else parts[part] += r.bytes;
      rules.push({ rule, part, bytes: r.bytes, count: r.count });
    }
    rules.sort((a, b) => b.bytes - a.bytes);
    const sites = [...this.siteParts.entries()]
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, top)
      .map(([id, s]): SiteBytes => {
        let best = 0;
        for (let i = 1; i < s.parts.length; i++) if (s.parts[i]! > s.parts[best]!) best = i;
        return {
          kind: this.sites[id]!.kind,
          frame: this.sites[id]!.frame,
          bytes: s.bytes,
          count: s.count,
          part: best === SNAPSHOT_PARTS.length ? null : SNAPSHOT_PARTS[best]!,
        };
      });
    return {
      liveBytes: this.bytes,
      count: this.count,
      parts,
      unattributedBytes: unattributed,
      beforeRecordingBytes: this.ruleBytes.get('before-recording')?.bytes ?? 0,
      rules,
      sites,
    };
  }
}

function factsOf(snapshot: Snapshot): SnapshotFacts {
  let reserved = 0;
  let allocated = 0;
  let requested = 0;
  let inactive = 0;
  let largest = 0;
  let active = 0;
  let pending = 0;
  for (const seg of snapshot.segments) {
    reserved += seg.totalSize;
    for (const b of seg.blocks) {
      if (b.state === 'active_allocated') {
        allocated += b.size;
        requested += b.requestedSize;
        active += 1;
      } else if (b.state === 'inactive') {
        inactive += b.size;
        if (b.size > largest) largest = b.size;
      } else if (b.state === 'active_pending_free') pending += b.size;
    }
  }
  return {
    segments: snapshot.segments.length,
    reservedBytes: reserved,
    allocatedBytes: allocated,
    requestedBytes: requested,
    inactiveBytes: inactive,
    largestInactiveBlockBytes: largest,
    activeBlocks: active,
    pendingFreeBytes: pending,
    traceEvents: snapshot.traces.map((t) => t.length),
    traceActions: { ...snapshot.actionCounts },
    tracePeakActiveBytes: [],
  };
}

interface Replay {
  peak: TracePeak;
  ooms: TraceOom[];
  timeline: Timeline;
}

/** Replays one device's trace: the peak, the OOMs, the timeline, and what was live at each. */
function replayTrace(
  snapshot: Snapshot,
  trace: TraceColumns,
  tally: () => LiveTally,
  top: number,
  buckets: number,
): Replay {
  const { action, addr, size, time, stack, length: n, device } = trace;
  const blocks = snapshot.segments.filter((s) => s.device === device).flatMap((s) => s.blocks);
  const endActive = blocks.reduce((sum, b) => sum + (b.state === 'active_allocated' ? b.size : 0), 0);
  const endReserved = snapshot.segments.reduce((sum, s) => sum + (s.device === device ? s.totalSize : 0), 0);
  let net = 0;
  let netReserved = 0;
  for (let i = 0; i < n; i++) {
    const a = action[i]!;
    if (a === ACTION.alloc) net += size[i]!;
    else if (a === ACTION.free_completed) net -= size[i]!;
    else if (a === ACTION.segment_alloc || a === ACTION.segment_map) netReserved += size[i]!;
    else if (a === ACTION.segment_free || a === ACTION.segment_unmap) netReserved -= size[i]!;
  }
  let active = endActive - net;
  let reserved = endReserved - netReserved;
  let peak = active;
  let peakIndex = -1;
  let peakReserved = reserved;
  const freeOf = new Int32Array(n).fill(-1);
  const open = new Map<number, number>();
  const preFreed: number[] = [];
  const oomAt: { index: number; active: number; reserved: number }[] = [];
  const b = Math.max(1, Math.min(buckets, n));
  const tl = {
    start: new Array<number>(b),
    timeUs: new Array<number | null>(b),
    activeMin: new Array<number>(b).fill(Number.POSITIVE_INFINITY),
    activeMax: new Array<number>(b).fill(Number.NEGATIVE_INFINITY),
    minAt: new Int32Array(b),
    maxAt: new Int32Array(b),
    reservedMin: new Array<number>(b).fill(Number.POSITIVE_INFINITY),
    reservedMax: new Array<number>(b).fill(Number.NEGATIVE_INFINITY),
  };
  let bucket = -1;
  for (let i = 0; i < n; i++) {
    const a = action[i]!;
    if (a === ACTION.alloc) {
      active += size[i]!;
      open.set(addr[i]!, i);
    } else if (a === ACTION.free_completed) {
      active -= size[i]!;
      const j = open.get(addr[i]!);
      if (j === undefined) preFreed.push(i);
      else {
        freeOf[j] = i;
        open.delete(addr[i]!);
      }
    } else if (a === ACTION.segment_alloc || a === ACTION.segment_map) reserved += size[i]!;
    else if (a === ACTION.segment_free || a === ACTION.segment_unmap) reserved -= size[i]!;
    else if (a === ACTION.oom && oomAt.length < MAX_OOMS) oomAt.push({ index: i, active, reserved });
    if (active > peak) {
      peak = active;
      peakIndex = i;
      peakReserved = reserved;
    }
    const k = Math.floor((i * b) / n);
    if (k !== bucket) {
      bucket = k;
      tl.start[k] = i;
      tl.timeUs[k] = Number.isNaN(time[i]!) ? null : time[i]!;
    }
    if (active < tl.activeMin[k]!) {
      tl.activeMin[k] = active;
      tl.minAt[k] = i;
    }
    if (active > tl.activeMax[k]!) {
      tl.activeMax[k] = active;
      tl.maxAt[k] = i;
    }
    if (reserved < tl.reservedMin[k]!) tl.reservedMin[k] = reserved;
    if (reserved > tl.reservedMax[k]!) tl.reservedMax[k] = reserved;
  }
  // Blocks live through the whole trace: active at the end, and no alloc of the trace made them.
  const untouched = blocks.filter((bl) => bl.state === 'active_allocated' && !open.has(bl.address));

  const liveAt = (m: number): LiveView => {
    const t = tally();
    for (let i = 0; i <= m; i++) {
      if (action[i] !== ACTION.alloc) continue;
      const f = freeOf[i]!;
      if (f >= 0 && f <= m) continue;
      t.add({ size: size[i]!, stack: stack[i]!, freedBy: f >= 0 ? stack[f]! : -1, beforeRecording: false });
    }
    for (const j of preFreed) {
      if (j > m) t.add({ size: size[j]!, stack: -1, freedBy: stack[j]!, beforeRecording: true });
    }
    for (const bl of untouched) {
      t.add({ size: bl.size, stack: bl.stack, freedBy: -1, beforeRecording: bl.stack < 0 });
    }
    return t.view(top);
  };
  const timeAt = (i: number): number | null => (i >= 0 && !Number.isNaN(time[i]!) ? time[i]! : null);

  return {
    peak: {
      device,
      activeBytes: peak,
      eventIndex: peakIndex,
      events: n,
      timeUs: timeAt(peakIndex),
      reservedBytes: peakReserved,
      live: liveAt(peakIndex),
    },
    ooms: oomAt.map((o) => ({
      device,
      eventIndex: o.index,
      timeUs: timeAt(o.index),
      requestedBytes: size[o.index]!,
      deviceFreeBytes: addr[o.index]!,
      activeBytes: o.active,
      reservedBytes: o.reserved,
      live: liveAt(o.index),
    })),
    timeline: {
      device,
      events: n,
      start: tl.start,
      timeUs: tl.timeUs,
      activeMin: tl.activeMin,
      activeMax: tl.activeMax,
      maxFirst: Array.from(tl.maxAt, (at, k) => at < tl.minAt[k]!),
      reservedMin: tl.reservedMin,
      reservedMax: tl.reservedMax,
    },
  };
}

/** The findings a report's own figures support (estimate comparisons come from compare.ts). */
function findingsOf(report: Omit<SnapshotReport, 'findings'>): SnapshotFinding[] {
  const out: SnapshotFinding[] = [];
  const { inactiveBytes, reservedBytes, largestInactiveBlockBytes } = report;
  if (
    reservedBytes > 0 &&
    inactiveBytes >= FRAGMENTED_MIN_BYTES &&
    inactiveBytes / reservedBytes >= FRAGMENTED_SHARE
  ) {
    out.push({
      code: 'fragmentation-high',
      params: {
        inactiveBytes,
        reservedBytes,
        share: inactiveBytes / reservedBytes,
        largestInactiveBlockBytes,
      },
    });
  }
  for (const o of report.ooms) {
    out.push({
      code: 'oom-in-trace',
      params: {
        device: o.device,
        eventIndex: o.eventIndex,
        requestedBytes: o.requestedBytes,
        deviceFreeBytes: o.deviceFreeBytes,
        activeBytes: o.activeBytes,
        reservedBytes: o.reservedBytes,
      },
    });
  }
  if (report.traceEvents.every((n) => n === 0)) out.push({ code: 'no-trace', params: {} });
  const view = mainPeak(report)?.live ?? report.end;
  if (view.liveBytes > 0 && view.unattributedBytes / view.liveBytes >= UNATTRIBUTED_SHARE) {
    out.push({
      code: 'unattributed-large',
      params: {
        bytes: view.unattributedBytes,
        share: view.unattributedBytes / view.liveBytes,
        beforeRecordingBytes: view.beforeRecordingBytes,
      },
    });
  }
  if (report.pendingFreeBytes >= PENDING_FREE_MIN_BYTES) {
    out.push({ code: 'pending-free', params: { bytes: report.pendingFreeBytes } });
  }
  return out;
}

/** Analyses a snapshot already read. */
export function analyse(snapshot: Snapshot, options: AnalyseOptions = {}): SnapshotReport {
  const top = options.top ?? DEFAULT_TOP;
  const buckets = options.buckets ?? DEFAULT_BUCKETS;
  const facts = factsOf(snapshot);
  const { facts: stackInfo, sites } = stackFacts(snapshot.stacks);
  const noSite = noStackSite(sites);
  const tally = () => new LiveTally(stackInfo, sites, noSite);
  const hasTrace = snapshot.traces.some((t) => t.length > 0);

  const end = tally();
  for (const seg of snapshot.segments) {
    for (const bl of seg.blocks) {
      if (bl.state !== 'active_allocated') continue;
      end.add({ size: bl.size, stack: bl.stack, freedBy: -1, beforeRecording: hasTrace && bl.stack < 0 });
    }
  }
  const peaks: TracePeak[] = [];
  const ooms: TraceOom[] = [];
  const timelines: Timeline[] = [];
  const tracePeakActiveBytes = snapshot.traces.map((trace) => {
    if (trace.length === 0) return null;
    const r = replayTrace(snapshot, trace, tally, top, buckets);
    peaks.push(r.peak);
    ooms.push(...r.ooms);
    timelines.push(r.timeline);
    return r.peak.activeBytes;
  });
  const report = {
    ...facts,
    tracePeakActiveBytes,
    end: end.view(top),
    peaks,
    ooms,
    timelines,
    allocatorSettings: snapshot.allocatorSettings,
    stacks: snapshot.stacks.count,
    frames: snapshot.stacks.frames.length,
  };
  return { ...report, findings: findingsOf(report) };
}

/**
 * Reads and analyses the bytes of a snapshot pickle (torch.cuda.memory._dump_snapshot's file).
 * Throws a HeadroomUserError naming the file, the opcode and the byte offset when they are not one.
 * @example analyseSnapshot(bytes, { source: 'snapshot.pickle' }).tracePeakActiveBytes
 */
export function analyseSnapshot(bytes: Uint8Array, options: AnalyseOptions = {}): SnapshotReport {
  return analyse(readSnapshot(bytes, options.source), options);
}
