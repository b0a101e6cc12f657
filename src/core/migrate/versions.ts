/**
 * Driver, CUDA and framework versions: what differs between the two sides (a warning), and what will
 * break on the target (a failure): no framework versions, a package the scenario needs that is not
 * installed, a torch built for a newer CUDA than the driver supports. Needs both environment files.
 */
import type { EnvMissing, EnvSnapshot } from '../env.js';
import type { MessageOf, NoParams } from '../message.js';
import { type Scenario, usesBitsandbytes } from '../scenario.js';
import { type Check, only, outcome } from './check.js';

/** One version that differs between the sides; null: not installed (packages) or not known. */
export interface VersionDiffParams {
  readonly driver: { readonly from: string | null; readonly to: string | null };
  /** The highest CUDA the driver supports. */
  readonly cuda: { readonly from: string | null; readonly to: string | null };
  readonly package: { readonly name: string; readonly from: string | null; readonly to: string | null };
  /** The CUDA torch was built for. */
  readonly 'torch-cuda': { readonly from: string | null; readonly to: string | null };
  /** Python, when its major.minor differs. */
  readonly python: { readonly from: string; readonly to: string };
}
export type VersionDiff = MessageOf<VersionDiffParams>;

/** What will break on the target. */
export interface VersionProblemParams {
  /** No Python framework versions on the target: the part as captured, with why it is missing. */
  readonly 'no-frameworks': { readonly label: string; readonly missing: EnvMissing | null };
  readonly 'not-installed': { readonly packages: readonly string[]; readonly label: string };
  /** torch built for a CUDA major newer than the driver supports. */
  readonly 'cuda-mismatch': {
    readonly torchCuda: string;
    readonly driverCuda: string;
    readonly driverMajor: number;
  };
}
export type VersionProblem = MessageOf<VersionProblemParams>;

export interface VersionsParams {
  /** No environment file on a side (null: on either side). */
  readonly 'versions-unknown': { readonly side: string | null };
  readonly 'versions-same': NoParams;
  readonly 'versions-differ': { readonly diffs: readonly VersionDiff[] };
  readonly 'versions-broken': {
    readonly problems: readonly VersionProblem[];
    readonly diffs: readonly VersionDiff[];
  };
}

export interface VersionsActionParams {
  readonly 'capture-each': NoParams;
  readonly 'pin-versions': NoParams;
}

/** Packages a scenario needs on the target, by what it uses. */
export function requiredPackages(s: Scenario): string[] {
  const out = ['torch', 'transformers'];
  if (s.method === 'lora' || s.method === 'qlora') out.push('peft');
  if (usesBitsandbytes(s)) out.push('bitsandbytes');
  if (s.quantizer === 'torchao') out.push('torchao');
  if (s.optimizer.includes('8bit') || s.optimizer.startsWith('paged')) out.push('bitsandbytes');
  if (['zero1', 'zero2', 'zero3'].includes(s.parallelism.strategy) || s.offload.optimizer === 'nvme')
    out.push('deepspeed');
  if (s.attention === 'flash') out.push('flash-attn');
  return [...new Set(out)];
}

function majorMinor(version: string | null): [number, number] | null {
  const m = version ? /^(\d+)\.(\d+)/.exec(version) : null;
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** What differs between the two environments, in the order the checklist lists it. */
function versionDiffs(from: EnvSnapshot, to: EnvSnapshot): VersionDiff[] {
  const diffs: VersionDiff[] = [];
  const fd = from.driver.status === 'ok' ? from.driver.value : null;
  const td = to.driver.status === 'ok' ? to.driver.value : null;
  const a = (v: string | null | undefined) => v ?? null;
  if (fd?.driverVersion !== td?.driverVersion)
    diffs.push({ code: 'driver', params: { from: a(fd?.driverVersion), to: a(td?.driverVersion) } });
  if (fd?.cudaVersion !== td?.cudaVersion)
    diffs.push({ code: 'cuda', params: { from: a(fd?.cudaVersion), to: a(td?.cudaVersion) } });
  const ff = from.frameworks.status === 'ok' ? from.frameworks.value : null;
  const tf = to.frameworks.status === 'ok' ? to.frameworks.value : null;
  if (ff && tf) {
    for (const name of Object.keys(tf.packages)) {
      const was = ff.packages[name] ?? null;
      const is = tf.packages[name] ?? null;
      if (was !== is) diffs.push({ code: 'package', params: { name, from: was, to: is } });
    }
    if (ff.torchCuda !== tf.torchCuda)
      diffs.push({ code: 'torch-cuda', params: { from: ff.torchCuda, to: tf.torchCuda } });
    if (ff.python.split('.').slice(0, 2).join('.') !== tf.python.split('.').slice(0, 2).join('.'))
      diffs.push({ code: 'python', params: { from: ff.python, to: tf.python } });
  }
  return diffs;
}

/** What will break on the target. */
function versionProblems(scenario: Scenario, to: EnvSnapshot, label: string): VersionProblem[] {
  const problems: VersionProblem[] = [];
  const tf = to.frameworks.status === 'ok' ? to.frameworks.value : null;
  if (!tf) {
    const part = to.frameworks;
    problems.push({
      code: 'no-frameworks',
      params: { label, missing: part.status === 'missing' ? part : null },
    });
    return problems;
  }
  const absent = requiredPackages(scenario).filter((p) => !tf.packages[p]);
  if (absent.length > 0) problems.push({ code: 'not-installed', params: { packages: absent, label } });
  const td = to.driver.status === 'ok' ? to.driver.value : null;
  const build = majorMinor(tf.torchCuda);
  const driverCuda = majorMinor(td?.cudaVersion ?? null);
  if (build && driverCuda && build[0] > driverCuda[0] && tf.torchCuda && td?.cudaVersion)
    problems.push({
      code: 'cuda-mismatch',
      params: { torchCuda: tf.torchCuda, driverCuda: td.cudaVersion, driverMajor: driverCuda[0] },
    });
  return problems;
}

export const VERSIONS: Check<
  'versions',
  VersionsParams,
  VersionsActionParams,
  { readonly side: string | null }
> = {
  id: 'versions',
  statuses: {
    'versions-unknown': 'unknown',
    'versions-same': 'pass',
    'versions-differ': 'warn',
    'versions-broken': 'fail',
  },
  run(ctx) {
    const { from, to } = ctx;
    if (!from.env || !to.env) {
      const side = !from.env && !to.env ? null : !from.env ? from.label : to.label;
      return only(outcome(VERSIONS, 'versions-unknown', { side }, { code: 'capture-each', params: {} }), {
        code: 'versions',
        params: { side },
      });
    }
    const diffs = versionDiffs(from.env, to.env);
    const problems = versionProblems(ctx.scenario, to.env, to.label);
    const pin = { code: 'pin-versions', params: {} } as const;
    if (problems.length > 0) return only(outcome(VERSIONS, 'versions-broken', { problems, diffs }, pin));
    if (diffs.length > 0) return only(outcome(VERSIONS, 'versions-differ', { diffs }, pin));
    return only(outcome(VERSIONS, 'versions-same', {}));
  },
};
