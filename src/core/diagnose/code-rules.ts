/**
 * Step 3 of the troubleshooting order, from the message alone: a large "reserved but unallocated" is
 * memory the allocator holds and cannot hand out — fragmentation (data/docs/MONITORING.md rule 1:
 * "R ≥ A and R large → fragmentation; suggest expandable_segments:True"). The step-timeline rules are in
 * timeline-rules.ts.
 */
import { cachedFreeBytes } from '../oom/index.js';
import type { Finding } from './finding.js';
import { bytes, ev, type RuleInput, say, value } from './rule-kit.js';

/** Cached-but-unusable memory counts as fragmentation from this share of the card on… */
export const FRAGMENTED_MIN_SHARE = 0.02;
/** …when it could have held the request, or is this large a share of the card by itself. */
export const FRAGMENTED_LARGE_SHARE = 0.1;

/** Fragmentation read from the allocator's figures. */
export function messageCodeFindings(input: RuleInput): Finding[] {
  const m = input.match;
  if (!m || (m.oom.family !== 'torch-v1' && m.oom.family !== 'torch-v2')) return [];
  const o = m.oom;
  const cache = cachedFreeBytes(m);
  const T = o.totalBytes;
  if (cache === null || T === null || cache < FRAGMENTED_MIN_SHARE * T) return [];
  const A = o.requestedBytes;
  if (A !== null && cache < A && cache < FRAGMENTED_LARGE_SHARE * T) return [];
  const evidence = [
    o.reservedUnallocatedBytes !== null
      ? ev('reserved-unallocated', value('share-of-card', { bytes: cache, cardBytes: T }))
      : ev(
          'reserved-unallocated',
          m.layout === 'v1-cached'
            ? value('cached-legacy', { bytes: cache })
            : value('reserved-minus-allocated', {
                cacheBytes: cache,
                reservedBytes: o.reservedTotalBytes ?? 0,
                allocatedBytes: o.allocatedByTorchBytes ?? 0,
              }),
        ),
  ];
  if (A !== null) {
    evidence.push(ev('requested', bytes(A)));
    if (o.freeBytes !== null)
      evidence.push(
        ev(
          'free-plus-cache',
          value('free-plus-cache', { freeBytes: o.freeBytes, cacheBytes: cache, requestedBytes: A }),
        ),
      );
  }
  return [
    say('fragmentation', 'warn', { cachedBytes: cache, legacy: m.oom.family === 'torch-v1' }, evidence),
  ];
}
