/**
 * estimate(): the steps in order. Each step is a file beside this one and returns a record of named
 * figures; this function only passes them on and assembles the result.
 *
 *   precision.ts, training.ts   what is stored in which dtype, and what trains
 *   model-states.ts             weights, gradients, optimizer states on this GPU (sharding, offload)
 *   strategy-terms.ts           gathered layers, FSDP's root unit, buckets, accumulated gradients
 *   activations.ts              what forward saves, the logits and loss (layer-activations.ts: one layer)
 *   transients.ts               autocast copies, dequantized weights, backward's transient
 *   runtime.ts                  CUDA context, cuBLAS workspaces, NCCL
 *   load.ts                     loading: a base held in fp32 before its cast, the k-bit upcast
 *   evaluation.ts               evaluation's forward, its kept logits, generation's KV cache
 *   phases.ts                   each phase's high point as named terms; the peak
 *   allocator.ts                torch reserved: the reserve over the churn
 *   components.ts               the five parts at the peak
 *   host.ts, fit.ts             host memory for offload; the verdict against the GPU
 *   notes.ts                    the assumptions, as data
 */
import { olderInstallAlternatives } from '../frameworks/alternatives.js';
import { shapeUnderProfile } from '../frameworks/model.js';
import { usableBytes } from '../margin.js';
import { paramBreakdown } from '../params.js';
import { STRATEGY_TRAITS } from '../sharding.js';
import { activationPlan } from './activations.js';
import { allocatorReserve, streamCacheBytes } from './allocator.js';
import { componentsAtPeak } from './components.js';
import { evaluationRecords } from './evaluation.js';
import { fitOnGpu } from './fit.js';
import { hostMemory } from './host.js';
import { loadPlan } from './load.js';
import { modelStates } from './model-states.js';
import { estimateNotes } from './notes.js';
import { phasePeaks, phaseRecords, phaseTermLists, stepPeaks } from './phases.js';
import { precisionPlan } from './precision.js';
import { runtimeBytes } from './runtime.js';
import { strategyTerms } from './strategy-terms.js';
import { trainingPlan } from './training.js';
import { transients } from './transients.js';
import type {
  Breakdown,
  Estimate,
  EstimateInput,
  Phase,
  PhaseFigures,
  StepPhase,
  TermBytes,
} from './types.js';
import { climbOnCard, higherUpper, upperBound, withReserveClimb } from './upper.js';

/** The result as it is built: the optional fields are set once the steps that make them have run. */
type Building = { -readonly [K in keyof Estimate]: Estimate[K] };

/**
 * Estimates the per-GPU peak memory of one training step of `scenario` on a model of `shape`.
 * @example estimate({ scenario: parseScenario({ model: 'llama-3.1-8b' }), shape, gpu })
 */
export function estimate(input: EstimateInput): Estimate {
  return estimateWith(input, true);
}

/**
 * The estimate; with `alternatives`, its upper bound also holds for the scenario on an older install of
 * each package whose version the framework profile assumed at today's release (frameworks/alternatives.ts).
 */
