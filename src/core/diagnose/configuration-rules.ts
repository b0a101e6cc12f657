/**
 * Step 2 of the troubleshooting order: the configuration. The phase points at the part of memory that
 * did not fit — loading → weights, forward/backward → activations, optimizer step → optimizer states,
 * one rank failing → imbalance — and, when a scenario is known, each change carries the estimator's figure.
 */
import { estimateError, readEstimateError } from '../estimate-error.js';
import { foreignProcesses, type OomPhase } from '../oom/index.js';
import type { Evidence } from './evidence.js';
import type { Finding, Severity } from './finding.js';
import { priceRemedies, type RemediedPart } from './remedies.js';
import { bytes, count, ev, type RuleInput, say, value } from './rule-kit.js';
import { type TimelineColumns, TRAIN, timelineColumns } from './timeline.js';

const PART_OF: Partial<Record<OomPhase, RemediedPart>> = {
  load: 'weights',
  forward: 'activations',
  backward: 'activations',
  'optimizer-step': 'optimizer',
};

function phaseEvidence(input: RuleInput): Evidence[] {
  const p = input.phase;
  const out = [ev('phase', value('phase', { phase: p.phase, basis: p.basis, reason: p.reason }), p.quote)];
  const o = input.match?.oom;
  if (p.reason === 'card-full' && o && o.allocatedByTorchBytes !== null && o.totalBytes !== null) {
    out.push(
      ev(
        'torch-allocated',
        value('part-of-whole', { partBytes: o.allocatedByTorchBytes, wholeBytes: o.totalBytes }),
      ),
    );
    if (o.reservedUnallocatedBytes !== null)
      out.push(ev('reserved-unallocated', bytes(o.reservedUnallocatedBytes)));
  }
  return out;
}

/** The highest allocated peak of the training steps; null when there is none. */
function trainedPeak(c: TimelineColumns): number | null {
  let best = Number.NEGATIVE_INFINITY;
  let any = false;
  for (let i = 0; i < c.length; i++) {
    if (c.phase[i] !== TRAIN) continue;
    any = true;
    if (c.peakAllocatedBytes[i]! > best) best = c.peakAllocatedBytes[i]!;
  }
  return any ? best : null;
}

/** The scenario's estimate against the card, and the part the phase points at. */
function estimateEvidence(input: RuleInput, part: RemediedPart | null): Evidence[] {
  const base = input.baseline;
  if (!base) return [];
  const device = base.peak.deviceBytes;
  const cap = input.capacityBytes;
  const out = [
    ev(
      'estimate-peak',
      cap === null ? bytes(device) : value('estimate-on-card', { estimateBytes: device, cardBytes: cap }),
    ),
  ];
  // A recorded run measured its own peak: the estimate against it, in the one sign convention.
  const measured = input.timeline ? trainedPeak(timelineColumns(input.timeline)) : null;
  const error = estimateError(base.peak.allocatedBytes, measured);
  if (measured !== null && error !== null)
    out.push(
      ev(
        'estimate-error',
        value('estimate-against-run', {
          ...readEstimateError(error),
          estimatedBytes: base.peak.allocatedBytes,
          measuredBytes: measured,
        }),
      ),
    );
  if (part)
    out.push(
      ev('estimate-part', value('part-of-peak', { part, bytes: base.components[part], peakBytes: device })),
    );
  return out;
}

function severityFor(input: RuleInput): Severity {
  const base = input.baseline;
  if (base && input.capacityBytes !== null)
    return base.peak.deviceBytes > input.capacityBytes ? 'error' : 'warn';
  return 'warn';
}

/** The part the estimate puts most memory in (for an unknown phase). */
function largestPart(input: RuleInput): RemediedPart | null {
  const base = input.baseline;
  if (!base) return null;
  const parts: RemediedPart[] = ['activations', 'weights', 'optimizer'];
  return parts.reduce((best, p) => (base.components[p] > base.components[best] ? p : best), parts[0]!);
}

function remediesFor(input: RuleInput, part: RemediedPart | null) {
  return part && input.scenario ? priceRemedies(part, input.scenario, input.capacityBytes) : undefined;
}

function imbalance(input: RuleInput): Finding {
  const evidence = phaseEvidence(input);
  if (input.match) {
    for (const p of foreignProcesses(input.match))
      evidence.push(ev('process', value('process', { pid: p.pid, name: null, bytes: p.bytes })));
    if (input.match.rank !== null) evidence.push(ev('rank', count(input.match.rank), input.match.quote));
  }
  return say(
    'rank-imbalance',
    'warn',
    { rank: input.match?.rank ?? null, reason: null, aboveBytes: null, contexts: null },
    evidence,
  );
}

/** The configuration finding for the phase the failure happened in. */
export function configurationFindings(input: RuleInput): Finding[] {
  const phase = input.phase.phase;
  const part = PART_OF[phase] ?? null;
  switch (phase) {
    case 'load':
      return [
        say(
          'weights-at-load',
          severityFor(input),
          {},
          [...phaseEvidence(input), ...estimateEvidence(input, part)],
          remediesFor(input, part),
        ),
      ];
    case 'forward':
    case 'backward':
      return [
        say(
          'activations',
          severityFor(input),
          { phase },
          [...phaseEvidence(input), ...estimateEvidence(input, part)],
          remediesFor(input, part),
        ),
      ];
    case 'optimizer-step':
      return [
        say(
          'optimizer-states',
          severityFor(input),
          {},
          [...phaseEvidence(input), ...estimateEvidence(input, part)],
          remediesFor(input, part),
        ),
      ];
    case 'multi-gpu-imbalance':
      return [imbalance(input)];
    case 'evaluation':
      return [
        say('evaluation-memory', 'warn', {}, [...phaseEvidence(input), ...estimateEvidence(input, null)]),
      ];
    case 'checkpoint-save':
      return [
        say('checkpoint-save', 'warn', {}, [...phaseEvidence(input), ...estimateEvidence(input, null)]),
      ];
    case 'mid-run':
      return [say('mid-run', 'warn', {}, [...phaseEvidence(input), ...estimateEvidence(input, null)])];
    case 'unknown': {
      // Nothing failed (a recorded run without an error) or nothing to read and no setup: no phase to explain.
      if (!input.match && (!input.baseline || !input.hasText)) return [];
      const largest = largestPart(input);
      return [
        say(
          'phase-unknown',
          input.baseline ? severityFor(input) : 'info',
          {},
          estimateEvidence(input, largest),
          remediesFor(input, largest),
        ),
      ];
    }
    case 'other-process':
    case 'host-memory':
      return [];
  }
}
