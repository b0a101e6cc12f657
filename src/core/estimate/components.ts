/**
 * The five parts at the peak (weights, gradients, optimizer, activations, runtime): what of the peak
 * phase's high point is which, plus what the allocator reserves and the process holds outside torch.
 * They add up to the device-level peak.
 */
import type { ModelStates } from './model-states.js';
import type { PhasePeaks } from './phases.js';
import type { RuntimeBytes } from './runtime.js';
import type { StrategyTerms } from './strategy-terms.js';
import type { Transients } from './transients.js';
import type { Components, Phase } from './types.js';

/** The gradients present at each phase's high point (what the allocator step counts as held once). */
export function gradientsAt(
  phase: Phase,
  states: ModelStates,
  strategy: StrategyTerms,
  peaks: PhasePeaks,
): number {
  switch (phase) {
    case 'load':
      return 0;
    case 'forward':
      return strategy.gradsDuringForward;
    case 'backward':
      // Backward peaks either at its start (before any gradient) or at its end (all of them); a tie
      // counts its end's.
      return (
        (peaks.backwardEndBytes >= peaks.backwardStartBytes
          ? Math.max(states.gradientsBytes, strategy.gradsDuringForward) + 2 * strategy.rootGradBytes
          : strategy.gradsDuringForward + strategy.rootHeadGradBytes) + strategy.gatheredGradBytes
      );
    case 'optimizer-step':
      return states.gradientsBytes;
    // Evaluation runs after optimizer.zero_grad (set_to_none): no gradients.
    case 'eval':
    case 'generate':
      return 0;
  }
}

/** The components step, unrounded. */
export function componentsAtPeak(
  states: ModelStates,
  strategy: StrategyTerms,
  temp: Transients,
  peaks: PhasePeaks,
  runtime: RuntimeBytes,
  reservedBytes: number,
): Components {
  const peakPhase = peaks.peakPhase;
  const allocated = peaks.phases[peakPhase]!;
  const midStep = peakPhase === 'forward' || peakPhase === 'backward';
  // Evaluation and generation run a forward too, without autocast's saved copies (evaluation.ts).
  const around = peakPhase === 'eval' || peakPhase === 'generate';
  const weights =
    states.weightsBytes +
    strategy.gatheredBytes +
    (midStep ? temp.castBytes + strategy.turnGatheredBytes : 0) +
    (midStep || around ? temp.dequantBytes + strategy.rootBytes : 0);
  const gradients = gradientsAt(peakPhase, states, strategy, peaks);
  const optimizer =
    peakPhase === 'load'
      ? 0
      : states.optimizerBytes +
        (peakPhase === 'optimizer-step' ||
        (states.optimizerInBackward &&
          peakPhase === 'backward' &&
          peaks.backwardEndBytes >= peaks.backwardStartBytes)
          ? states.stepTempBytes
          : 0);
  // The cuBLAS workspaces are runtime buffers that torch happens to allocate.
  const workspacesAtPeak = peakPhase === 'load' ? 0 : runtime.workspaceBytes;
  const bucketBytes = strategy.bucketBytes;
  return {
    weights,
    gradients,
    optimizer: optimizer + states.pagedOptimizerBytes,
    activations: Math.max(0, allocated - weights - gradients - optimizer - bucketBytes - workspacesAtPeak),
    runtime:
      bucketBytes + workspacesAtPeak + (reservedBytes - allocated) + runtime.contextBytes + runtime.ncclBytes,
  };
}
