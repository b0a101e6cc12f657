/**
 * The phases: each phase's high point as a record of named terms (torch-allocated bytes), its figure
 * the sum of its terms, and the peak the highest of them. Backward peaks at its start (what forward
 * saved, plus its transient) or at its end (all the gradients); with the optimizer in backward no
 * separate step holds the gradients.
 */
import type { ActivationPlan } from './activations.js';
import type { EvaluationRecords } from './evaluation.js';
import type { LoadPlan } from './load.js';
import type { ModelStates } from './model-states.js';
import type { StrategyTerms } from './strategy-terms.js';
import type { Transients } from './transients.js';
import type { PeakTermName, Phase, PhaseFigures, TermBytes } from './types.js';

/** Any phase's record: some of the terms, by name, in the order they are held. */
export type TermRecord = { readonly [T in PeakTermName]?: number };

/** What every phase after loading holds: the states, the strategy's buffers, the cuBLAS workspaces. */
export interface PersistentTerms {
  readonly weights: number;
  readonly 'optimizer-states': number;
  readonly 'communication-buckets': number;
  readonly 'gathered-weights': number;
  /** The cuBLAS workspaces come with the first matmul and stay: not at load, in every phase after it. */
  readonly 'cublas-workspaces': number;
}

/**
 * Loading: the weights, one 16-bit weight being quantized with its cast, and what load.ts adds (a base
 * held in fp32 before its cast, prepare_model_for_kbit_training's fp32 copies).
 */
export interface LoadTerms {
  readonly weights: number;
  readonly 'quantization-transient': number;
  readonly 'load-fp32-weights': number;
  readonly 'kbit-upcast': number;
}

/** The end of forward holds what backward needs. */
export interface ForwardEndTerms extends PersistentTerms {
  readonly 'fsdp-root-unit': number;
  readonly 'zero3-turn-weights': number;
  readonly 'accumulated-gradients': number;
  readonly 'saved-activations': number;
  readonly 'logits-and-loss': number;
  readonly 'autocast-copies': number;
  readonly 'dequantized-weight': number;
}

/**
 * Forward's high point: the end of forward, and the previous step's kept inputs on top until the loop
 * replaces its outputs, which happens before this backward starts.
 */
export interface ForwardTerms extends ForwardEndTerms {
  readonly 'previous-step-inputs': number;
}

/** Backward's start: what forward saved, its largest transient, the first gathered and root gradients. */
export interface BackwardStartTerms extends ForwardEndTerms {
  readonly 'backward-transient': number;
  readonly 'gathered-gradients': number;
  readonly 'fsdp-root-gradient': number;
}

/** Backward's end: every gradient, the root's joined twice for a moment, the step's temporary in backward. */
export interface BackwardEndTerms extends PersistentTerms {
  readonly 'fsdp-root-unit': number;
  readonly gradients: number;
  readonly 'gathered-gradients': number;
  readonly 'fsdp-root-gradient': number;
  readonly 'dequantized-weight': number;
  readonly 'optimizer-step-temporary': number;
}

/** The optimizer step: the states, the gradients it reads and its temporary. */
export interface OptimizerStepTerms {
  readonly weights: number;
  readonly gradients: number;
  readonly 'optimizer-states': number;
  readonly 'communication-buckets': number;
  readonly 'cublas-workspaces': number;
  readonly 'optimizer-step-temporary': number;
}

/** Each phase's high point as named terms, backward's both candidates. */
export interface PhaseRecords {
  readonly persistent: PersistentTerms;
  readonly load: LoadTerms;
  readonly forward: ForwardTerms;
  readonly backwardStart: BackwardStartTerms;
  readonly backwardEnd: BackwardEndTerms;
  /** In backward, the step is already done: no separate optimizer phase holds the gradients. */
  readonly optimizerStep: OptimizerStepTerms | PersistentTerms;
  /** Evaluation's forward and generation (evaluation.ts), when the run evaluates. */
  readonly around: EvaluationRecords;
}

/** A record's figure: its terms added in the order they are held. */
export function total(terms: TermRecord): number {
  let sum = 0;
  for (const term in terms) sum += terms[term as PeakTermName]!;
  return sum;
}

/**
 * The phase-records step: what each phase's high point holds, term by term. Each record is written out
 * whole, in the order its interface lists the terms (a spread of the shared terms made V8 build
 * dictionary objects, four times slower: bench:speed). A term added to a record goes in its sum in
 * stepPeaks too, at the same place.
 */
