/** The dashboard's view of the server API: typed shapes and a fetch that carries the token. */
import type { Estimate } from '../../src/core/estimate.js';

export interface RunSummary {
  readonly id: number;
  readonly name: string;
  readonly status: 'running' | 'ok' | 'oom' | 'failed' | 'killed';
  readonly exitCode: number | null;
  readonly model: string | null;
  readonly method: string | null;
  readonly microBatchSize: number | null;
  readonly seqLen: number | null;
  readonly peakAllocatedBytes: number | null;
  readonly peakReservedBytes: number | null;
  readonly peakDeviceBytes: number | null;
  readonly steps: number;
  readonly startedAt: string;
  readonly durationMs: number | null;
  readonly demo?: boolean;
}

export interface StepPoint {
  readonly step: number;
  /** Seconds since the run started. */
  readonly t: number;
  readonly loss: number | null;
  readonly allocatedBytes: number | null;
  readonly reservedBytes: number | null;
  readonly peakAllocatedBytes: number | null;
  readonly peakReservedBytes: number | null;
  readonly phase: string | null;
}

export interface SamplePoint {
  readonly t: number;
  readonly usedBytes: number;
  readonly totalBytes: number;
}

export interface FindingView {
  readonly code: string;
  readonly severity: 'error' | 'warn' | 'info';
  readonly title: string;
  readonly evidence: readonly { readonly label: string; readonly value: string }[];
  readonly action: string;
}

export interface RunDetail {
  readonly run: RunSummary & { readonly command: string; readonly scenario: Record<string, unknown> | null };
  readonly steps: readonly StepPoint[];
  readonly samples: readonly SamplePoint[];
  readonly phases: readonly { readonly name: string; readonly start: number; readonly end: number }[];
  readonly oom: { readonly t: number; readonly text: string } | null;
  readonly findings: readonly FindingView[];
  readonly estimate: Estimate | null;
}

export interface RunDiff {
  readonly a: RunSummary;
  readonly b: RunSummary;
  readonly changes: readonly { readonly field: string; readonly a: unknown; readonly b: unknown }[];
  readonly oneVariableWarning: boolean;
}

function token(): string | null {
  const fromUrl = new URLSearchParams(window.location.search).get('token');
  if (fromUrl) sessionStorage.setItem('headroom-token', fromUrl);
  return sessionStorage.getItem('headroom-token');
}

/** The URL of an API path, with the token as a query parameter (EventSource cannot send headers). */
export function apiUrl(path: string): string {
  const t = token();
  return t ? `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(t)}` : path;
}

/** GETs or POSTs JSON; a non-2xx answer throws its error message. */
export async function api<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(
    apiUrl(path),
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  const json = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  if (!response.ok) throw new Error(json.error?.message ?? `${response.status} ${response.statusText}`);
  return json as T;
}