function estimateWith(input: EstimateInput, alternatives: boolean): Estimate {
  const { scenario } = input;
  // The model as the scenario's framework builds it (a head it keeps untied).
  const { shape, exactParams: exact } = shapeUnderProfile(
    input.shape,
    input.exactParams ?? null,
    scenario.profile,
  );
  const gpus = scenario.parallelism.gpus;
  const params = paramBreakdown(shape);
  const plan = precisionPlan(scenario);
  const training = trainingPlan(scenario, shape, params);
  const traits = STRATEGY_TRAITS[scenario.parallelism.strategy];

  const states = modelStates(scenario, params, exact, plan, training);
  const strategy = strategyTerms(scenario, shape, params, plan, training, traits, states);
  const act = activationPlan(scenario, shape, plan, training);
  const temp = transients(scenario, shape, params, plan, training, states, strategy, act);
  const runtime = runtimeBytes(input.gpu, gpus);

  const load = loadPlan(scenario, params, plan, states, temp.quantizationTransientBytes);
  const around = evaluationRecords(
    scenario,
    shape,
    plan,
    states,
    strategy,
    act,
    temp,
    runtime.workspaceBytes,
  );
  // The records of each phase's terms only when the terms are asked for; otherwise their sums alone.
  const records =
    input.terms === true
      ? phaseRecords(states, strategy, act, temp, runtime.workspaceBytes, load, around)
      : null;
  const peaks = records
    ? phasePeaks(records)
    : stepPeaks(states, strategy, act, temp, runtime.workspaceBytes, load, around);
  const peakPhase = peaks.peakPhase;
  const allocated = peaks.phases[peakPhase]!;
  // The optimizer states the first step() makes out of the step's cache: DeepSpeed's ZeRO optimizer
  // makes its states at initialization instead (deepspeed/runtime/zero/stage_1_and_2.py and stage3.py,
  // initialize_optimizer_states: a step on zeroed gradients before any batch).
  const lazyStates = scenario.parallelism.strategy.startsWith('zero') ? 0 : states.optimizerBytes;
  // FSDP's sharded gradients allocated at a phase's high point, of those its reduce-scatter stream
  // caches: all of them at the optimizer step and at backward's end; through forward when micro-batches
  // accumulate sharded (not the whole ones no_sync keeps); none in evaluation, after zero_grad.
  const hasStreams = strategy.streamGradientBytes > 0 || strategy.streamGatherBytes > 0;
  const shardedGradsHeld = (phase: Phase): number =>
    phase === 'optimizer-step' || (phase === 'backward' && peaks.backwardPeaksAtEnd)
      ? strategy.streamGradientBytes
      : (phase === 'forward' || phase === 'backward') && !strategy.unshardedAccumulation
        ? Math.min(strategy.streamGradientBytes, strategy.gradsDuringForward)
        : 0;
  // The training step's own high point: where its reserve stands when the allocated peak is elsewhere.
  const { forward: fwd, backward: bwd, 'optimizer-step': opt } = peaks.phases;
  const stepPeak: Phase = opt > bwd && opt > fwd ? 'optimizer-step' : bwd >= fwd ? 'backward' : 'forward';
  // A phase's figure comes in with it: read by a varying key, it was the estimate's slowest line.
  const reserveAt = (phase: Phase, allocatedBytes: number) =>
    allocatorReserve(
      {
        peakPhase: phase,
        allocatedBytes,
        weightsBytes: states.weightsBytes,
        persistentBytes: peaks.persistentBytes,
        heldGradientBytes:
          phase === 'optimizer-step'
            ? states.gradientsBytes
            : phase === 'eval' || phase === 'generate'
              ? 0
              : strategy.gradsDuringForward,
        oneBlock: phase === 'load' && load.warmup,
        lossBytes:
          phase === peakPhase || phase === stepPeak ? act.lossResidentBytes + act.lossBackwardBytes : 0,
        stepTempBytes: states.stepTempBytes,
        stepTempElementBytes: states.stepTempElementBytes,
        stepCacheBytes: act.savedBytes + act.lossResidentBytes + temp.backwardTransientBytes,
        statesBytes: lazyStates,
        // Only FSDP on several GPUs has side-stream pools: the rest skip the phase's reading.
        streamCacheBytes: hasStreams ? streamCacheBytes(phase, strategy, shardedGradsHeld(phase)) : 0,
      },
      scenario,
    );
  const reserve = reserveAt(peakPhase, allocated);
  // torch reserved is a high-water mark over the run: the segments a phase reserved stay cached for the
  // next. A phase below the allocated peak can still reserve more (loading's fp32 copy, evaluation's
  // churn); only the phases around the step are looked at, the step's own reserve model stands.
  // Load, eval, generate, in that order, each written out; and the step's own when the allocated peak
  // is one of those (an FSDP rank building the whole model, an evaluation): the step's cache and FSDP's
  // stream pools are reserved over the run all the same.
  let reserved = reserve.reservedBytes;
  if (peakPhase === 'load' || peakPhase === 'eval' || peakPhase === 'generate')
    reserved = Math.max(reserved, reserveAt(stepPeak, peaks.phases[stepPeak]).reservedBytes);
  const { load: loadBytes, eval: evalBytes, generate: generateBytes } = peaks.phases;
  if (peakPhase !== 'load' && loadBytes !== undefined)
    reserved = Math.max(reserved, reserveAt('load', loadBytes).reservedBytes);
  if (peakPhase !== 'eval' && evalBytes !== undefined)
    reserved = Math.max(reserved, reserveAt('eval', evalBytes).reservedBytes);
  if (peakPhase !== 'generate' && generateBytes !== undefined)
    reserved = Math.max(reserved, reserveAt('generate', generateBytes).reservedBytes);
  // Outside torch: the CUDA context, NCCL, and paged optimizer states in CUDA managed memory.
  const device = reserved + (runtime.contextBytes + runtime.ncclBytes + states.pagedOptimizerBytes);
  const components = componentsAtPeak(states, strategy, temp, peaks, runtime, reserved);

  // Rounded field by field: a generic loop over the keys dominated the profile (bench:speed).
  const breakdown: Breakdown = {
    weightsBytes: Math.round(states.weightsBytes),
    gradientsBytes: Math.round(states.gradientsBytes),
    optimizerBytes: Math.round(states.optimizerBytes),
    pagedOptimizerBytes: Math.round(states.pagedOptimizerBytes),
    activationsSavedBytes: Math.round(act.savedBytes),
    activationsOffloadedBytes: Math.round(act.offloadedBytes),
    previousStepBytes: Math.round(act.previousStepBytes),
    activationsPerLayerPerTokenBytes: Math.round(act.perLayerBytes),
    lossResidentBytes: Math.round(act.lossResidentBytes),
    backwardTransientBytes: Math.round(temp.backwardTransientBytes),
    autocastCopyBytes: Math.round(temp.castBytes),
    dequantTransientBytes: Math.round(temp.dequantBytes),
    gatheredWeightsBytes: Math.round(strategy.gatheredBytes),
    fsdpRootUnitBytes: Math.round(strategy.rootBytes),
    fsdpRootGradientBytes: Math.round(strategy.rootGradBytes),
    commBufferBytes: Math.round(strategy.bucketBytes),
    optimizerTempBytes: Math.round(states.stepTempBytes),
    optimizerTempElementBytes: states.stepTempElementBytes,
    cublasWorkspaceBytes: Math.round(runtime.workspaceBytes),
    // The reserve model: the bytes that churn at the peak, and the share of them the allocator keeps.
    churnBytes: Math.round(reserve.churnBytes),
    allocatorFragmentationShare: reserve.share,
    reserveLossBytes: Math.round(reserve.lossBytes),
    reserveStepCacheBytes: Math.round(reserve.stepCacheBytes),
    reserveStatesBytes: Math.round(reserve.statesBytes),
    reserveStreamCacheBytes: Math.round(reserve.streamCacheBytes),
    variableLengthReserveBytes: Math.round(reserve.growthBytes),
    variableLengthNeedBytes: Math.round(reserve.needBytes),
    cudaContextBytes: Math.round(runtime.contextBytes),
    ncclBytes: Math.round(runtime.ncclBytes),
  };
  const phases = peaks.phases;
  // Evaluation's phases set after the step's four, not spread in: a spread made a slower object.
  const rounded: { -readonly [P in Phase]?: number } & Record<StepPhase, number> = {
    load: Math.round(phases.load),
    forward: Math.round(phases.forward),
    backward: Math.round(phases.backward),
    'optimizer-step': Math.round(phases['optimizer-step']),
  };
  if (phases.eval !== undefined) rounded.eval = Math.round(phases.eval);
  if (phases.generate !== undefined) rounded.generate = Math.round(phases.generate);
  const peak = {
    allocatedBytes: Math.round(allocated),
    reservedBytes: Math.round(reserved),
    deviceBytes: Math.round(device),
  };
  const result: Building = {
    perGpu: true,
    peak,
    upper: withReserveClimb(
      upperBound(scenario, peak, breakdown.pagedOptimizerBytes),
      peak,
      breakdown.variableLengthReserveBytes,
      breakdown.variableLengthNeedBytes,
    ),
    components: {
      weights: Math.round(components.weights),
      gradients: Math.round(components.gradients),
      optimizer: Math.round(components.optimizer),
      activations: Math.round(components.activations),
      runtime: Math.round(components.runtime),
    },
    peakPhase,
    reserveBasis: reserve.basis,
    phases: rounded,
    host: hostMemory(states.placed, strategy.gatheredBytes, act.offloadedBytes, gpus),
    params: {
      total: states.totalParams,
      trainable: Math.round(states.trainableParams),
      exactFromWeights: exact !== null,
    },
    breakdown,
    notes: estimateNotes(
      scenario,
      shape,
      plan,
      training,
      traits,
      states,
      strategy,
      exact,
      params.totalParams,
    ),
  };
  if (alternatives) {
    for (const older of olderInstallAlternatives(scenario)) {
      const other = estimateWith({ ...input, scenario: older, gpu: null, terms: false }, false);
      result.upper = higherUpper(result.upper, other.upper);
    }
  }
  if (input.gpu) {
    result.upper = climbOnCard(result.upper, usableBytes(input.gpu));
    const fit = fitOnGpu(
      result.peak.deviceBytes,
      result.upper.neededDeviceBytes,
      breakdown.pagedOptimizerBytes,
      result.host,
      input.gpu,
      input.marginFraction,
      gpus,
    );
    result.host = fit.host;
    result.fits = fit.fits;
  }
  // The terms only when asked (kept off the hot path of searches).
  if (records) {
    const phaseTerms: PhaseFigures<readonly TermBytes[]> = phaseTermLists(records, peaks);
    result.peakTerms = phaseTerms[peakPhase]!;
    result.phaseTerms = phaseTerms;
  }
  return result;
}