export function phaseRecords(
  states: ModelStates,
  strategy: StrategyTerms,
  act: ActivationPlan,
  temp: Transients,
  workspaceBytes: number,
  load: LoadPlan,
  around: EvaluationRecords,
): PhaseRecords {
  const W = states.weightsBytes;
  const O = states.optimizerBytes;
  const G = states.gradientsBytes;
  const buckets = strategy.bucketBytes;
  const gathered = strategy.gatheredBytes;
  const persistent: PersistentTerms = {
    weights: W,
    'optimizer-states': O,
    'communication-buckets': buckets,
    'gathered-weights': gathered,
    'cublas-workspaces': workspaceBytes,
  };
  return {
    persistent,
    load: {
      weights: W,
      'quantization-transient': load.quantizationTransientBytes,
      'load-fp32-weights': load.fp32LoadBytes,
      'kbit-upcast': load.kbitUpcastBytes,
    },
    forward: {
      weights: W,
      'optimizer-states': O,
      'communication-buckets': buckets,
      'gathered-weights': gathered,
      'cublas-workspaces': workspaceBytes,
      'fsdp-root-unit': strategy.rootBytes,
      'zero3-turn-weights': strategy.turnGatheredBytes,
      'accumulated-gradients': strategy.gradsDuringForward,
      'saved-activations': act.savedBytes,
      'logits-and-loss': act.lossResidentBytes,
      'autocast-copies': temp.castBytes,
      'dequantized-weight': temp.dequantBytes,
      'previous-step-inputs': act.previousStepBytes,
    },
    backwardStart: {
      weights: W,
      'optimizer-states': O,
      'communication-buckets': buckets,
      'gathered-weights': gathered,
      'cublas-workspaces': workspaceBytes,
      'fsdp-root-unit': strategy.rootBytes,
      'zero3-turn-weights': strategy.turnGatheredBytes,
      'accumulated-gradients': strategy.gradsDuringForward,
      'saved-activations': act.savedBytes,
      'logits-and-loss': act.lossResidentBytes,
      'autocast-copies': temp.castBytes,
      'dequantized-weight': temp.dequantBytes,
      'backward-transient': temp.backwardTransientBytes,
      'gathered-gradients': strategy.gatheredGradBytes,
      'fsdp-root-gradient': strategy.rootHeadGradBytes,
    },
    backwardEnd: {
      weights: W,
      'optimizer-states': O,
      'communication-buckets': buckets,
      'gathered-weights': gathered,
      'cublas-workspaces': workspaceBytes,
      'fsdp-root-unit': strategy.rootBytes,
      gradients: Math.max(G, strategy.gradsDuringForward),
      'gathered-gradients': strategy.gatheredGradBytes,
      'fsdp-root-gradient': strategy.rootGradBytes + strategy.rootReduceInputBytes,
      'dequantized-weight': temp.dequantBytes,
      'optimizer-step-temporary': states.optimizerInBackward ? states.stepTempBytes : 0,
    },
    optimizerStep: states.optimizerInBackward
      ? persistent
      : {
          weights: W,
          gradients: G,
          'optimizer-states': O,
          'communication-buckets': buckets,
          'cublas-workspaces': workspaceBytes,
          'optimizer-step-temporary': states.stepTempBytes,
        },
    around,
  };
}

/** Each phase's figure, which of backward's candidates is its high point, and the peak. */
export interface PhasePeaks {
  readonly persistentBytes: number;
  readonly backwardStartBytes: number;
  readonly backwardEndBytes: number;
  /** torch allocated at each phase's high point. */
  readonly phases: PhaseFigures<number>;
  /** Backward peaks at its end (all its gradients), not at its start. */
  readonly backwardPeaksAtEnd: boolean;
  readonly peakPhase: Phase;
}

/**
 * The peaks step: each phase's figure and the highest, from the records (the estimate takes this path
 * when it is asked for the terms, so the figures are the terms' sums by construction).
 */
export function phasePeaks(records: PhaseRecords): PhasePeaks {
  return peaksOf(
    total(records.persistent),
    total(records.load),
    total(records.forward),
    total(records.backwardStart),
    total(records.backwardEnd),
    total(records.optimizerStep),
    records.around,
  );
}

/**
 * The same peaks without the records, for the estimates that are not asked for the terms (planners,
 * searches, bench:speed): building the records was a tenth of an estimate's time and most of its
 * garbage. Each sum adds the terms phaseRecords writes, in its order, so each figure is the same
 * number; a term added to a record goes here too, at the same place (the estimate's tests compare an
 * estimate with its terms and one without, whole).
 */
