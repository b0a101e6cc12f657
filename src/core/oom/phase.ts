/**
 * When in a run the memory ran out, in data/validation/oom_corpus.jsonl's `expectedPhase` vocabulary,
 * read from (in this order of trust):
 *   1. the family (a host-memory kill),
 *   2. traceback frames and code (`backward`, `optimizer.step`, `evaluation_loop`, `save_pretrained`,
 *      `from_pretrained`, ZeRO-3 `fetch_sub_module`, FSDP hooks …; data/docs/MONITORING.md rule 3),
 *   3. the processes the allocator listed (rank contexts on the card, another job),
 *   4. the log around the failure (progress bars, "Loading checkpoint shards", a training step counter,
 *      a serving engine, words like "during validation"): the last such line before the message wins,
 *   5. the allocator's own figures (see NUMBER_RULES),
 * and `unknown` when none of these says anything.
 */
import { GIB, MIB } from '../units.js';
import { quoteOf } from './grammar-hit.js';
import { type LogLine, normalizeLog } from './log-lines.js';
import { cachedFreeBytes, type OomMatch } from './oom-message.js';
import { type LogEntry, readTraceback } from './traceback.js';

export type OomPhase =
  | 'load'
  | 'forward'
  | 'backward'
  | 'optimizer-step'
  | 'evaluation'
  | 'checkpoint-save'
  | 'mid-run'
  | 'multi-gpu-imbalance'
  | 'other-process'
  | 'host-memory'
  | 'unknown';

/** What the phase was read from (`steps`: a recorded run's step timeline, see diagnose/diagnose.ts). */
export type PhaseBasis = 'message' | 'traceback' | 'processes' | 'log' | 'numbers' | 'steps' | 'none';

/** Why the allocator's figures point at a phase (basis `numbers`) or the process list does (`processes`). */
export type PhaseReason =
  | 'fragmented-cache'
  | 'single-huge-request'
  | 'nothing-cached'
  | 'card-full'
  | 'rank-contexts'
  | 'foreign-process'
  | 'one-rank-failed'
  | 'steps-before-failure';

export interface PhaseReading {
  readonly phase: OomPhase;
  readonly basis: PhaseBasis;
  /** The line that says so, when a line does. */
  readonly quote: string | null;
  readonly line: number | null;
  readonly reason: PhaseReason | null;
}

type Traced = Exclude<
  OomPhase,
  'mid-run' | 'multi-gpu-imbalance' | 'other-process' | 'host-memory' | 'unknown'
>;

interface Sign {
  /** Function names of frames (exact). */
  readonly frames?: readonly string[];
  /** A frame's file path. */
  readonly files?: RegExp;
  /** A frame's name when its file also matches `framesInFiles`. */
  readonly framesInFiles?: { readonly names: readonly string[]; readonly file: RegExp };
  /** Source code in a traceback (or anywhere: these calls are specific). */
  readonly code?: RegExp;
}

