/**
 * What the lines around an out-of-memory message say about when it happened:
 * - the program's own output before the failure (progress bars, "Loading checkpoint shards", a step
 *   counter with a loss, a serving engine's log prefix): the last such line before the message places it;
 * - the words people write around a pasted error ("during validation", "after 3 epochs", "when saving
 *   the model", "another process"), anywhere in the text, unless negated ("no other process").
 * Every pattern is a plain alternation or a pair of patterns tested one after the other on a line cut
 * to MAX_LINE_CHARS, so the work stays linear in the text's length.
 */
import type { LogLine } from './log-lines.js';

export type MarkedPhase =
  | 'load'
  | 'forward'
  | 'backward'
  | 'optimizer-step'
  | 'evaluation'
  | 'checkpoint-save'
  | 'mid-run'
  | 'multi-gpu-imbalance'
  | 'other-process';

export type MarkerReason = 'log-progress' | 'log-steps' | 'log-engine' | 'words';

export interface Marker {
  readonly phase: MarkedPhase;
  readonly reason: MarkerReason;
  readonly line: number;
}

/** Characters of a line the markers look at (bounds the work on pathological lines). */
export const MAX_LINE_CHARS = 2000;

/** `first` matches and `then` matches after it, on one line (two linear scans, no backtracking between). */
function followedBy(text: string, first: RegExp, then: RegExp): boolean {
  const m = first.exec(text);
  return m !== null && then.test(text.slice(m.index + m[0].length));
}

