/**
 * `headroom diagnose` as a pure function: a log or traceback, and for a recorded run its step timeline
 * and nvidia-smi samples, in; `{ oom, phase, findings }` out. The message is parsed (../oom), the phase
 * read, and the rules run in the fixed troubleshooting order: environment, configuration, code.
 */

import { withBitsandbytes } from '../bitsandbytes.js';
import type { GpuSpec } from '../catalog/gpu-spec.js';
import { usableBytes } from '../margin.js';
import {
  detectPhase,
  emptyOom,
  findLookAlikeErrors,
  findOomMessages,
  normalizeLog,
  type OomMatch,
  type OomMessage,
  type OomPhase,
  type PhaseReading,
  primaryOom,
} from '../oom/index.js';
import type { RankRecord } from '../run-record.js';
import { fusesInTorch, type Scenario } from '../scenario.js';
import { cardFindings } from './card-rules.js';
import { messageCodeFindings } from './code-rules.js';
import { configurationFindings } from './configuration-rules.js';
import { environmentFindings } from './environment-rules.js';
import { type Finding, sortFindings } from './finding.js';
import { baselineEstimate, type ScenarioContext } from './remedies.js';
import type { RuleInput } from './rule-kit.js';
import { type RunSamples, type SampleColumns, sampleColumns } from './samples.js';
import { type Timeline, TRAIN, timelineColumns } from './timeline.js';
import { timelineFindings } from './timeline-rules.js';

export interface DiagnoseInput {
  /** A log file's text or a pasted traceback. */
  readonly text?: string | null;
  /** The run's memory step by step (from the run ledger: diagnoseRun in src/io/diagnose-run.ts). */
  readonly timeline?: Timeline | null;
  /** The run's ranks as recorded (RunRecord.ranks): which one holds more, and why. */
  readonly ranks?: readonly RankRecord[] | null;
  /**
   * The run's nvidia-smi samples: other processes, leftovers, memory no process accounts for. As records
   * (tests) or columns (a recorded run's, read from the ledger: samples.ts).
   */
  readonly samples?: RunSamples | SampleColumns | null;
  /** The card's memory.total as recorded, when the message does not give it (before the scenario's --gpu). */
  readonly capacityBytes?: number | null;
  /** The setup, when known: remedies then carry the estimator's figures. */
  readonly scenario?: ScenarioContext | null;
  /**
   * The installed bitsandbytes (the probe's start record): it decides whether a 4-bit base keeps its
   * layers' inputs, whatever the scenario says.
   */
  readonly bitsandbytes?: string | null;
  /** The card, when known without a scenario (--gpu): the capacity when the message does not give one. */
  readonly gpu?: GpuSpec | null;
}

/**
 * The diagnosis as data: the message in the corpus's shape, the phase, the findings in order (each a
 * code with raw params; `headroom diagnose --json` adds their words in the language asked for).
 */
export interface Diagnosis {
  readonly oom: OomMessage;
  readonly phase: OomPhase;
  readonly findings: readonly Finding[];
}

/** A diagnosis with how the text was read (for renderers; not part of the JSON contract). */
export interface DiagnosisResult extends Diagnosis {
  readonly reading: {
    readonly match: OomMatch | null;
    readonly matches: readonly OomMatch[];
    readonly lookAlike: OomMatch | null;
    readonly phase: PhaseReading;
  };
}

/** Training steps a recorded run completes before a failure that no frame or log line places: mid-run. */
export const MID_RUN_MIN_STEPS = 8;

/**
 * A recorded run that completed many training steps before it failed failed mid-run, when the text
 * itself does not say where (only the allocator's figures, or nothing): the setup fit, then something
 * changed — which the timeline rules then name (a leak, fragmentation, a longer batch).
 */
function recordedPhase(
  reading: PhaseReading,
  timeline: Timeline | null,
  match: OomMatch | null,
): PhaseReading {
  if (!match || !timeline || (reading.basis !== 'numbers' && reading.basis !== 'none')) return reading;
  // Distinct training steps, counted up to MID_RUN_MIN_STEPS (no set of every step of a long run).
  const c = timelineColumns(timeline);
  const trained = new Set<number>();
  for (let i = 0; i < c.length && trained.size < MID_RUN_MIN_STEPS; i++)
    if (c.phase[i] === TRAIN) trained.add(c.step[i]!);
  if (trained.size < MID_RUN_MIN_STEPS) return reading;
  return { phase: 'mid-run', basis: 'steps', quote: null, line: null, reason: 'steps-before-failure' };
}

