/**
 * One slice of bench:allocator's sweep, run in its own process: the cases named on the command line
 * (indices into sweepCases()), each with the default allocator and with expandable segments, printed
 * as one JSON line each (the climb at REPORTED_STEPS only, to keep the stored runs small, and the least it
 * needs under a memory limit).
 */
import type { LengthComparison } from '../src/core/allocator/replay.js';
import { REPORTED_STEPS, runSweepCase, sweepCases, sweepPattern } from '../src/core/allocator/sweep.js';
import { resolveModelRef } from '../src/core/model-ref.js';

const cases = sweepCases();
const brief = (r: LengthComparison) => ({
  churnBytes: r.churnBytes,
  fixedShare: r.fixedShare,
  allocatedDifferenceBytes: r.allocatedDifferenceBytes,
  extraAt: REPORTED_STEPS.map((step) => r.extraShareByStep[step - 1]!),
  pressureExtraShare: r.pressureExtraShare,
});
for (const arg of process.argv.slice(2)) {
  const index = Number(arg);
  const c = cases[index]!;
  const shape = resolveModelRef(c.model)!.shape;
  // The loss's tensors at the cap: what the logits hold from forward into backward, and their gradients.
  const pattern = sweepPattern(shape, c);
  const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
  const lossBytes = (sum(pattern.lossSavedPerToken) + sum(pattern.lossBackwardPerToken)) * c.batch * c.cap;
  // Under a memory limit too, with either allocator: what a card without room for the climb must hold.
  const plain = brief(runSweepCase(shape, c, false));
  const expandable = brief(runSweepCase(shape, c, true));
  console.log(JSON.stringify({ index, case: c, lossBytes, plain, expandable }));
}
