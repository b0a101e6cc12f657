/**
 * The grammar of PyTorch's caching-allocator messages, every historical layout
 * (c10/cuda/CUDACachingAllocator.cpp `malloc()`; data/docs/MONITORING.md §A7):
 *
 *   message  := [class ":"] backend " out of memory." request [v1-list | v2-sentences]
 *             | "Allocation on device" N "would exceed allowed memory." async-table   (cudaMallocAsync)
 *             | "MPS backend out of memory (" mps-list ")." request
 *   request  := "Tried to allocate" (SIZE | "more than 1EB memory")
 *   v1-list  := "(GPU" N ";" item (";" item)* ")"                         (≤ 2.0)
 *   item     := SIZE ("total capacity" | "already allocated" | "free" | "allowed"
 *                    | "reserved in total by PyTorch" | "cached")
 *   v2-sentences := ". GPU" N "has a total capac(i)ty of" SIZE "of which" SIZE "is free."
 *                   ("Including non-PyTorch memory, this process has" SIZE "memory in use." |
 *                    "Process" PID "has" SIZE "memory in use.")*  [SIZE "allowed;"]
 *                   "Of the allocated memory" SIZE "is allocated by PyTorch,"
 *                   ["with" SIZE "allocated in private pools (e.g., CUDA Graphs),"]
 *                   "and" SIZE "is reserved by PyTorch but unallocated."
 *
 * Every part after the opening words is optional, so a truncated message keeps what it printed and
 * a cut-off number or unit yields null. Words may be separated by any whitespace (hard-wrapped mail).
 */
import { MPS_SIZE, SIZE, sizeBytes } from './byte-size.js';
import { type GrammarHit, quoteOf } from './grammar-hit.js';
import {
  emptyOom,
  type OomBackend,
  type OomFamily,
  type OomLayout,
  type OomMessage,
  type OomProcess,
} from './oom-message.js';

/** How far a message can reach past its first words (the longest 2.x layout is ~700 characters). */
const MAX_MESSAGE_CHARS = 3000;

type AnchorKind = 'class' | 'head' | 'request' | 'v2';
// Order in which a message's parts appear; a part that cannot follow the previous one starts a new message.
const KIND_ORDER: Readonly<Record<AnchorKind, number>> = { class: 0, head: 1, request: 2, v2: 3 };

interface Anchor {
  readonly at: number;
  readonly kind: AnchorKind;
  readonly text: string;
  readonly backend: OomBackend | null;
}

const ANCHORS: readonly {
  kind: AnchorKind;
  pattern: RegExp;
  backend?: (m: RegExpExecArray) => OomBackend;
}[] = [
  // The exception's class on its own (bare class names count: "torch.cuda.OutOfMemoryError").
  { kind: 'class', pattern: /(?<![\w.])(?:torch\.(?:cuda\.)?)?OutOfMemoryError\b(?=[ \t]*(?::|$))/gm },
  {
    kind: 'head',
    pattern: /\b(CUDA|HIP|XPU|MLU|NPU)\s+out\s+of\s+memory\b/g,
    backend: (m) => backendOf(m[1]!),
  },
  {
    kind: 'head',
    pattern: /\bAllocation\s+on\s+device\s+\d+\s+would\s+exceed\s+allowed\s+memory/g,
    backend: () => 'cuda',
  },
  { kind: 'head', pattern: /\bMPS\s+backend\s+out\s+of\s+memory\b/g, backend: () => 'mps' },
  { kind: 'request', pattern: /\bTried\s+to\s+allocate\s/g },
  { kind: 'v2', pattern: /\b(?:GPU|NPU|XPU|MLU)\s+\d+\s+has\s+a\s+total\s+capac/g },
];

function backendOf(word: string): OomBackend {
  switch (word) {
    case 'CUDA':
      return 'cuda';
    case 'HIP':
      return 'hip';
    case 'XPU':
      return 'xpu';
    default:
      return 'other';
  }
}

