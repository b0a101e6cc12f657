/**
 * The orchestrator: runs every check of checks.ts against the move's context, in order, and adds the
 * two-step plan. The verdict: fail when an item fails, warn when one warns or could not be checked.
 */
import type { Estimate } from '../estimate.js';
import type { Scenario } from '../scenario.js';
import type { CheckItem, NotChecked } from './checks.js';
import { CHECKS } from './checks.js';
import { type MigrateInput, type MigrateSide, migrateContext } from './context.js';
import { type FullRun, movePlan, type SmokeRun } from './smoke-run.js';

export interface MigrationReport {
  /** The scenario as it runs on the target (its bitsandbytes decides whether 4-bit inputs are kept). */
  readonly scenario: Scenario;
  readonly from: {
    readonly label: string;
    readonly gpu: string | null;
    readonly source: 'env' | 'catalog' | 'env+catalog';
  };
  readonly to: {
    readonly label: string;
    readonly gpu: string | null;
    readonly source: 'env' | 'catalog' | 'env+catalog';
  };
  readonly target: {
    readonly usableBytes: number;
    readonly budgetBytes: number;
    readonly gpus: number;
    readonly marginFraction: number;
  };
  readonly estimate: Estimate;
  readonly items: readonly CheckItem[];
  /** Parts that could not be checked, with the side that lacked an environment file. */
  readonly notChecked: readonly NotChecked[];
  readonly verdict: 'pass' | 'warn' | 'fail';
  readonly plan: { readonly smoke: SmokeRun; readonly full: FullRun };
}

function sourceOf(side: MigrateSide): 'env' | 'catalog' | 'env+catalog' {
  if (side.env && side.gpu) return 'env+catalog';
  return side.env ? 'env' : 'catalog';
}

/**
 * Checks a scenario that runs on `from` against `to`, and plans the move.
 * @example checkMigration({ scenario, shape, from: { label: 'a.json', env: a, gpu: null }, to: { label: 'h100-sxm', env: null, gpu } })
 */
export function checkMigration(input: MigrateInput): MigrationReport {
  const ctx = migrateContext(input);
  const items: CheckItem[] = [];
  const notChecked: NotChecked[] = [];
  for (const check of CHECKS) {
    const run = check.run(ctx);
    if (run.item) items.push(run.item);
    if (run.notChecked) notChecked.push(run.notChecked);
  }
  const verdict = items.some((i) => i.status === 'fail')
    ? 'fail'
    : items.some((i) => i.status === 'warn' || i.status === 'unknown')
      ? 'warn'
      : 'pass';
  const { from, to } = input;
  return {
    scenario: ctx.onTarget,
    from: { label: from.label, gpu: from.gpu?.id ?? null, source: sourceOf(from) },
    to: { label: to.label, gpu: ctx.targetGpu?.id ?? null, source: sourceOf(to) },
    target: {
      usableBytes: ctx.usable?.bytes ?? 0,
      budgetBytes: ctx.fit.budgetBytes,
      gpus: ctx.toGpus?.length ?? ctx.needGpus,
      marginFraction: ctx.marginFraction,
    },
    estimate: ctx.estimate,
    items,
    notChecked,
    verdict,
    plan: movePlan(ctx),
  };
}
