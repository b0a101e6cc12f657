/** The dashboard's view of the server API: typed shapes and a fetch that carries the token. */
export type {
  FindingView,
  RunDetail,
  RunDiff,
  RunSummary,
  SamplePoint,
  StepPoint,
} from '../../src/core/dashboard-types.js';

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
