/**
 * The events headroom itself writes into a run's ledger (beside the probe's and stderr's), as data:
 * each kind with the figures its words need. The ledger's `message` column keeps their English words
 * (for older readers and `runs export`); `headroomEvent` reads a stored event back into its code and
 * params so that it can be worded in any language. Pure.
 */
import type { MessageOf } from '../message.js';
import type { ProbeLineProblemCode } from '../probe-log.js';
import type { RunEvent } from '../run-record.js';
import { type PrelaunchWarning, storedWarningCode } from './prelaunch.js';
import type { SpawnFailure } from './status.js';

export interface HeadroomEventParams {
  /** A warning before launch (prelaunch.ts). */
  readonly prelaunch: { readonly warning: PrelaunchWarning };
  /** The command could not be started. */
  readonly 'spawn-error': {
    readonly program: string;
    readonly reason: SpawnFailure;
    /** The system's error code (ENOENT), or its message when it has none. */
    readonly detail: string;
  };
  /** headroom was stopped (Ctrl-C, a signal) while the command ran. */
  readonly interrupted: { readonly interrupts: number };
  /** headroom watch took over recording a run whose recorder was gone. */
  readonly resumed: { readonly pid: number };
  /** A probe-log line that could not be read. */
  readonly 'probe-bad-line': {
    readonly path: string;
    readonly offset: number;
    readonly problem: ProbeLineProblemCode;
    /** The parser's own words for what is wrong (JSON.parse's message, the field at fault). */
    readonly detail: string | null;
    readonly chars: number | null;
  };
}
export type HeadroomEvent = MessageOf<HeadroomEventParams>;

/** The ledger kind an event is stored under: its code, except `resumed`, a `note`. */
export function eventKind(event: HeadroomEvent): string {
  return event.code === 'resumed' ? 'note' : event.code;
}

/** What an event keeps in the ledger's `data` column (the fields older headroom stored, and its params). */
export function eventData(event: HeadroomEvent): Record<string, unknown> {
  switch (event.code) {
    case 'prelaunch':
      return {
        code: storedWarningCode(event.params.warning),
        check: event.params.warning.code,
        params: event.params.warning.params,
      };
    case 'spawn-error':
      return { ...event.params };
    case 'interrupted':
      return { interrupts: event.params.interrupts };
    case 'resumed':
      return { code: 'resumed', pid: event.params.pid };
    case 'probe-bad-line': {
      const { problem, ...rest } = event.params;
      return { ...rest, code: problem };
    }
  }
}

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * A stored event headroom wrote, read back into its code and params; null for any other event, and
 * for one written before its data carried what its words need (its stored message stands then).
 */
export function headroomEvent(event: RunEvent): HeadroomEvent | null {
  const d = event.data;
  if (event.source !== 'headroom') return null;
  switch (event.kind) {
    case 'prelaunch': {
      const check = str(d.check);
      if (check === null || !isRecord(d.params)) return null;
      return {
        code: 'prelaunch',
        params: { warning: { code: check, params: d.params } as PrelaunchWarning },
      };
    }
    case 'spawn-error': {
      const program = str(d.program);
      const reason = str(d.reason);
      if (program === null || (reason !== 'not-found' && reason !== 'not-executable' && reason !== 'other'))
        return null;
      return { code: 'spawn-error', params: { program, reason, detail: str(d.detail) ?? '' } };
    }
    case 'interrupted':
      return { code: 'interrupted', params: { interrupts: num(d.interrupts) ?? 1 } };
    case 'note': {
      const pid = num(d.pid);
      return d.code === 'resumed' && pid !== null ? { code: 'resumed', params: { pid } } : null;
    }
    case 'probe-bad-line': {
      const path = str(d.path);
      const offset = num(d.offset);
      const problem = str(d.code);
      if (path === null || offset === null || problem === null) return null;
      if (!['truncated', 'not-json', 'invalid', 'too-long'].includes(problem)) return null;
      return {
        code: 'probe-bad-line',
        params: {
          path,
          offset,
          problem: problem as ProbeLineProblemCode,
          detail: str(d.detail),
          chars: num(d.chars),
        },
      };
    }
    default:
      return null;
  }
}