function anchorsIn(text: string): Anchor[] {
  const out: Anchor[] = [];
  for (const { kind, pattern, backend } of ANCHORS) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      out.push({ at: m.index, kind, text: m[0], backend: backend ? backend(m) : null });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/** Groups anchors into messages: a part that cannot follow the parts already seen starts a new one. */
function messages(anchors: readonly Anchor[]): Anchor[][] {
  const groups: Anchor[][] = [];
  let current: Anchor[] = [];
  let lastOrder = -1;
  for (const a of anchors) {
    const order = KIND_ORDER[a.kind];
    const first = current[0];
    if (first === undefined || order <= lastOrder || a.at - first.at > MAX_MESSAGE_CHARS) {
      if (current.length > 0) groups.push(current);
      current = [a];
    } else {
      current.push(a);
    }
    lastOrder = order;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

const re = (source: string, flags = '') => new RegExp(source, flags);
const REQUEST = re(String.raw`Tried\s+to\s+allocate\s+(?:${SIZE}|(more\s+than\s+1\s*EB\s+memory))`);
const REQUEST_V2_STOP = re(String.raw`Tried\s+to\s+allocate\s+${SIZE}\s*\.`);
// Ascend's torch_npu prints "(NPU 0; …)" in the same layout, with extra items ("current active") we skip.
const V1_LIST = re(
  String.raw`Tried\s+to\s+allocate\s+${SIZE}\s*\(\s*(?:GPU|NPU|XPU|MLU)\s+(\d+)\s*;([^)]*)(\))?`,
);
const V1_ITEM = re(
  String.raw`^${SIZE}\s+(total\s+capacity|already\s+allocated|free|allowed|reserved\s+in\s+total\s+by\s+PyTorch|cached)$`,
);
const V2_TOTAL = re(String.raw`(?:GPU|NPU|XPU|MLU)\s+(\d+)\s+has\s+a\s+total\s+capac(?:i)?ty\s+of\s+${SIZE}`);
const V2_FREE = re(String.raw`of\s+which\s+${SIZE}\s+is\s+free`);
const V2_SELF = re(String.raw`this\s+process\s+has\s+${SIZE}\s+memory\s+in\s+use`);
const V2_PROCESS = re(String.raw`Process\s+(\d+)\s+has\s+${SIZE}\s+memory\s+in\s+use`, 'g');
const V2_ALLOWED = re(String.raw`${SIZE}\s+allowed\s*;`);
const V2_ALLOCATED = re(String.raw`Of\s+the\s+allocated\s+memory\s+${SIZE}\s+is\s+allocated\s+by\s+PyTorch`);
const V2_PRIVATE = re(String.raw`with\s+${SIZE}\s+allocated\s+in\s+private\s+pools`);
const V2_RESERVED = re(String.raw`and\s+${SIZE}\s+is\s+reserved\s+by\s+PyTorch\s+but\s+unallocated`);
// cudaMallocAsync backend (c10/cuda/CUDAMallocAsyncAllocator.cpp): a table of "label : SIZE" lines.
const ASYNC_DEVICE = /Allocation\s+on\s+device\s+(\d+)\s+would\s+exceed\s+allowed\s+memory/;
const ASYNC_ALLOCATED = re(String.raw`Currently\s+allocated\s*:\s*${SIZE}`);
const ASYNC_REQUESTED = re(String.raw`Requested\s*:\s*${SIZE}`);
const ASYNC_LIMIT = re(String.raw`Device\s+limit\s*:\s*${SIZE}`);
const ASYNC_FREE = re(String.raw`Free\s*\(according\s+to\s+CUDA\)\s*:\s*${SIZE}`);
const ASYNC_ALLOWED = re(
  String.raw`PyTorch\s+limit\s*\(set\s+by\s+user-supplied\s+memory\s+fraction\)\s*:\s*${SIZE}`,
);
// MPS (aten/src/ATen/mps/MPSAllocator.mm): sizes in KB/MB/GB computed with 1024.
const MPS_ALLOCATED = re(String.raw`MPS\s+allocated:\s*${MPS_SIZE}`);
const MPS_ALLOWED = re(String.raw`max\s+allowed:\s*${MPS_SIZE}`);
const MPS_REQUEST = re(String.raw`Tried\s+to\s+allocate\s+${MPS_SIZE}`);
/** A "no limit" sentinel in the async table is printed as ~1.7e10 GiB; anything past 1 EiB is no limit. */
const NO_LIMIT_BYTES = 2 ** 60;

function size(m: RegExpExecArray | null, numberGroup = 1, mps = false): number | null {
  if (!m || m[numberGroup] === undefined) return null;
  return sizeBytes(m[numberGroup]!, m[numberGroup + 1]!, mps);
}

type Fields = { -readonly [K in keyof OomMessage]: OomMessage[K] };

function parseMessage(body: string, before: string, group: readonly Anchor[]): GrammarHit | null {
  const kinds = new Set(group.map((a) => a.kind));
  const head = group.find((a) => a.kind === 'head');
  const classAnchor = group.find((a) => a.kind === 'class');
  const fields: Fields = emptyOom('torch-v2');
  let layout: 'v1' | 'v2' | null = null;
  let v1Cached = false;
  let unbounded = false;
  const isAsync = head !== undefined && /^Allocation/.test(head.text);
  const isMps = head?.backend === 'mps';
  // End of the last part recognised: the quote stops there, not in whatever the log printed next.
  let end = 0;
  const track = (m: RegExpExecArray | null): RegExpExecArray | null => {
    if (m) end = Math.max(end, m.index + m[0].length);
    return m;
  };
  const sized = (m: RegExpExecArray | null, mps = false): number | null => size(track(m), 1, mps);

  if (isAsync) {
    layout = 'v2';
    fields.gpuIndex = Number(track(ASYNC_DEVICE.exec(body))?.[1] ?? Number.NaN);
    fields.allocatedByTorchBytes = sized(ASYNC_ALLOCATED.exec(body));
    fields.requestedBytes = sized(ASYNC_REQUESTED.exec(body));
    fields.totalBytes = sized(ASYNC_LIMIT.exec(body));
    fields.freeBytes = sized(ASYNC_FREE.exec(body));
    const allowed = sized(ASYNC_ALLOWED.exec(body));
    if (allowed !== null && allowed < NO_LIMIT_BYTES) fields.allowedBytes = allowed;
  } else if (isMps) {
    layout = 'v2';
    fields.allocatedByTorchBytes = sized(MPS_ALLOCATED.exec(body), true);
    const allowed = sized(MPS_ALLOWED.exec(body), true);
    if (allowed !== null) fields.allowedBytes = allowed;
    fields.requestedBytes = sized(MPS_REQUEST.exec(body), true);
  } else {
    const request = track(REQUEST.exec(body));
    if (request) {
      unbounded = request[3] !== undefined;
      fields.requestedBytes = unbounded ? null : sizeBytes(request[1]!, request[2]!);
    }
    const v1 = V1_LIST.exec(body);
    if (v1) {
      layout = 'v1';
      fields.gpuIndex = Number(v1[3]);
      track(v1);
      for (const raw of v1[4]!.split(';')) {
        // Anchored at both ends: an item cut mid-number or mid-label does not match.
        const m = V1_ITEM.exec(raw.trim().replace(/\s+/g, ' '));
        if (!m) continue;
        const bytes = sizeBytes(m[1]!, m[2]!);
        const label = m[3]!.replace(/\s+/g, ' ');
        if (label === 'total capacity') fields.totalBytes = bytes;
        else if (label === 'already allocated') fields.allocatedByTorchBytes = bytes;
        else if (label === 'free') fields.freeBytes = bytes;
        else if (label === 'allowed' && bytes !== null) fields.allowedBytes = bytes;
        else {
          fields.reservedTotalBytes = bytes; // "reserved in total by PyTorch", or ≤1.4 "cached"
          v1Cached = label === 'cached';
        }
      }
    }
    const total = V2_TOTAL.exec(body);
    const allocated = V2_ALLOCATED.exec(body);
    if (!v1 && (total || allocated || kinds.has('v2'))) layout = 'v2';
    if (layout === 'v2') {
      if (total) {
        track(total);
        fields.gpuIndex = Number(total[1]);
        fields.totalBytes = sizeBytes(total[2]!, total[3]!);
      }
      fields.freeBytes = sized(V2_FREE.exec(body));
      const self = sized(V2_SELF.exec(body));
      if (self !== null) fields.thisProcessInUseBytes = self;
      const processes: OomProcess[] = [];
      V2_PROCESS.lastIndex = 0;
      for (let m = V2_PROCESS.exec(body); m !== null; m = V2_PROCESS.exec(body)) {
        track(m);
        const bytes = sizeBytes(m[2]!, m[3]!);
        if (bytes !== null) processes.push({ pid: Number(m[1]), bytes });
      }
      if (processes.length > 0) fields.processes = processes;
      const allowed = sized(V2_ALLOWED.exec(body));
      if (allowed !== null) fields.allowedBytes = allowed;
      fields.allocatedByTorchBytes = size(track(allocated));
      const pools = sized(V2_PRIVATE.exec(body));
      if (pools !== null) fields.privatePoolsBytes = pools;
      fields.reservedUnallocatedBytes = sized(V2_RESERVED.exec(body));
    }
    if (layout === null && REQUEST_V2_STOP.test(body)) layout = 'v2'; // "Tried to allocate X." ends a 2.x request
  }

  // A message needs more than the words "CUDA out of memory" in a sentence: the exception's class, an
  // "Error:" in front, the request, or the allocator's figures.
  const classWord = /(OutOfMemoryError|RuntimeError|AcceleratorError|Error)\s*:\s*$/.exec(before);
  const hasFigures = layout !== null || fields.requestedBytes !== null || unbounded;
  if (!hasFigures && !classAnchor && !(head && classWord) && !isAsync && !isMps) return null;
  if (!head && !classAnchor && !isAsync && layout === null) return null; // a bare "Tried to allocate 3 MiB" in prose

  let family: OomFamily;
  if (layout === 'v1') family = 'torch-v1';
  else if (layout === 'v2') family = 'torch-v2';
  else {
    // Nothing of the layout survived: the exception class tells the era. RuntimeError predates 1.13's
    // torch.cuda.OutOfMemoryError; the 2.x classes are the common case.
    family = classWord?.[1] === 'RuntimeError' && !classAnchor ? 'torch-v1' : 'torch-v2';
  }
  fields.family = family;
  if (fields.gpuIndex !== null && !Number.isFinite(fields.gpuIndex)) fields.gpuIndex = null;
  const headEnd = group.reduce((max, a) => Math.max(max, a.at - group[0]!.at + a.text.length), 0);
  let quoteEnd = Math.max(end, headEnd);
  if (body[quoteEnd] === '.') quoteEnd += 1;
  const signature = head ? head.text.replace(/\s+/g, ' ') : (classAnchor?.text ?? 'Tried to allocate');
  const printedLayout: OomLayout =
    layout === 'v1' ? (v1Cached ? 'v1-cached' : 'v1-reserved') : isAsync ? 'async' : isMps ? 'mps' : layout;
  return {
    start: 0,
    oom: fields,
    backend: head?.backend ?? null,
    layout: printedLayout,
    requestUnbounded: unbounded,
    signature,
    quote: quoteOf(body.slice(0, quoteEnd)),
  };
}

/** Every PyTorch allocator message in `text`, in order. */
export function findTorchAllocatorMessages(text: string): GrammarHit[] {
  const groups = messages(anchorsIn(text));
  const hits: GrammarHit[] = [];
  groups.forEach((group, i) => {
    const start = group[0]!.at;
    const next = groups[i + 1]?.[0]?.at ?? text.length;
    const body = text.slice(start, Math.min(next, start + MAX_MESSAGE_CHARS));
    // The class name or "Error:" in front of the message, on its line (80 characters are plenty).
    const near = text.slice(Math.max(0, start - 80), start);
    const hit = parseMessage(body, near.slice(near.lastIndexOf('\n') + 1), group);
    if (hit) hits.push({ ...hit, start });
  });
  // A bare class name next to a full message is the same failure printed twice (traceback + summary).
  const informative = hits.filter((h) => h.oom.requestedBytes !== null || h.oom.totalBytes !== null);
  return informative.length > 0
    ? hits.filter((h) => informative.includes(h) || h.requestUnbounded || !isBare(h))
    : hits;
}

function isBare(hit: GrammarHit): boolean {
  const o = hit.oom;
  return (
    o.requestedBytes === null &&
    o.totalBytes === null &&
    o.freeBytes === null &&
    o.allocatedByTorchBytes === null &&
    o.gpuIndex === null
  );
}