/** Traceback signatures per phase; the first phase in this list that any frame matches wins. */
const TRACEBACK_SIGNS: readonly (readonly [Traced, Sign])[] = [
  [
    'checkpoint-save',
    {
      frames: [
        'save_pretrained',
        'save_model',
        '_save',
        '_save_checkpoint',
        'save_checkpoint',
        'save_state',
        '_save_optimizer_and_scheduler',
        'save_16bit_model',
        '_save_zero_checkpoint',
        'save_model_and_optimizer_sharded',
        'save_model_checkpoint',
        'save_fsdp_model',
        'save_fsdp_optimizer',
        'state_dict',
        'full_state_dict',
        'consolidate_state_dict',
        '_full_post_state_dict_hook',
        'full_optim_state_dict',
      ],
      code: /\b(?:torch\.save|save_pretrained|save_checkpoint|save_model|save_state|full_optim_state_dict)\s*\(|(?<![\w.]load_)(?<!_load)\bstate_dict\s*\(|\bFailed\s+to\s+clone\(\)\s+tensor/,
    },
  ],
  [
    'evaluation',
    {
      frames: [
        'evaluate',
        '_evaluate',
        'evaluation_loop',
        'prediction_loop',
        'prediction_step',
        'predict',
        'validate',
        'validation_step',
        'validation_epoch_end',
        'test_step',
        'eval_step',
        '_run_eval',
        'run_evaluation',
        'eval_loop',
        'validation_loop',
        'nested_concat',
        '_nested_gather',
        'generate',
      ],
      code: /(?:\b|\.)(?:evaluate|validate|predict|evaluation_loop|prediction_step|generate)\s*\(/,
    },
  ],
  [
    'load',
    {
      frames: [
        'from_pretrained',
        '_load_pretrained_model',
        '_load_state_dict_into_meta_model',
        'load_state_dict',
        '_load_from_state_dict',
        '_move_model_to_device',
        'load_checkpoint_and_dispatch',
        'load_checkpoint_in_model',
        'dispatch_model',
        'set_module_tensor_to_device',
        'load_model',
        'load_checkpoint',
        '_load_checkpoint',
        '_apply', // nn.Module.to() / .cuda() / .half() moving every parameter
      ],
      code: /\.from_pretrained\s*\(|\b(?:_move_model_to_device|dispatch_model|load_checkpoint_and_dispatch)\s*\(|\bload_state_dict\s*\(|\btorch\.load\s*\(|\b(?:model|module|net|pipe|pipeline|unet|vae|encoder|decoder|llm|teacher|student|ref_model|reward_model)\w*\.(?:to|cuda|half|bfloat16)\s*\(|\b(?:accelerator\.prepare|deepspeed\.initialize)\s*\(/i,
    },
  ],
  [
    'optimizer-step',
    {
      frames: [
        '_multi_tensor_adam',
        '_multi_tensor_adamw',
        '_single_tensor_adam',
        '_single_tensor_adamw',
        '_fused_adam',
        '_fused_adamw',
        '_multi_tensor_sgd',
        '_single_tensor_sgd',
        '_init_group',
        'optimizer_step',
        '_optimizer_step',
        'optimizer_update_8bit',
        'optimizer_update_32bit',
      ],
      framesInFiles: { names: ['step', 'adam', 'adamw', 'wrapper'], file: /optim|optimizer|zero\/stage/ },
      code: /\b(?:optimizer|optim|opt|scaler|self\.optimizer)\.step\s*\(|\bexp_avg(?:_sq)?\b|\b_foreach_(?:sqrt|addcdiv|addcmul|lerp)\b|\boptimizer_step\s*\(/,
    },
  ],
  [
    'backward',
    {
      frames: [
        'backward',
        '_engine_run_backward',
        'run_backward',
        '_post_backward_hook',
        '_pre_backward_hook',
        'recompute_fn',
        'unpack_hook',
      ],
      files: /torch\/autograd\//,
      code: /\.backward\s*\(|\bbackward\s*\(\s*loss\b|fetch_sub_module\([^)\n]*forward\s*=\s*False|\bautograd\.grad\s*\(/,
    },
  ],
  [
    'forward',
    {
      frames: [
        'forward',
        '_forward',
        '_call_impl',
        '_wrapped_call_impl',
        'pre_sub_module_forward_function',
        '_pre_forward',
      ],
      // ZeRO-3 gathers parameters right before each module runs (deepspeed partitioned_param_coordinator).
      code: /fetch_sub_module\s*\(|\b_?all_gather\w*\s*\(|\bpartitioned_param_coordinator\b/,
    },
  ],
];

function matchSign(entry: LogEntry, sign: Sign): boolean {
  if (entry.frame) {
    if (sign.frames?.includes(entry.frame.name)) return true;
    if (sign.files?.test(entry.frame.file)) return true;
    const inFiles = sign.framesInFiles;
    if (inFiles?.names.includes(entry.frame.name) && inFiles.file.test(entry.frame.file)) return true;
    return false;
  }
  return sign.code?.test(entry.text) ?? false;
}

/** The phase that traceback frames and code point at, by the precedence of TRACEBACK_SIGNS. */
function fromTraceback(entries: readonly LogEntry[]): { phase: Traced; entry: LogEntry } | null {
  for (const [phase, sign] of TRACEBACK_SIGNS) {
    const entry = entries.find((e) => matchSign(e, sign));
    if (entry) return { phase, entry };
  }
  return null;
}

type Marked = Exclude<OomPhase, 'host-memory' | 'unknown'>;

/** Log lines that place the failure: progress bars, loaders, step counters, engines, descriptions. */
const LOG_MARKERS: readonly (readonly [Marked, RegExp])[] = [
  [
    'multi-gpu-imbalance',
    /\b(?:additional|several|extra|many|\d+)\s+(?:additional\s+)?processes\s+on\s+(?:the\s+)?gpu\s*:?\s*0\b|\bother\s+(?:GPUs|ranks)\s+(?:are|were)\s+(?:free|empty|idle|fine)|\brank\s*=?\s*0\b[^\n]*\b(?:only|others?)\b|\bonly\s+(?:on\s+)?(?:rank|gpu)\s*:?\s*0\b/i,
  ],
  [
    'other-process',
    /\b(?:another|other)\s+(?:process|job|user|program|container)s?\b|\btwo\s+jobs\b|\boverlap\s+in\s+using\s+GPUs?\b|\b(?:leftover|zombie|ghost|orphan(?:ed)?|stale|stopped)\s+process|\bstill\s+occup(?:y|ied|ying)\b|\bno\s+such\s+process\b|\bfuser\b|\bkill\s+-9\b|^\|\s+\d+\s+(?:N\/A\s+N\/A\s+)?\d+\s+C(?:\+G)?\s+.*\d+MiB\s*\|$/im,
  ],
  [
    'checkpoint-save',
    /\b(?:while|when|during|after)\s+sav(?:e|ing)\b|\bsaving\s+(?:the\s+)?(?:model|checkpoint|weights|state)/i,
  ],
  [
    'evaluation',
    /^\s*(?:Valid(?:ation|ating)?|Eval(?:uat(?:ing|ion))?|Test(?:ing)?|Predict(?:ing|ion)?)\b[^\n]*(?:\d+\s*\/\s*\d+|\d+%)|\*{3,}\s*Running\s+(?:Evaluation|Prediction)|\bValidation\s+DataLoader\b|\b(?:during|while|in|at|after)\s+(?:the\s+)?(?:validation|evaluation|eval|testing|prediction)\b|\b(?:performing|running|doing)\s+(?:the\s+)?(?:validation|evaluation)\b/i,
  ],
  [
    'load',
    /\bLoading\s+checkpoint\s+shards\b|^\s*Loading\s+(?:the\s+)?(?:model|weights|checkpoint|safetensors)\b|\b(?:while|when|during)\s+loading\s+(?:the\s+)?(?:model|checkpoint|weights|shards)\b/i,
  ],
  ['optimizer-step', /\b(?:at|during|in)\s+(?:the\s+)?(?:first\s+)?optimizer\s+step\b/i],
  [
    'forward',
    /\[(?:engine|llm_engine|model_runner|gpu_model_runner|scheduler)\.py:\d+\]|\b(?:during|while|in)\s+(?:the\s+)?inference\b/i,
  ],
];

/** Training progress with a step or epoch number; group 1 or 2 is the number. */
const TRAINING_PROGRESS =
  /\b(?:global_step|step|iter(?:ation)?|it)\s*[=:]?\s*(\d+)\b[^\n]*(?:loss|\blr)\b|\bepoch\s*[=:]?\s*(\d+)\b[^\n]*loss\b|\{'loss':\s*[\d.]+[^}]*'epoch':\s*([\d.]+)/i;
const TQDM_STEP = /\b(\d+)\s*\/\s*\d+\s*\[\d+:\d+/;
const MID_RUN_PROSE =
  /\bafter\s+(?:\d+|several|many|a\s+few|some)\s+(?:steps|iterations|iters|epochs|hours|batches)\b|\bhours\s+(?:in|into)\b|\bmid[- ]run\b|\bmiddle\s+of\s+(?:the\s+)?training\b/i;

function markerOf(text: string): Marked | null {
  for (const [phase, pattern] of LOG_MARKERS) if (pattern.test(text)) return phase;
  const progress = TRAINING_PROGRESS.exec(text);
  // A logged loss dict (HF Trainer) means logging_steps steps have run, whatever the epoch.
  if (progress && (progress[3] !== undefined || Number(progress[1] ?? progress[2]) >= 2)) return 'mid-run';
  const bar = TQDM_STEP.exec(text);
  if (bar && Number(bar[1]) >= 2 && /\btrain|\bstep|\bepoch|it\/s|s\/it/i.test(text)) return 'mid-run';
  if (MID_RUN_PROSE.test(text)) return 'mid-run';
  return null;
}

/** Longest line quoted as the phase's evidence. */
const MAX_PHASE_QUOTE_CHARS = 240;
const quoteLine = (text: string) => quoteOf(text, MAX_PHASE_QUOTE_CHARS);

/** Characters of a line the log markers look at (bounds the work on pathological lines). */
const MAX_MARKER_LINE_CHARS = 2000;

/** The last log line before (or on) the failure that places it. */
function fromLog(lines: readonly LogLine[], uptoLine: number): { phase: Marked; line: number } | null {
  for (let i = Math.min(uptoLine, lines.length - 1); i >= 0; i--) {
    const phase = markerOf(lines[i]!.text.slice(0, MAX_MARKER_LINE_CHARS));
    if (phase) return { phase, line: i };
  }
  return null;
}

/** A process NVML lists at under this size is another rank's CUDA context, not a job of its own. */
export const RANK_CONTEXT_MAX_BYTES = 1.5 * GIB;

/** The other processes on the card, leaving out the one that is this process seen from a container. */
export function foreignProcesses(match: OomMatch): readonly { pid: number; bytes: number }[] {
  const list = match.oom.processes ?? [];
  if (match.oom.thisProcessInUseBytes !== undefined) return list;
  // No "this process" line: NVML printed our own PID as a host PID (PID namespace). It is the one whose
  // size covers what PyTorch reserved; the rest are others.
  if (list.length <= 1) return [];
  const own = [...list].sort((a, b) => b.bytes - a.bytes)[0]!;
  return list.filter((p) => p !== own);
}

/** From the processes the allocator listed, or from one rank failing among several. */
function fromProcesses(
  match: OomMatch | null,
  all: readonly OomMatch[],
  lines: readonly LogLine[],
): { phase: Marked; reason: PhaseReason } | null {
  if (match) {
    const others = foreignProcesses(match);
    if (others.length > 0)
      return others.every((p) => p.bytes <= RANK_CONTEXT_MAX_BYTES)
        ? { phase: 'multi-gpu-imbalance', reason: 'rank-contexts' }
        : { phase: 'other-process', reason: 'foreign-process' };
  }
  const ranks = new Set(lines.map((l) => l.rank).filter((r) => r !== null));
  const failed = new Set(all.filter((m) => m.rank !== null).map((m) => m.rank));
  if (ranks.size >= 2 && failed.size === 1)
    return { phase: 'multi-gpu-imbalance', reason: 'one-rank-failed' };
  return null;
}

/** A request at least this share of the card, bigger than what is free, is one giant tensor. */
export const HUGE_REQUEST_SHARE = 0.25;
/** PyTorch tensors filling at least this share of the card mean the step's peak was reached. */
export const FULL_CARD_SHARE = 0.8;
/** Cached-but-unusable memory this many times the request, and at least FRAGMENTED_MIN_BYTES. */
export const FRAGMENTED_REQUEST_MULTIPLE = 4;
export const FRAGMENTED_MIN_BYTES = GIB;
/** The allocator's smallest segment (small pool, 2 MiB: c10/cuda/CUDACachingAllocator.cpp kSmallBuffer). */
export const SMALL_SEGMENT_BYTES = 2 * MIB;

/**
 * The allocator's figures, when nothing else places the failure (our reading, each tied to
 * data/docs/MONITORING.md's rules; thresholds are ours):
 * - cache ≥ 4× the request and ≥ 1 GiB held but unusable → fragmentation, which builds over many steps → mid-run;
 * - one request ≥ 25 % of the card and more than is free → one giant activation → forward;
 * - less than one 2 MiB segment cached (2.x prints it exactly) → nothing has been freed yet → load;
 * - PyTorch tensors ≥ 80 % of the card → the step's peak, saved activations plus the loss's gradients at
 *   the start of backward (docs/memory-model.md §6) → backward.
 */
function fromNumbers(match: OomMatch | null): { phase: Traced | 'mid-run'; reason: PhaseReason } | null {
  if (!match || (match.oom.family !== 'torch-v1' && match.oom.family !== 'torch-v2')) return null;
  const o = match.oom;
  const cache = cachedFreeBytes(match);
  const A = o.requestedBytes;
  const T = o.totalBytes;
  if (
    A !== null &&
    cache !== null &&
    cache >= FRAGMENTED_MIN_BYTES &&
    cache >= FRAGMENTED_REQUEST_MULTIPLE * A
  )
    return { phase: 'mid-run', reason: 'fragmented-cache' };
  if (A !== null && T !== null && A >= HUGE_REQUEST_SHARE * T && (o.freeBytes === null || A > o.freeBytes))
    return { phase: 'forward', reason: 'single-huge-request' };
  if (
    o.reservedUnallocatedBytes !== null &&
    o.reservedUnallocatedBytes < SMALL_SEGMENT_BYTES &&
    (o.allocatedByTorchBytes ?? 0) > 0
  )
    return { phase: 'load', reason: 'nothing-cached' };
  const P = o.allocatedByTorchBytes;
  if (P !== null && T !== null && P >= FULL_CARD_SHARE * T && P <= T)
    return { phase: 'backward', reason: 'card-full' };
  return null;
}

/**
 * Reads the phase of an out-of-memory failure from a log or traceback, given the message found in it
 * (findPrimaryOom) and every message (findOomMessages) when known.
 * @example detectPhase(log, findPrimaryOom(log)).phase // 'optimizer-step'
 */
export function detectPhase(
  text: string,
  match: OomMatch | null = null,
  all: readonly OomMatch[] = match ? [match] : [],
): PhaseReading {
  if (match?.oom.family === 'host-oom')
    return { phase: 'host-memory', basis: 'message', quote: match.quote, line: match.line, reason: null };
  const lines = normalizeLog(text);
  const entries = readTraceback(lines);
  const traced = fromTraceback(entries);
  const failureLine = match?.line ?? lines.length - 1;
  const logged = fromLog(lines, failureLine);
  if (traced) {
    // Many steps ran before a forward or backward failure: that a step which used to fit no longer does is the news.
    if ((traced.phase === 'forward' || traced.phase === 'backward') && logged?.phase === 'mid-run')
      return {
        phase: 'mid-run',
        basis: 'log',
        quote: quoteLine(lines[logged.line]!.text),
        line: logged.line,
        reason: null,
      };
    return {
      phase: traced.phase,
      basis: traced.entry.frame || traced.entry.isCode ? 'traceback' : 'log',
      quote: quoteLine(traced.entry.text),
      line: traced.entry.line,
      reason: null,
    };
  }
  const processes = fromProcesses(match, all, lines);
  if (processes)
    return { phase: processes.phase, basis: 'processes', quote: null, line: null, reason: processes.reason };
  if (logged)
    return {
      phase: logged.phase,
      basis: 'log',
      quote: quoteLine(lines[logged.line]!.text),
      line: logged.line,
      reason: null,
    };
  const numbers = fromNumbers(match);
  if (numbers)
    return { phase: numbers.phase, basis: 'numbers', quote: null, line: null, reason: numbers.reason };
  return { phase: 'unknown', basis: 'none', quote: null, line: null, reason: null };
}
