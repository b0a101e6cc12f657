/** What grew between two snapshots, by fact, part and site. */
import { describe, expect, it } from 'vitest';
import { py, snapshotBytes } from '../test-helpers/snapshot-builder.js';
import { analyseSnapshot } from './analyse.js';
import { diffSnapshots } from './diff.js';

const MIB = 2 ** 20;
const fwd = [py('forward', '/sp/m.py', 7)];
const load = [py('from_pretrained', '/sp/transformers/modeling_utils.py', 1)];
const step = [py('_init_group', '/sp/torch/optim/adam.py', 3)];

describe('diffSnapshots', () => {
  const before = analyseSnapshot(
    snapshotBytes({
      segments: [
        {
          address: 0,
          blocks: [
            { size: 8 * MIB, frames: load },
            { size: 2 * MIB, frames: fwd },
          ],
        },
      ],
    }),
    { top: 100 },
  );
  const after = analyseSnapshot(
    snapshotBytes({
      segments: [
        {
          address: 0,
          blocks: [
            { size: 8 * MIB, frames: load },
            { size: 6 * MIB, frames: fwd },
            { size: 4 * MIB, frames: step },
            { size: MIB, state: 'inactive' },
          ],
        },
      ],
    }),
    { top: 100 },
  );
  const d = diffSnapshots(before, after);

  it('compares the states (no traces) and the allocator totals', () => {
    expect(d.basis).toBe('end-state');
    expect(d.facts.find((f) => f.key === 'allocatedBytes')).toEqual({
      key: 'allocatedBytes',
      a: 10 * MIB,
      b: 18 * MIB,
      delta: 8 * MIB,
    });
    expect(d.facts.find((f) => f.key === 'inactiveBytes')?.delta).toBe(MIB);
  });

  it('says which parts grew', () => {
    expect(Object.fromEntries(d.parts.map((p) => [p.key, p.delta / MIB]))).toEqual({
      weights: 0,
      gradients: 0,
      optimizer: 4,
      activations: 4,
      runtime: 0,
      unattributed: 0,
    });
  });

  it('lists the sites that changed, largest first, and leaves out those that did not', () => {
    expect(d.sites.map((s) => [s.frame?.name, s.a / MIB, s.b / MIB, s.delta / MIB])).toEqual([
      ['forward', 2, 6, 4],
      ['_init_group', 0, 4, 4],
    ]);
  });
});
