/**
 * The parallel strategy against the target's interconnect: the collectives' time per step over the
 * link (time-model.ts), against compute. ZeRO-3 and FSDP gather every weight twice per micro-batch,
 * which PCIe makes slow. The captured topology (nvidia-smi topo -m) replaces the catalog's link.
 */
import type { NoParams } from '../message.js';
import type { Scenario } from '../scenario.js';
import type { LinkName } from '../time-model.js';
import { type Check, only, outcome } from './check.js';

/** The communication of one step against its compute, per GPU, and the link it runs over. */
export interface CommFigures {
  readonly commSeconds: number;
  readonly computeSeconds: number;
  readonly commBytes: number;
  /** The link the collectives run over (time-model.ts), as data: src/words/time-notes.ts names it. */
  readonly link: LinkName;
  /** The captured topology; null when the catalog's link stands in. */
  readonly topology: {
    readonly kind: 'nvlink' | 'partial' | 'pcie' | 'single';
    readonly nvlinkPairs: number;
  } | null;
}

export interface InterconnectParams {
  /** One GPU: no collectives. */
  readonly 'link-single': NoParams;
  /** The target GPU is not in the catalog: its link bandwidth is unknown. */
  readonly 'link-unknown': NoParams;
  /** ZeRO-3 / FSDP over PCIe. */
  readonly 'link-pcie-full-shard': { readonly strategy: Scenario['parallelism']['strategy'] } & CommFigures;
  /** Communication outlasts compute. */
  readonly 'link-comm-bound': CommFigures;
  readonly 'link-ok': CommFigures;
}

export interface InterconnectActionParams {
  readonly 'closest-catalog-gpu': NoParams;
  readonly 'prefer-zero2': NoParams;
  readonly 'more-tokens-per-step': NoParams;
}

export interface InterconnectNotChecked {
  readonly label: string;
  /** The catalog GPU whose link stands in. */
  readonly gpu: string;
}

export const INTERCONNECT: Check<
  'interconnect',
  InterconnectParams,
  InterconnectActionParams,
  InterconnectNotChecked
> = {
  id: 'interconnect',
  statuses: {
    'link-single': 'pass',
    'link-unknown': 'unknown',
    'link-pcie-full-shard': 'warn',
    'link-comm-bound': 'warn',
    'link-ok': 'pass',
  },
  run(ctx) {
    const strategy = ctx.scenario.parallelism.strategy;
    const { time, topology } = ctx;
    if (ctx.needGpus <= 1 || strategy === 'single') return only(outcome(INTERCONNECT, 'link-single', {}));
    if (!time)
      return only(outcome(INTERCONNECT, 'link-unknown', {}, { code: 'closest-catalog-gpu', params: {} }));
    const comm: CommFigures = {
      commSeconds: time.commSeconds,
      computeSeconds: time.computeSeconds,
      commBytes: time.commBytes,
      link: time.link.name,
      topology: topology ? { kind: topology.kind, nvlinkPairs: topology.nvlinkPairs } : null,
    };
    const notChecked = topology
      ? null
      : { code: 'interconnect' as const, params: { label: ctx.to.label, gpu: ctx.targetGpu?.id ?? '' } };
    const fullShard = strategy === 'zero3' || strategy === 'fsdp';
    if (fullShard && time.link.kind === 'pcie')
      return only(
        outcome(
          INTERCONNECT,
          'link-pcie-full-shard',
          { strategy, ...comm },
          { code: 'prefer-zero2', params: {} },
        ),
        notChecked,
      );
    if (time.commSeconds > time.computeSeconds)
      return only(
        outcome(INTERCONNECT, 'link-comm-bound', comm, { code: 'more-tokens-per-step', params: {} }),
        notChecked,
      );
    return only(outcome(INTERCONNECT, 'link-ok', comm), notChecked);
  },
};
