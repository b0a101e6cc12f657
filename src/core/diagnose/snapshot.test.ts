/** diagnose RUN's reading of a run's allocator snapshot: the moment of failure, its parts, the estimate's wrong part. */
import { describe, expect, it } from 'vitest';
import { shapeFromConfig } from '../architecture.js';
import { findModel } from '../catalog/index.js';
import { estimate } from '../estimate.js';
import { parseScenario } from '../scenario.js';
import { analyseSnapshot } from '../snapshot/analyse.js';
import { allocatedParts } from '../snapshot/compare.js';
import { py, snapshotBytes } from '../test-helpers/snapshot-builder.js';
import { explainSnapshot, failureMoment } from './snapshot.js';

const GIB = 2 ** 30;
const W = [py('from_pretrained', '/sp/transformers/modeling_utils.py')];
const A = [py('forward', '/sp/torch/nn/modules/linear.py')];
const source = { path: '/r/memory-snapshot.pickle', rank: 0, bytes: 1, reason: 'oom' as const };

/** Weights of `w` GiB, then activations of `a` GiB, then (when `oom`) a failed request of 2 GiB. */
function report(w: number, a: number, oom: boolean) {
  return analyseSnapshot(
    snapshotBytes({
      segments: [
        {
          address: 0,
          blocks: [
            { size: w * GIB, frames: W },
            { size: a * GIB, frames: A },
          ],
        },
      ],
      traces: [
        [
          { action: 'alloc', addr: 0, size: w * GIB, frames: W },
          { action: 'alloc', addr: w * GIB, size: a * GIB, frames: A },
          ...(oom ? [{ action: 'oom', size: 2 * GIB, deviceFree: 0, frames: A }] : []),
        ],
      ],
    }),
  );
}

describe('failureMoment', () => {
  it("reads the trace's OOM event first, then the snapshot written on the OOM, then the trace's peak", () => {
    expect(failureMoment(report(4, 6, true), 'oom')).toMatchObject({
      moment: 'oom-event',
      requestedBytes: 2 * GIB,
    });
    expect(failureMoment(report(4, 6, false), 'oom').moment).toBe('oom-snapshot');
    expect(failureMoment(report(4, 6, false), 'exit').moment).toBe('trace-peak');
  });
});

describe('explainSnapshot', () => {
  it('gives the live parts and the largest, without an estimate nothing more', () => {
    const e = explainSnapshot(report(4, 6, true), source, null);
    expect([e.liveBytes, e.parts.weights, e.parts.activations, e.unattributedBytes]).toEqual([
      10 * GIB,
      4 * GIB,
      6 * GIB,
      0,
    ]);
    expect(e.findings).toEqual([
      {
        code: 'live-parts',
        params: {
          moment: 'oom-event',
          liveBytes: 10 * GIB,
          part: 'activations',
          partBytes: 6 * GIB,
          share: 0.6,
          requestedBytes: 2 * GIB,
        },
      },
    ]);
    expect(e.sites.map((s) => [s.part, s.bytes])).toEqual([
      ['activations', 6 * GIB],
      ['weights', 4 * GIB],
    ]);
    expect(e.comparison).toBeNull();
  });

  it("with the run's estimate, names the part it got wrong at that moment", () => {
    const est = estimate({
      scenario: parseScenario({ model: 'llama-3.2-1b', method: 'lora', microBatchSize: 4, seqLen: 1024 }),
      shape: shapeFromConfig(findModel('llama-3.2-1b')!),
    });
    const parts = allocatedParts(est);
    const gib = (b: number) => b / GIB;
    // The estimate's weights, and ten times its activations.
    const e = explainSnapshot(report(gib(parts.weights), gib(10 * parts.activations), true), source, est);
    const low = e.findings.find((f) => f.code === 'estimate-part-low');
    expect(low?.params).toEqual({
      part: 'activations',
      estimateBytes: parts.activations,
      measuredBytes: 10 * parts.activations,
      error: -0.9,
    });
    expect(e.findings.some((f) => f.code === 'estimate-part-low' && f.params.part === 'weights')).toBe(false);
    expect(e.comparison?.basis).toBe('oom');
  });
});
