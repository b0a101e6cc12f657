/**
 * When in a run the memory ran out, in data/validation/oom_corpus.jsonl's `expectedPhase` vocabulary,
 * read from evidence any report carries, in this order of trust:
 *   1. the family: a host-memory kill is host memory;
 *   2. the allocator's processes, when others fill the card: the step that failed is incidental
 *      (phase-bytes.ts cardHeldByOthers);
 *   3. traceback frames and code (phase-frames.ts); a forward or backward frame inside an evaluation,
 *      a save or a run that had logged many steps takes that context (phase-log.ts logContext, or an
 *      evaluation script);
 *   4. used memory far beyond what PyTorch holds when no process is listed, and other ranks' CUDA
 *      contexts among the allocator's processes (phase-bytes.ts memoryOutsideTorch, rankContexts);
 *   5. nvidia-smi rows beside the report (phase-smi.ts);
 *   6. the log and the words around the failure (phase-log.ts); "mid-run" yields to one rank failing
 *      alone among ranks that went on;
 *   7. one rank failing alone;
 *   8. PyTorch's own figures (phase-bytes.ts phaseFromFigures);
 * and `unknown` when none says anything. Every reading carries the reason its rule states.
 */
import { quoteOf } from './grammar-hit.js';
import { type LogLine, normalizeLog } from './log-lines.js';
import type { OomMatch } from './oom-message.js';
import {
  type CardReason,
  cardHeldByOthers,
  type FigureReason,
  memoryOutsideTorch,
  phaseFromFigures,
  rankContexts,
} from './phase-bytes.js';
import { evaluationScript, type FrameReason, phaseFromFrames } from './phase-frames.js';
import { logContext, type MarkerReason, oneRankFailed, ranksEvident, startOfRun } from './phase-log.js';
import { phaseFromSmi, type SmiReason } from './phase-smi.js';
import { readTraceback } from './traceback.js';

export {
  FREE_SLACK_BYTES,
  FREE_SLACK_SHARE,
  foreignProcesses,
  freeCoversRequest,
  RANK_CONTEXT_MAX_BYTES,
  readProcesses,
  torchHeldBytes,
  UNACCOUNTED_MIN_BYTES,
  UNACCOUNTED_SHARE,
} from './phase-bytes.js';

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

/**
 * What the phase was read from (`smi`: nvidia-smi or gpustat output in the text; `steps`: a recorded
 * run's step timeline, see diagnose/diagnose.ts).
 */
export type PhaseBasis = 'message' | 'traceback' | 'processes' | 'log' | 'smi' | 'numbers' | 'steps' | 'none';

/** Why a rule placed the failure; one code per rule, its words in src/words/oom.ts. */
export type PhaseReason =
  | 'host-kill'
  | FrameReason
  | 'evaluation-script'
  | CardReason
  | 'memory-outside-torch'
  | 'rank-contexts'
  | SmiReason
  | MarkerReason
  | 'one-rank-failed'
  | FigureReason
  | 'steps-before-failure';

export interface PhaseReading {
  readonly phase: OomPhase;
  readonly basis: PhaseBasis;
  /** The line that says so, when a line does. */
  readonly quote: string | null;
  readonly line: number | null;
  /** Null only when nothing placed the failure (`unknown`, basis `none`). */
  readonly reason: PhaseReason | null;
}

/** Longest line quoted as the phase's evidence. */
const MAX_PHASE_QUOTE_CHARS = 240;

/** Phases of a step that an outer context (an evaluation, a save, a run many steps in) contains. */
const STEP_PARTS: ReadonlySet<OomPhase> = new Set(['forward', 'backward']);
/** Contexts that contain a forward or backward pass. */
const CONTEXTS: ReadonlySet<OomPhase> = new Set(['evaluation', 'checkpoint-save', 'mid-run']);

function at(
  lines: readonly LogLine[],
  line: number,
  phase: OomPhase,
  basis: PhaseBasis,
  reason: PhaseReason,
) {
  return { phase, basis, quote: quoteOf(lines[line]!.text, MAX_PHASE_QUOTE_CHARS), line, reason };
}

function failedRanks(all: readonly OomMatch[]): Set<number> {
  const out = new Set<number>();
  for (const m of all) if (m.rank !== null) out.add(m.rank);
  return out;
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
    return {
      phase: 'host-memory',
      basis: 'message',
      quote: match.quote,
      line: match.line,
      reason: 'host-kill',
    };
  const held = cardHeldByOthers(match);
  if (held) return { phase: 'other-process', basis: 'processes', quote: null, line: null, reason: held };

  const lines = normalizeLog(text);
  const entries = readTraceback(lines);
  const failureLine = match?.line ?? lines.length - 1;
  const context = logContext(lines, failureLine);
  const traced = phaseFromFrames(entries);
  if (traced) {
    if (STEP_PARTS.has(traced.phase)) {
      if (context && CONTEXTS.has(context.phase))
        return at(lines, context.line, context.phase, 'log', context.reason);
      const script = evaluationScript(entries);
      if (script) return at(lines, script.line, 'evaluation', 'traceback', 'evaluation-script');
    }
    const basis = traced.entry.frame || traced.entry.isCode ? 'traceback' : 'log';
    return at(lines, traced.entry.line, traced.phase, basis, traced.reason);
  }

  if (memoryOutsideTorch(match))
    return {
      phase: 'other-process',
      basis: 'numbers',
      quote: null,
      line: null,
      reason: 'memory-outside-torch',
    };
  if (rankContexts(match, ranksEvident(lines)))
    return {
      phase: 'multi-gpu-imbalance',
      basis: 'processes',
      quote: null,
      line: null,
      reason: 'rank-contexts',
    };
  // CUDA's own error carries no PyTorch figures: nothing says what this process held.
  const bareCudaError =
    match?.oom.family === 'cuda-runtime' &&
    match.oom.allocatedByTorchBytes === null &&
    match.oom.totalBytes === null;
  const smi = phaseFromSmi(lines, all.length > 0 || match !== null, bareCudaError);
  if (smi) return at(lines, smi.line, smi.phase, 'smi', smi.reason);

  const ranks = failedRanks(all);
  if (context) {
    if (context.phase === 'mid-run' && oneRankFailed(lines, ranks))
      return {
        phase: 'multi-gpu-imbalance',
        basis: 'log',
        quote: null,
        line: null,
        reason: 'one-rank-failed',
      };
    return at(lines, context.line, context.phase, 'log', context.reason);
  }
  const script = evaluationScript(entries);
  if (script) return at(lines, script.line, 'evaluation', 'traceback', 'evaluation-script');
  if (oneRankFailed(lines, ranks))
    return { phase: 'multi-gpu-imbalance', basis: 'log', quote: null, line: null, reason: 'one-rank-failed' };

  const figures = phaseFromFigures(match, startOfRun(lines));
  if (figures)
    return { phase: figures.phase, basis: 'numbers', quote: null, line: null, reason: figures.reason };
  return { phase: 'unknown', basis: 'none', quote: null, line: null, reason: null };
}
