/**
 * The calibration benchmark's arithmetic, apart from file reading so tests can check it: Headroom's own
 * H200 rows (bench/data/h200-*measurements.jsonl) joined into runs with all three levels, each run
 * calibrated as `headroom calibrate` would (its physical bounds included), and each calibration carried
 * to the other runs of the same setup at another micro-batch × sequence, as fit and plan --calibrated do.
 * The errors say how far a factor carries: what CALIBRATION_MAX_TOKEN_RATIO rests on.
 */
import {
  activationLimitScenarios,
  activationLimits,
  applyCalibration,
  calibrate,
  measuredActivationFactor,
} from '../src/core/calibrate.js';
import { findGpu } from '../src/core/catalog/index.js';
import { type Estimate, estimate } from '../src/core/estimate.js';
import { estimateError } from '../src/core/estimate-error.js';
import { resolveModelRef } from '../src/core/model-ref.js';
import { calibrationCarries, measurementRefusals, tokensPerMicroBatch } from '../src/core/run-calibration.js';
import { parseScenario, type Scenario } from '../src/core/scenario.js';
import type { AccuracyRow } from './accuracy-lib.js';

/** One measured run with its three levels (the harness writes one row per level: id + a|r|d). */
export interface MeasuredRun {
  readonly id: string;
  readonly scenario: Scenario;
  readonly allocatedBytes: number;
  readonly reservedBytes: number;
  readonly deviceBytes: number;
}

/** The runs whose three rows all measured a peak (out-of-memory rows are left out). */
export function measuredRuns(rows: readonly AccuracyRow[]): MeasuredRun[] {
  const byRun = new Map<string, { scenario: Record<string, unknown>; levels: Record<string, number> }>();
  for (const row of rows) {
    if (row.measured.outcome !== 'ok' || row.measured.peakBytes === null) continue;
    const id = row.id.replace(/[ard]$/, '');
    const run = byRun.get(id) ?? { scenario: row.scenario, levels: {} };
    run.levels[row.measured.metric] = row.measured.peakBytes;
    byRun.set(id, run);
  }
  const out: MeasuredRun[] = [];
  for (const [id, run] of byRun) {
    const { allocated, reserved, device } = run.levels;
    if (allocated === undefined || reserved === undefined || device === undefined) continue;
    out.push({
      id,
      scenario: parseScenario(run.scenario),
      allocatedBytes: allocated,
      reservedBytes: reserved,
      deviceBytes: device,
    });
  }
  return out;
}

/** A calibration on run `from` carried to run `to` of the same setup at another size. */
export interface Transfer {
  readonly from: string;
  readonly to: string;
  /** Tokens per micro-batch of `to` over `from`'s. */
  readonly ratio: number;
  readonly activationFactor: number | null;
  readonly allocatorFactor: number;
  /** (prediction − measured) / measured at each level, calibrated and from the estimate alone. */
  readonly calibrated: { readonly allocated: number; readonly reserved: number; readonly device: number };
  readonly estimated: { readonly allocated: number; readonly reserved: number; readonly device: number };
  /** Whether `headroom` carries it (calibrationCarries: same setup, within the token ratio). */
  readonly carried: boolean;
}

/** The shape of a run's model, by its catalog id. */
function shapeOf(run: MeasuredRun) {
  const model = resolveModelRef(run.scenario.model);
  if (!model) throw new Error(`${run.id}: ${String(run.scenario.model)} is not a catalog model`);
  return model.shape;
}

/** Estimates on the H200 the rows were measured on. */
function estimator(run: MeasuredRun): (s: Scenario) => Estimate {
  const shape = shapeOf(run);
  const gpu = findGpu('h200-sxm') ?? null;
  return (scenario) => estimate({ scenario, shape, gpu });
}

/** The calibration of one measured run, as `headroom calibrate` makes it. */
export function calibrationOfRun(run: MeasuredRun) {
  const estimateOf = estimator(run);
  const e = estimateOf(run.scenario);
  const variants = activationLimitScenarios(run.scenario);
  const limits = activationLimits(estimateOf(variants.floor), estimateOf(variants.ceiling), e.peakPhase);
  const measured = {
    allocatedBytes: run.allocatedBytes,
    reservedBytes: run.reservedBytes,
    deviceBytes: run.deviceBytes,
  };
  return {
    estimate: e,
    raw: measuredActivationFactor(e, measured),
    refusals: measurementRefusals(e, measured, limits),
    calibration: calibrate(e, measured, limits),
  };
}

/** The same setup but for its micro-batch and sequence length. */
const sameSetup = (a: Scenario, b: Scenario) =>
  JSON.stringify({ ...a, microBatchSize: 0, seqLen: 0 }) ===
  JSON.stringify({ ...b, microBatchSize: 0, seqLen: 0 });