/** Findings of the same code (from the message and from the timeline) become one, evidence joined. */
function merge(findings: readonly Finding[]): Finding[] {
  const order: Record<string, number> = { error: 0, warn: 1, info: 2 };
  const byCode = new Map<string, Finding>();
  for (const f of findings) {
    const prev = byCode.get(f.code);
    if (!prev) {
      byCode.set(f.code, f);
      continue;
    }
    const remedies = prev.remedies ?? f.remedies;
    // The message says a rank holds more; the run's ranks say which and why: their figures win.
    const params =
      prev.code === 'rank-imbalance' && f.code === 'rank-imbalance' && prev.params.reason === null
        ? { ...f.params, rank: f.params.rank ?? prev.params.rank }
        : prev.params;
    byCode.set(f.code, {
      ...prev,
      params: params as never,
      severity: order[f.severity]! < order[prev.severity]! ? f.severity : prev.severity,
      evidence: [...prev.evidence, ...f.evidence],
      ...(remedies ? { remedies } : {}),
    });
  }
  return [...byCode.values()];
}

/** torch's optimizer kernels as their tracebacks name them (torch/optim/adamw.py, sgd.py). */
const FOREACH_FRAME = /\b_multi_tensor_(?:adamw?|sgd)\b/;
const FUSED_FRAME = /\b_fused_(?:adamw?|sgd)\b/;

/**
 * The scenario with the optimizer kernel the traceback shows, whatever the scenario assumed: a frame in
 * `_multi_tensor_adamw` is the foreach kernel (with its state-sized temporary), `_fused_adamw` the fused
 * one. Only for torch's AdamW and SGD; anything else is left as it is.
 */
export function withOptimizerKernel(scenario: Scenario, text: string): Scenario {
  if (!fusesInTorch(scenario.optimizer)) return scenario;
  if (scenario.fusedOptimizer && FOREACH_FRAME.test(text)) {
    const { fusedOptimizer: _fused, ...foreach } = scenario;
    return foreach;
  }
  if (!scenario.fusedOptimizer && FUSED_FRAME.test(text)) return { ...scenario, fusedOptimizer: true };
  return scenario;
}

/**
 * Diagnoses an out-of-memory failure.
 * @example diagnose({ text: traceback, scenario: { scenario, shape, gpu } }).findings[0].code
 */
export function diagnose(input: DiagnoseInput): DiagnosisResult {
  const text = input.text ?? '';
  const lines = normalizeLog(text);
  const matches = findOomMessages(text);
  const match = primaryOom(matches) ?? null;
  const lookAlike = match ? null : (findLookAlikeErrors(text)[0] ?? null);
  const phase = recordedPhase(detectPhase(text, match, matches), input.timeline ?? null, match);
  const bitsandbytes = input.bitsandbytes ?? null;
  const given = input.scenario ?? null;
  const scenario = given
    ? {
        ...given,
        scenario: withOptimizerKernel(withBitsandbytes(given.scenario, bitsandbytes).scenario, text),
      }
    : null;
  const gpu = scenario?.gpu ?? input.gpu ?? null;
  const ruleInput: RuleInput = {
    lines,
    match,
    matches,
    lookAlike,
    phase,
    timeline: input.timeline ?? null,
    ranks: input.ranks ?? [],
    samples: input.samples ? sampleColumns(input.samples) : null,
    hasText: text.trim() !== '',
    scenario,
    baseline: scenario ? baselineEstimate(scenario) : null,
    bitsandbytes,
    capacityBytes: match?.oom.totalBytes ?? input.capacityBytes ?? (gpu ? usableBytes(gpu) : null),
    gpu,
  };
  const findings = sortFindings(
    merge([
      ...environmentFindings(ruleInput),
      ...cardFindings(ruleInput),
      ...configurationFindings(ruleInput),
      ...messageCodeFindings(ruleInput),
      ...timelineFindings(ruleInput),
    ]),
  );
  return {
    oom: match?.oom ?? lookAlike?.oom ?? emptyOom('none'),
    phase: phase.phase,
    findings,
    reading: { match, matches, lookAlike, phase },
  };
}
