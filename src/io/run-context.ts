/**
 * What the diagnosis and the calibration need from a recorded run besides its rows: the run itself by
 * id, name or `last` (a user error with a hint when there is none), its stored scenario resolved to a
 * model shape, and the bitsandbytes it ran with.
 */
import { findGpu } from '../core/catalog/index.js';
import type { ScenarioContext } from '../core/diagnose/index.js';
import { isUserError } from '../core/errors.js';
import { fileError } from '../core/file-errors.js';
import { resolveModelRef } from '../core/model-ref.js';
import type { RunRecord } from '../core/run-record.js';
import { parseScenario } from '../core/scenario.js';
import type { Ledger } from './ledger.js';
import { resolveModel } from './resolve-model.js';

/**
 * The run `ref` names (an id, a name, `last`); HeadroomUserError listing what there is when none.
 * `where` is how the command calls the argument in its usage (RUN, or ID for `runs`).
 */
export function requireRun(ledger: Ledger, ref: string | number, where = 'RUN'): RunRecord {
  const run = ledger.getRun(ref);
  if (run) return run;
  const runs = ledger.listRuns();
  throw fileError(
    'no-such-run',
    {
      ref: String(ref),
      ledger: ledger.path,
      runs: runs.length,
      first: runs[0]?.id ?? 0,
      last: runs[runs.length - 1]?.id ?? 0,
    },
    where,
    'bad-flag',
  );
}

/** The bitsandbytes the probe found installed when the run started (its start record); null when unknown. */
export function recordedBitsandbytes(ledger: Ledger, runId: number): string | null {
  const versions = ledger.events(runId, ['start']).map((e) => e.data.bitsandbytes);
  return versions.find((v): v is string => typeof v === 'string') ?? null;
}

/** A scenario stored in the ledger, parsed; null when there is none or another version wrote it. */
function parseStored(
  raw: Readonly<Record<string, unknown>> | null | undefined,
): ReturnType<typeof parseScenario> | null {
  if (!raw) return null;
  try {
    return parseScenario(raw);
  } catch (error) {
    if (isUserError(error)) return null; // written by another version: diagnose without it
    throw error;
  }
}

/** The run's stored scenario, parsed; null when it has none (recorded without scenario flags). */
function storedScenario(run: RunRecord): ReturnType<typeof parseScenario> | null {
  return parseStored(run.scenario);
}

/**
 * The run's scenario with a catalog or inline model, resolved without I/O; null when the run has no
 * scenario or its model needs files or the Hub (use runScenarioContext then).
 */
export function runScenarioContextSync(run: RunRecord): ScenarioContext | null {
  const scenario = storedScenario(run);
  if (!scenario) return null;
  const model = resolveModelRef(scenario.model);
  if (!model) return null;
  return {
    scenario,
    shape: model.shape,
    exactParams: model.exactParams,
    gpu: scenario.gpu === undefined ? null : (findGpu(scenario.gpu) ?? null),
  };
}

/** The run's scenario with any model (files and the Hub too); null when the run has none. */
export async function runScenarioContext(run: RunRecord): Promise<ScenarioContext | null> {
  return storedScenarioContext(run.scenario);
}

/** A scenario stored in the ledger (a run's, a calibration's) with its model resolved; null without one. */
export async function storedScenarioContext(
  raw: Readonly<Record<string, unknown>> | null | undefined,
): Promise<ScenarioContext | null> {
  const scenario = parseStored(raw);
  if (!scenario) return null;
  const model = await resolveModel(scenario.model);
  return {
    scenario,
    shape: model.shape,
    exactParams: model.exactParams,
    gpu: scenario.gpu === undefined ? null : (findGpu(scenario.gpu) ?? null),
  };
}