/** The program's own lines (meaningful only before the failure). */
const PROGRAM_MARKERS: readonly (readonly [MarkedPhase, MarkerReason, (text: string) => boolean])[] = [
  [
    'evaluation',
    'log-progress',
    (t) =>
      followedBy(
        t,
        /^\s*(?:Valid(?:ation|ating)?|Eval(?:uat(?:ing|ion))?|Test(?:ing)?|Predict(?:ing|ion)?|Sanity\s+Checking)\b/i,
        /(?<!\d)\d+\s*\/\s*\d+|(?<!\d)\d+%/,
      ) || /\*{3,}\s*Running\s+(?:Evaluation|Prediction)|\bValidation\s+DataLoader\b/i.test(t),
  ],
  [
    'load',
    'log-progress',
    (t) =>
      /\bLoading\s+checkpoint\s+shards\b|^\s*Loading\s+(?:the\s+)?(?:model|weights|checkpoint|safetensors|pipeline)\b/i.test(
        t,
      ),
  ],
  // DeepSpeed's see_memory_usage milestones while ZeRO builds its optimizer (stage3.py, stage_1_and_2.py).
  [
    'optimizer-step',
    'log-progress',
    (t) => /\bBefore\s+(?:creating\s+fp32\s+partitions|initializing\s+optimizer\s+states)\b/.test(t),
  ],
  [
    'load',
    'log-progress',
    (t) => /\bStage\s+3\s+initialize\s+beginning\b|\bBefore\s+creating\s+fp16\s+partitions\b/.test(t),
  ],
  // vLLM's log lines (`ERROR 04-01 23:46:56 [engine.py:160] …`): the serving engine runs forward passes.
  [
    'forward',
    'log-engine',
    (t) =>
      /\[(?:engine|llm_engine|model_runner|gpu_model_runner|scheduler)\.py:\d+\]/.test(t) ||
      /^(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+\[\w+\.py:\d+\]/.test(
        t,
      ),
  ],
];

// `\s*(?:[=:]\s*)?`, not `\s*[=:]?\s*`: two optional runs side by side split a run of spaces n ways.
const STEP_COUNTER = /\b(?:global_step|step|iter(?:ation)?|it)\s*(?:[=:]\s*)?(\d+)\b/i;
const EPOCH_COUNTER = /\bepoch\s*(?:[=:]\s*)?(\d+)\b/i;
const LOSS_WORD = /loss\b|\blr\b|\blearning[ _]rate\b/i;
const HF_LOSS_DICT = /\{'loss':\s*[\d.]+/;
const TQDM_BAR = /\b(\d+)\s*\/\s*\d+\s*\[\d+:\d+/;
const TRAINING_WORD = /\btrain|\bstep|\bepoch|\biter/i;

/**
 * A training step counter at 2 or more with a loss, a logged loss dict (HF Trainer logs every
 * `logging_steps`), or a progress bar that says training past step 2: steps that fit have run, so the
 * one that failed is not the first (the optimizer states exist, the allocator is warm). A bare tqdm bar
 * says nothing: data preprocessing, diffusion sampling and generation draw the same bars.
 */
function stepsRan(t: string): boolean {
  const step = STEP_COUNTER.exec(t);
  if (step && Number(step[1]) >= 2 && LOSS_WORD.test(t.slice(step.index))) return true;
  const epoch = EPOCH_COUNTER.exec(t);
  if (epoch && Number(epoch[1]) >= 2 && LOSS_WORD.test(t.slice(epoch.index))) return true;
  if (HF_LOSS_DICT.test(t)) return true;
  const bar = TQDM_BAR.exec(t);
  return bar !== null && Number(bar[1]) >= 2 && TRAINING_WORD.test(t);
}

/** What people write. Each pattern is tested on the line; a match negated by the words before it is dropped. */
const WORD_MARKERS: readonly (readonly [MarkedPhase, RegExp])[] = [
  [
    'multi-gpu-imbalance',
    /\b(?:additional|several|extra|many|\d+)\s+(?:additional\s+)?processes\s+on\s+(?:the\s+)?gpu\s*:?\s*0\b|\bother\s+(?:GPUs|ranks|cards)\s+(?:are|were|stay|have)\s+(?:free|empty|idle|fine|almost\s+empty)|\bonly\s+(?:on\s+)?(?:rank|gpu)\s*:?\s*0\b|\b(?:imbalanced?|unbalanced|uneven(?:ly)?)\s+(?:gpu\s+)?(?:memory|load|usage|across)\b/i,
  ],
  [
    'other-process',
    /\b(?:another|other)\s+(?:running\s+)?(?:process|job|user|program|container|application)s?\b|\btwo\s+jobs\b|\boverlap\s+in\s+using\s+GPUs?\b|\b(?:leftover|zombie|ghost|orphan(?:ed)?|stale|stopped|dead)\s+process|\bstill\s+occup(?:y|ies|ied|ying)\b|\bno\s+such\s+process\b|\bfuser\b|\bkill\s+-9\b/i,
  ],
  [
    'checkpoint-save',
    /\b(?:while|when|during|after)\s+sav(?:e|ing)\b|\b(?:saving|writing)\s+(?:the\s+|a\s+)?(?:model|checkpoint|weights|state)|\b(?:creat|mak)(?:es|ing)\s+(?:the\s+|a\s+)?checkpoints?\b|\b(?:at|during|in|on|calling)\s+`?(?:\w+\.){0,3}(?:save_pretrained|save_model|save_checkpoint|save_state)\s*\(/i,
  ],
  [
    'evaluation',
    /\b(?:during|while|in|at|after|when)\s+(?:the\s+|my\s+|model\s+)?(?:validation|evaluation|eval|evaluating|validating|testing|prediction|predicting)\b|\b(?:performing|running|doing|run|do|start(?:s|ed|ing)?|begin(?:s|ning)?)\s+(?:the\s+|to\s+)?(?:validation|evaluation|evaluating|validating|eval)\b|\b(?:eval(?:uation)?|validation)\s+(?:step|phase|stage|loop|mode|script|code|epoch|process)\b/i,
  ],
  // Evaluation as the subject of what ran out: "eval still seems to eat too much memory",
  // "validation runs out of memory", "evaluation OOMs"; a negation between them ("never uses") is not.
  [
    'evaluation',
    /\b(?:eval(?:uation)?|validation|evaluating|validating)\s+(?:(?!(?:never|not|no|hardly|barely)\b)[a-z]+\s+){0,3}?(?:eats?|uses?|takes?|consumes?|needs?|requires?|runs?\s+out|blows?\s+up|explodes?|ooms?|oomed|causes?\s+(?:an?\s+)?(?:oom|out\s+of\s+memory))\b/i,
  ],
  [
    'load',
    /\b(?:while|when|during)\s+loading\s+(?:the\s+)?(?:model|checkpoint|weights|shards)\b|\b(?:can(?:not|'t)|could(?:\s+not|n't)|unable\s+to|fail(?:s|ed)?\s+to)\s+(?:even\s+)?load\s+(?:the\s+)?(?:model|checkpoint|weights)\b|\b(?:while|when|during)\s+(?:moving|putting|transferring|sending)\s+(?:the\s+)?model\s+(?:to|onto|on)\b|\b(?:during|while|at|when)\s+(?:the\s+)?model\s+(?:loading|initiali[sz]ation|init)\b/i,
  ],
  // "at optimizer.step()", "when calling loss.backward()": the call people name is the phase.
  [
    'optimizer-step',
    /\b(?:at|during|in|on)\s+(?:the\s+)?(?:first\s+)?optimi[sz]er\s+step\b|\b(?:at|during|in|on|calling)\s+`?(?:self\.)?(?:optimizer|optim|opt)\.step\s*\(/i,
  ],
  [
    'backward',
    /\b(?:during|in|at|when)\s+(?:the\s+)?(?:backward(?:\s+pass)?|backprop(?:agation)?)\b(?!\s*compat)|\b(?:at|during|in|on|calling)\s+`?(?:\w+\.)?backward\s*\(/i,
  ],
  [
    'forward',
    /\b(?:during|while|in|at|when)\s+(?:the\s+)?(?:inference|forward\s+pass)\b|\b(?:running|doing|performing|run|do)\s+inference\b/i,
  ],
  [
    'mid-run',
    /\bafter\s+(?:training\s+(?:for\s+)?)?(?:about\s+|around\s+|roughly\s+|~\s*)?(?:several|many|a\s+few|few|some)\s+(?:steps|iterations|iters|epoch(?:e?s)?|hours|minutes|batches)\b|\bhours\s+(?:in|into)\b|\bmid[- ]run\b|\bmiddle\s+of\s+(?:the\s+)?training\b/i,
  ],
  // An epoch is many steps, "a while" is time the run kept going, and memory that keeps growing or
  // leaks is a run that fitted at first: each says steps ran before the one that failed.
  [
    'mid-run',
    /\bafter\s+(?:the\s+)?(?:first|1st|one|an?|second|2nd|third|3rd)\s+(?:full\s+|whole\s+)?epoch\b|\bafter\s+(?:a\s+while|some\s+time)\b|\b(?:memory|VRAM)\s+(?:usage\s+)?(?:keeps|kept)\s+(?:slowly\s+|gradually\s+|steadily\s+)?(?:increasing|growing|rising|going\s+up)\b|\b(?:memory|VRAM)\s+leak/i,
  ],
];

/**
 * "at epoch 5", "at step 1200", "after 3 epochs", "around 800 epoches", "after training 67epochs": a
 * count of 2 or more says steps ran before (epochs and hours are always many steps).
 */
const AT_STEP_WORDS = /\b(?:at|after|around|in|on)\s+(?:the\s+)?(?:step|iteration|iter|epoch)\s+(\d+)\b/i;
const AFTER_COUNT_WORDS =
  /\b(?:after|around|at)\s+(?:training\s+(?:for\s+)?)?(?:about\s+|around\s+|roughly\s+|~\s*)?([\d,]+)\s*(steps|iterations|iters|epoch(?:e?s)?|hours|minutes|batches)\b/i;

/** Words that place the failure at the very start of the run (not a phase; they veto "mid-run" guesses). */
const START_OF_RUN_WORDS =
  /\b(?:first|1st)\s+(?:training\s+)?(?:step|batch|iteration|iter|forward)\b|\bstep\s+0\b|\bimmediately\b|\bright\s+away\b|\bat\s+the\s+(?:very\s+)?(?:start|beginning)\b/i;

/** A negation right before a match, or one word before it: "no other process", "doesn't happen during evaluation". */
const NEGATION_BEFORE = /(?:^|[^\w'])(?:no|not|none|never|nor|without|\w+n't)(?:\s+[\w']+)?\s*$/i;

function negated(text: string, at: number): boolean {
  return NEGATION_BEFORE.test(text.slice(Math.max(0, at - 40), at));
}

/** The first word marker of a line that its own words do not negate. */
function wordsOf(text: string): MarkedPhase | null {
  for (const [phase, pattern] of WORD_MARKERS) {
    const m = pattern.exec(text);
    if (m && !negated(text, m.index)) return phase;
  }
  const at = AT_STEP_WORDS.exec(text);
  if (at && Number(at[1]) >= 2 && !negated(text, at.index)) return 'mid-run';
  const count = AFTER_COUNT_WORDS.exec(text);
  if (count && !negated(text, count.index)) {
    const n = Number(count[1]!.replace(/,/g, ''));
    if (n >= 2 || /^(?:epoch|hour)/i.test(count[2]!)) return 'mid-run';
  }
  return null;
}

const lineText = (lines: readonly LogLine[], i: number) => lines[i]!.text.slice(0, MAX_LINE_CHARS);

/** A milestone that closes a stage the markers above open: nothing before it places the failure. */
const STAGE_DONE =
  /\bAfter\s+(?:creating\s+fp(?:16|32)\s+partitions|initializing\s+(?:optimizer\s+states|ZeRO\s+optimizer))\b/;

/** The last program line before (or on) the failure that places it. */
export function programMarker(lines: readonly LogLine[], uptoLine: number): Marker | null {
  for (let i = Math.min(uptoLine, lines.length - 1); i >= 0; i--) {
    const t = lineText(lines, i);
    if (STAGE_DONE.test(t)) return null;
    for (const [phase, reason, test] of PROGRAM_MARKERS) if (test(t)) return { phase, reason, line: i };
    if (stepsRan(t)) return { phase: 'mid-run', reason: 'log-steps', line: i };
  }
  return null;
}

/**
 * The words that place the failure: the nearest line to it, looking back from it first (what was
 * written before the error), then after it (what people write under a pasted error).
 */
export function wordMarker(lines: readonly LogLine[], failureLine: number): Marker | null {
  const from = Math.min(failureLine, lines.length - 1);
  for (let i = from; i >= 0; i--) {
    const phase = wordsOf(lineText(lines, i));
    if (phase) return { phase, reason: 'words', line: i };
  }
  for (let i = from + 1; i < lines.length; i++) {
    const phase = wordsOf(lineText(lines, i));
    if (phase) return { phase, reason: 'words', line: i };
  }
  return null;
}

/** True when the words place the failure at the first step (or right at the start). */
export function startOfRun(lines: readonly LogLine[]): boolean {
  return lines.some((l) => {
    const t = l.text.slice(0, MAX_LINE_CHARS);
    const m = START_OF_RUN_WORDS.exec(t);
    return m !== null && !negated(t, m.index);
  });
}

/**
 * The context the log gives a failure: the program's line before it, or the words around it. A
 * context more specific than "mid-run" wins over it (an evaluation or a save after many steps is
 * that evaluation or save); between two specific ones, what the program printed wins.
 */
export function logContext(lines: readonly LogLine[], failureLine: number): Marker | null {
  const program = programMarker(lines, failureLine);
  const words = wordMarker(lines, failureLine);
  if (!program) return words;
  if (!words) return program;
  if (program.phase === 'mid-run' && words.phase !== 'mid-run') return words;
  return program;
}

/** Launchers, libraries and words that mean the job runs several ranks. */
const RANK_WORDS =
  /\b(?:local_rank|LOCAL_RANK|WORLD_SIZE|world_size|nproc_per_node|torchrun|torch\.distributed|DistributedDataParallel|horovodrun|horovod|mpirun|NCCL)\b|\baccelerate\s+launch\b/;

/** Evidence that the job ran several ranks: launcher rank tags on lines, or the words of one. */
export function ranksEvident(lines: readonly LogLine[]): boolean {
  return lines.some((l) => l.rank !== null || RANK_WORDS.test(l.text.slice(0, MAX_LINE_CHARS)));
}

/** An error a rank printed (a traceback, an exception's line). */
const ERROR_LINE = /^Traceback\b|(?:Error|Exception):/;

/**
 * One rank failed while the others went on without an error: its card was fuller than theirs. (When
 * every rank fails, or the others show errors of their own — the same OOM cut off, a collective's
 * timeout after the first rank died — nothing says the ranks were uneven.)
 */
export function oneRankFailed(lines: readonly LogLine[], failedRanks: ReadonlySet<number>): boolean {
  if (failedRanks.size !== 1) return false;
  const ranks = new Set<number>();
  for (const l of lines) if (l.rank !== null) ranks.add(l.rank);
  if (ranks.size < 2) return false;
  return !lines.some(
    (l) => l.rank !== null && !failedRanks.has(l.rank) && ERROR_LINE.test(l.text.slice(0, MAX_LINE_CHARS)),
  );
}