export function stepPeaks(
  states: ModelStates,
  strategy: StrategyTerms,
  act: ActivationPlan,
  temp: Transients,
  workspaceBytes: number,
  load: LoadPlan,
  around: EvaluationRecords,
): PhasePeaks {
  const W = states.weightsBytes;
  const O = states.optimizerBytes;
  const G = states.gradientsBytes;
  const buckets = strategy.bucketBytes;
  const gathered = strategy.gatheredBytes;
  const persistent = 0 + W + O + buckets + gathered + workspaceBytes;
  const forwardEnd =
    0 +
    W +
    O +
    buckets +
    gathered +
    workspaceBytes +
    strategy.rootBytes +
    strategy.turnGatheredBytes +
    strategy.gradsDuringForward +
    act.savedBytes +
    act.lossResidentBytes +
    temp.castBytes +
    temp.dequantBytes;
  return peaksOf(
    persistent,
    0 + W + load.quantizationTransientBytes + load.fp32LoadBytes + load.kbitUpcastBytes,
    forwardEnd + act.previousStepBytes,
    forwardEnd + temp.backwardTransientBytes + strategy.gatheredGradBytes + strategy.rootHeadGradBytes,
    0 +
      W +
      O +
      buckets +
      gathered +
      workspaceBytes +
      strategy.rootBytes +
      Math.max(G, strategy.gradsDuringForward) +
      strategy.gatheredGradBytes +
      (strategy.rootGradBytes + strategy.rootReduceInputBytes) +
      temp.dequantBytes +
      (states.optimizerInBackward ? states.stepTempBytes : 0),
    states.optimizerInBackward ? persistent : 0 + W + G + O + buckets + workspaceBytes + states.stepTempBytes,
    around,
  );
}

/** The peaks from each record's figure. */
function peaksOf(
  persistentBytes: number,
  loadBytes: number,
  forwardBytes: number,
  backwardStart: number,
  backwardEnd: number,
  optimizerStepBytes: number,
  around: EvaluationRecords,
): PhasePeaks {
  const phases: { -readonly [P in keyof PhaseFigures<number>]: PhaseFigures<number>[P] } = {
    load: loadBytes,
    forward: forwardBytes,
    backward: Math.max(backwardStart, backwardEnd),
    'optimizer-step': optimizerStepBytes,
  };
  if (around.eval) phases.eval = total(around.eval);
  if (around.generate) phases.generate = total(around.generate);
  // The first phase wins a tie: the step's phases before evaluation's (PHASES's order, written out:
  // a loop over the names read each phase by a varying key).
  let peakPhase: Phase = 'load';
  let top = phases.load;
  if (phases.forward > top) {
    peakPhase = 'forward';
    top = phases.forward;
  }
  if (phases.backward > top) {
    peakPhase = 'backward';
    top = phases.backward;
  }
  if (phases['optimizer-step'] > top) {
    peakPhase = 'optimizer-step';
    top = phases['optimizer-step'];
  }
  if ((phases.eval ?? 0) > top) {
    peakPhase = 'eval';
    top = phases.eval ?? 0;
  }
  if ((phases.generate ?? 0) > top) peakPhase = 'generate';
  return {
    persistentBytes,
    backwardStartBytes: backwardStart,
    backwardEndBytes: backwardEnd,
    phases,
    backwardPeaksAtEnd: backwardEnd > backwardStart,
    peakPhase,
  };
}

/** A record's terms as the estimate lists them: whole bytes each, terms of 0 bytes left out. */
function termList(terms: TermRecord): TermBytes[] {
  const out: TermBytes[] = [];
  for (const term in terms) {
    const bytes = terms[term as PeakTermName]!;
    if (bytes > 0) out.push({ term: term as PeakTermName, bytes: Math.round(bytes) });
  }
  return out;
}

/** Each phase's high point term by term (asked for by the CLI and the dashboard, not by searches). */
export function phaseTermLists(records: PhaseRecords, peaks: PhasePeaks): PhaseFigures<readonly TermBytes[]> {
  const { eval: evalTerms, generate } = records.around;
  return {
    load: termList(records.load),
    forward: termList(records.forward),
    // Backward at its start unless its end is higher (a tie reads as its start).
    backward: termList(peaks.backwardPeaksAtEnd ? records.backwardEnd : records.backwardStart),
    'optimizer-step': termList(records.optimizerStep),
    ...(evalTerms ? { eval: termList(evalTerms) } : {}),
    ...(generate ? { generate: termList(generate) } : {}),
  };
}
