/**
 * The sources of the scenario this process merged last (where each field was set), for the errors that
 * leave a command without being named. A command runs once per process; main clears it before one.
 * Its own small module, so main keeps it without loading the field table.
 */
import type { FieldSource } from '../core/errors.js';

/** Where the field at a path was set, by the merge that recorded it. */
export interface SourceLookup {
  of(path: readonly string[]): FieldSource | undefined;
}

let last: SourceLookup | null = null;

export function rememberSources(sources: SourceLookup): void {
  last = sources;
}

export function lastScenarioSources(): SourceLookup | null {
  return last;
}

export function clearScenarioSources(): void {
  last = null;
}
