/**
 * The words of a calibration's refusals and bounds (src/core/run-calibration.ts, calibrate.ts: data with
 * a code and raw figures), and the user error a refusal becomes: the reason, then what to do.
 */
import { CALIBRATION_WARMUP_STEPS, type CalibrationBound } from '../core/calibrate.js';
import { HeadroomUserError } from '../core/errors.js';
import { CALIBRATION_MIN_STEPS, type CalibrationRefusal } from '../core/run-calibration.js';
import { formatBytes } from '../core/units.js';

const FIELD_FLAG: Readonly<Record<string, string>> = {
  model: '--model',
  method: '--method',
  quantization: '--quantization',
  strategy: '--strategy',
};

const times = (x: number) => `${x.toFixed(2)}×`;
const tokens = (n: number) => `${n} token${n === 1 ? '' : 's'}`;

/** Why the run cannot be calibrated from, or the calibration not carried: one clause per refusal. */
export function refusalText(r: CalibrationRefusal, runId: number): string {
  switch (r.code) {
    case 'no-measured-peak':
      return `run ${runId} recorded no training step with memory figures, so there is nothing to calibrate against`;
    case 'too-few-steps': {
      const q = r.params;
      return `run ${runId} recorded ${q.steps} training step${q.steps === 1 ? '' : 's'}; a calibration needs at least ${q.needed}: the first step creates the optimizer states and warms the allocator up, so only the steps after it show the run's peak`;
    }
    case 'reserved-below-allocated': {
      const q = r.params;
      return `run ${runId} recorded a reserved peak (${formatBytes(q.reservedBytes)}) below its allocated peak (${formatBytes(q.allocatedBytes)}), which torch's caching allocator cannot show: the step records are not torch's max_memory_reserved / max_memory_allocated`;
    }
    case 'below-model-states': {
      const q = r.params;
      const parts = [
        `weights (${formatBytes(q.weightsBytes)})`,
        q.optimizerBytes > 0 ? `optimizer states (${formatBytes(q.optimizerBytes)})` : null,
        q.gradientBytes > 0 ? `gradients (${formatBytes(q.gradientBytes)})` : null,
      ].filter((x) => x !== null);
      return `run ${runId} peaked at ${formatBytes(q.measuredBytes)} allocated, below the ${formatBytes(q.stateBytes)} that the scenario's ${parts.join(' and ')} take on their own: the run is not this scenario, or it never reached its peak (no optimizer step yet)`;
    }
    case 'activations-beyond-setup': {
      const q = r.params;
      return `run ${runId} kept ${formatBytes(q.measuredBytes)} of activations at its peak (${times(q.factor)} the estimate's), more than this model keeps at this micro-batch and sequence in its most memory-hungry form (${formatBytes(q.ceilingBytes)}, ${times(q.maxFactor)}: fp32, eager attention, no checkpointing, the standard loss): the run used more tokens or another model than the scenario says`;
    }
    case 'setup-differs': {
      const q = r.params;
      return `the calibration of run ${runId} is for ${q.field} ${q.run}, not ${q.target}: a factor measured on one ${q.field} says nothing about the tensors of another`;
    }
    case 'tokens-beyond-range': {
      const q = r.params;
      return `the calibration of run ${runId} was measured at ${tokens(q.runTokens)} per micro-batch; ${tokens(q.targetTokens)} is beyond the ${q.maxRatio}× either way it is carried across`;
    }
  }
}

/** What to do about a refusal. `ref` is how the user named the run. */
export function refusalHint(r: CalibrationRefusal, ref: string): string {
  switch (r.code) {
    case 'no-measured-peak':
      return 'call headroom_probe.step(step, ...) after each training step (or use HeadroomCallback), then record a short run with headroom run';
    case 'too-few-steps':
      return `record a run of at least ${r.params.needed} steps (${CALIBRATION_MIN_STEPS + CALIBRATION_WARMUP_STEPS} or more give a steadier peak): headroom run --name ${ref} … -- python train.py --max-steps 8`;
    case 'reserved-below-allocated':
      return 'record the run with headroom run and headroom_probe.step(...), which read torch.cuda.max_memory_* each step';
    case 'below-model-states':
      return `check the scenario against the run (headroom runs show ${ref}); give the setup it ran with: headroom calibrate ${ref} --model ID --method … --quantization …, or record steps after the first optimizer step`;
    case 'activations-beyond-setup':
      return `give the micro-batch and sequence length the run really used: headroom calibrate ${ref} --micro-batch N --seq-len N`;
    case 'setup-differs':
      return `drop ${FIELD_FLAG[r.params.field] ?? r.params.field} to predict the run's own ${r.params.field}, or record and calibrate a short run of the setup you want`;
    case 'tokens-beyond-range':
      return 'record and calibrate a short run nearer the size you want, or drop --calibrated for the estimate alone';
  }
}

/** The refusals as one user error: every reason, then what to do about the first. */
export function refusalError(
  refusals: readonly CalibrationRefusal[],
  runId: number,
  ref: string,
  where: string,
): HeadroomUserError {
  const [first, ...rest] = refusals;
  if (!first) throw new RangeError('refusalError needs at least one refusal');
  return new HeadroomUserError({
    code: 'calibration-refused',
    where,
    message: [refusalText(first, runId), ...rest.map((r) => `also, ${refusalText(r, runId)}`)].join('; '),
    hint: refusalHint(first, ref),
  });
}

/** A bound that acted, for the terminal. */
export function boundText(b: CalibrationBound): string {
  switch (b.code) {
    case 'activation-floor': {
      const q = b.params;
      return `activations held at ${times(q.to)}, not the ${times(q.from)} measured: no run of this setup keeps less than every layer's input (${formatBytes(q.floorBytes)}, what full checkpointing keeps)`;
    }
    case 'allocator-floor':
      return `allocator held at 0×, not the ${times(b.params.from)} measured: the cache above allocated is never negative`;
    case 'non-torch-floor': {
      const q = b.params;
      return `outside torch held at the estimate's ${formatBytes(q.toBytes)}: nvidia-smi's highest sample was ${formatBytes(-q.fromBytes)} below torch's reserved peak, which nvidia-smi always contains, so the samples missed the peak`;
    }
  }
}
