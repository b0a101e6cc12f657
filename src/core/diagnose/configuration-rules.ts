/**
 * Step 2 of the troubleshooting order: the configuration. The phase points at the part of memory that
 * did not fit — loading → weights, forward/backward → activations, optimizer step → optimizer states,
 * one rank failing → imbalance — and, when a scenario is known, each change carries the estimator's figure.
 */
import { estimateError, estimateErrorText } from '../estimate-error.js';
import { foreignProcesses, type OomPhase } from '../oom/index.js';
import type { Evidence, Finding, Severity } from './finding.js';
import { priceRemedies, type RemediedPart } from './remedies.js';
import { bytes, ev, percent, type RuleInput, say } from './rule-kit.js';

const PART_OF: Partial<Record<OomPhase, RemediedPart>> = {
  load: 'weights',
  forward: 'activations',
  backward: 'activations',
  'optimizer-step': 'optimizer',
};

function phaseEvidence(input: RuleInput): Evidence[] {
  const p = input.phase;
  const c = input.catalog;
  const how = p.reason ? c.words.basisReason(c.bases[p.basis], c.phaseReasons[p.reason]) : c.bases[p.basis];
  const out = [ev(input, 'phase', c.words.phaseValue(c.phases[p.phase], how), p.quote)];
  const o = input.match?.oom;
  if (p.reason === 'card-full' && o && o.allocatedByTorchBytes !== null && o.totalBytes !== null) {
    out.push(
      ev(
        input,
        'torch-allocated',
        c.words.partOfWhole(
          bytes(o.allocatedByTorchBytes),
          bytes(o.totalBytes),
          percent(o.allocatedByTorchBytes, o.totalBytes),
        ),
      ),
    );
    if (o.reservedUnallocatedBytes !== null)
      out.push(ev(input, 'reserved-unallocated', bytes(o.reservedUnallocatedBytes)));
  }
  return out;
}

/** The scenario's estimate against the card, and the part the phase points at. */
function estimateEvidence(input: RuleInput, part: RemediedPart | null): Evidence[] {
  const base = input.baseline;
  if (!base) return [];
  const c = input.catalog;
  const device = base.peak.deviceBytes;
  const cap = input.capacityBytes;
  const value =
    cap === null
      ? bytes(device)
      : c.words.clause(
          `${bytes(device)} / ${bytes(cap)}`,
          device <= cap
            ? c.words.estimateFits(bytes(cap - device))
            : c.words.estimateShort(bytes(device - cap)),
        );
  const out = [ev(input, 'estimate-peak', value)];
  // A recorded run measured its own peak: the estimate against it, in the one sign convention.
  const trained = (input.timeline?.steps ?? []).filter((s) => s.phase === 'train');
  const measured = trained.length > 0 ? Math.max(...trained.map((s) => s.peakAllocatedBytes)) : null;
  const error = estimateError(base.peak.allocatedBytes, measured);
  if (measured !== null && error !== null)
    out.push(
      ev(
        input,
        'estimate-error',
        c.words.estimateAgainst(
          estimateErrorText(error, c),
          bytes(base.peak.allocatedBytes),
          bytes(measured),
        ),
      ),
    );
  if (part) {
    const size = base.components[part];
    out.push(
      ev(
        input,
        'estimate-part',
        c.words.share(`${c.words.parts[part]} ${bytes(size)}`, percent(size, device)),
      ),
    );
  }
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
  return part && input.scenario
    ? priceRemedies(part, input.scenario, input.capacityBytes, input.catalog)
    : undefined;
}

function imbalance(input: RuleInput): Finding {
  const evidence = phaseEvidence(input);
  if (input.match) {
    for (const p of foreignProcesses(input.match))
      evidence.push(ev(input, 'process', input.catalog.words.process(String(p.pid), null, bytes(p.bytes))));
    if (input.match.rank !== null)
      evidence.push(ev(input, 'rank', String(input.match.rank), input.match.quote));
  }
  return say(input, 'rank-imbalance', 'warn', {}, evidence);
}

/** The configuration finding for the phase the failure happened in. */
export function configurationFindings(input: RuleInput): Finding[] {
  const phase = input.phase.phase;
  const part = PART_OF[phase] ?? null;
  switch (phase) {
    case 'load':
      return [
        say(
          input,
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
          input,
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
          input,
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
        say(input, 'evaluation-memory', 'warn', {}, [
          ...phaseEvidence(input),
          ...estimateEvidence(input, null),
        ]),
      ];
    case 'checkpoint-save':
      return [
        say(input, 'checkpoint-save', 'warn', {}, [
          ...phaseEvidence(input),
          ...estimateEvidence(input, null),
        ]),
      ];
    case 'mid-run':
      return [say(input, 'mid-run', 'warn', {}, [...phaseEvidence(input), ...estimateEvidence(input, null)])];
    case 'unknown': {
      // Nothing failed (a recorded run without an error) or nothing to read and no setup: no phase to explain.
      if (!input.match && (!input.baseline || !input.hasText)) return [];
      const largest = largestPart(input);
      return [
        say(
          input,
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