/** Every ordered pair of runs of one setup at different sizes: calibrate on the first, predict the second. */
export function transfers(runs: readonly MeasuredRun[]): Transfer[] {
  const out: Transfer[] = [];
  for (const from of runs) {
    const { calibration } = calibrationOfRun(from);
    for (const to of runs) {
      if (to === from || !sameSetup(from.scenario, to.scenario)) continue;
      const target = estimator(to)(to.scenario);
      const p = applyCalibration(target, calibration);
      const err = (x: number, m: number) => estimateError(x, m)!;
      out.push({
        from: from.id,
        to: to.id,
        ratio: tokensPerMicroBatch(to.scenario) / tokensPerMicroBatch(from.scenario),
        activationFactor: calibration.activationFactor,
        allocatorFactor: calibration.allocatorFactor,
        calibrated: {
          allocated: err(p.allocatedBytes, to.allocatedBytes),
          reserved: err(p.reservedBytes, to.reservedBytes),
          device: err(p.deviceBytes, to.deviceBytes),
        },
        estimated: {
          allocated: err(target.peak.allocatedBytes, to.allocatedBytes),
          reserved: err(target.peak.reservedBytes, to.reservedBytes),
          device: err(target.peak.deviceBytes, to.deviceBytes),
        },
        carried: calibrationCarries(from.scenario, to.scenario).length === 0,
      });
    }
  }
  return out;
}

const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)} %`;

/** The report: every transfer, then the worst error by token ratio, and each run's own factors. */
export function renderCalibrationReport(runs: readonly MeasuredRun[], list: readonly Transfer[]): string {
  const lines: string[] = [];
  lines.push('# Calibration transfer on the H200 rows', '');
  lines.push(
    'Each run with all three levels measured (bench/data/h200-*measurements.jsonl) is calibrated as `headroom calibrate` does, bounds included, and its factors carried to every other run of the same setup at another micro-batch × sequence, as `fit`/`plan --calibrated` do. Errors are (prediction − measured) / measured: negative means the prediction was too low.',
    '',
  );
  lines.push(
    '| from → to | tokens ratio | activation × | allocator × | allocated | reserved | nvidia-smi | estimate alone (nvidia-smi) | carried |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  const sorted = [...list].sort((a, b) => a.ratio - b.ratio || a.from.localeCompare(b.from));
  for (const t of sorted)
    lines.push(
      `| ${t.from} → ${t.to} | ${t.ratio.toFixed(2)} | ${t.activationFactor === null ? '—' : t.activationFactor.toFixed(3)} | ${t.allocatorFactor.toFixed(2)} | ${pct(t.calibrated.allocated)} | ${pct(t.calibrated.reserved)} | ${pct(t.calibrated.device)} | ${pct(t.estimated.device)} | ${t.carried ? 'yes' : 'no'} |`,
    );
  lines.push('', '## Largest error by token ratio', '');
  lines.push('| tokens ratio | pairs | allocated | reserved | nvidia-smi | estimate alone (nvidia-smi) |');
  lines.push('|---|---:|---:|---:|---:|---:|');
  const worst = (xs: readonly number[]) => xs.reduce((m, x) => (Math.abs(x) > Math.abs(m) ? x : m), 0);
  const ratios = [...new Set(sorted.map((t) => t.ratio))];
  for (const r of ratios) {
    const at = sorted.filter((t) => t.ratio === r);
    lines.push(
      `| ${r.toFixed(2)} | ${at.length} | ${pct(worst(at.map((t) => t.calibrated.allocated)))} | ${pct(worst(at.map((t) => t.calibrated.reserved)))} | ${pct(worst(at.map((t) => t.calibrated.device)))} | ${pct(worst(at.map((t) => t.estimated.device)))} |`,
    );
  }
  lines.push('', '## Each run’s own factors and bounds', '');
  lines.push('| run | peak phase | activation × (measured) | activation range | bounds | refused |');
  lines.push('|---|---|---:|---|---|---|');
  for (const run of runs) {
    const { estimate: e, raw, refusals, calibration: c } = calibrationOfRun(run);
    const range = c.activationRange;
    lines.push(
      `| ${run.id} | ${e.peakPhase} | ${raw === null ? '—' : raw.toFixed(3)} | ${range ? `${range.min.toFixed(3)}–${range.max === null ? '∞' : range.max.toFixed(2)}` : '—'} | ${c.bounds.map((b) => b.code).join(', ') || 'none'} | ${refusals.map((r) => r.code).join(', ') || 'no'} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
