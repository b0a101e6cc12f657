/**
 * How a recorded run ended, decided from what was seen: the exit code and signal of the command
 * (`headroom run`) or the probe's end records (`headroom watch`), Ctrl-C, and out-of-memory text from
 * the probe or the command's stderr. Also the events the end leaves in the ledger. Pure.
 */
import type { RunStatus } from '../run-record.js';
import type { StderrOom } from '../stderr-oom.js';

/** How much of the end of a failed command's stderr is kept as an event. */
export const STDERR_TAIL_EVENT_CHARS = 16_384;

/** How the command's process ended (Node's `exit` event). */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: string | null;
}

/**
 * The exit code headroom run passes on: the command's, else 128 + the signal's number as a shell
 * reports it (SIGINT → 130), else 1. `signalNumber` maps a signal name to its number (os.constants).
 */
export function exitCodeOf(exit: ProcessExit, signalNumber: (signal: string) => number | undefined): number {
  if (exit.code !== null) return exit.code;
  return exit.signal ? 128 + (signalNumber(exit.signal) ?? 0) : 1;
}

/**
 * The status of a run headroom started: `ok` on exit 0; `killed` when headroom was interrupted or the
 * command ended by a signal; `oom` when an out-of-memory was seen (probe or stderr); else `failed`.
 * An interrupt wins over an OOM: a Ctrl-C'd run that ran out of memory while stopping was stopped.
 */
export function runStatus(seen: {
  readonly exitCode: number;
  readonly signal: string | null;
  readonly interrupts: number;
  readonly oomSeen: boolean;
}): RunStatus {
  if (seen.exitCode === 0) return 'ok';
  if (seen.interrupts > 0) return 'killed';
  if (seen.oomSeen) return 'oom';
  return seen.signal ? 'killed' : 'failed';
}

/**
 * The status of a run recorded from its probe log (`headroom watch`) once every writer is done: `oom`
 * when an out-of-memory was seen or a writer ended by one; `failed` when a writer ended by an
 * exception; `ok` when every writer wrote its end record; else `killed` (a writer vanished).
 */
export function watchedStatus(seen: {
  readonly oomSeen: boolean;
  /** The `reason` of each probe end record. */
  readonly endReasons: readonly unknown[];
  readonly allWritersEnded: boolean;
}): RunStatus {
  if (seen.oomSeen || seen.endReasons.includes('oom')) return 'oom';
  if (seen.endReasons.includes('exception')) return 'failed';
  return seen.endReasons.length > 0 && seen.allWritersEnded ? 'ok' : 'killed';
}

/** Why a command could not be started, from the spawn error's code. */
export type SpawnFailure = 'not-found' | 'not-executable' | 'other';

export function spawnFailure(errorCode: string | undefined): SpawnFailure {
  return errorCode === 'ENOENT' ? 'not-found' : errorCode === 'EACCES' ? 'not-executable' : 'other';
}

/**
 * An event the end of a run leaves in the ledger (the ledger's NewRunEvent). `message` is the
 * command's own text (its OOM line); headroom's events have none here and get their words where they
 * are written (src/words/run-events.ts).
 */
export interface EndEvent {
  readonly tMs: number;
  readonly kind: 'oom-text' | 'stderr-tail' | 'interrupted';
  readonly source: 'stderr' | 'headroom';
  readonly message: string | null;
  readonly data: Readonly<Record<string, unknown>>;
}

/** The out-of-memory text stderr held, the end of a failed command's stderr, and the interruption. */
export function endEvents(options: {
  readonly endedAtMs: number;
  readonly stderrTail: string;
  readonly oomText: StderrOom | null;
  readonly exitCode: number;
  readonly interrupts: number;
}): EndEvent[] {
  const { endedAtMs: tMs, stderrTail, oomText, exitCode, interrupts } = options;
  const events: EndEvent[] = [];
  if (oomText)
    events.push({ tMs, kind: 'oom-text', source: 'stderr', message: oomText.message, data: { ...oomText } });
  if (exitCode !== 0 && stderrTail.trim() !== '') {
    events.push({
      tMs,
      kind: 'stderr-tail',
      source: 'stderr',
      message: null,
      data: { text: stderrTail.slice(-STDERR_TAIL_EVENT_CHARS) },
    });
  }
  if (interrupts > 0) {
    events.push({
      tMs,
      kind: 'interrupted',
      source: 'headroom',
      message: null,
      data: { interrupts },
    });
  }
  return events;
}
