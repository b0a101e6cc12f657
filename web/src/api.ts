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

/** The language the server words its errors in: the dashboard's own, not only the browser's. */
let errorLang: 'en' | 'zh' = 'en';

/** Called when the dashboard's language changes (main.tsx). */
export function setApiLang(lang: 'en' | 'zh'): void {
  errorLang = lang;
}

/** GETs or POSTs JSON; a non-2xx answer throws its error message, in the dashboard's language. */
export async function api<T>(path: string, body?: unknown): Promise<T> {
  const language = { 'accept-language': errorLang };
  const response = await fetch(
    apiUrl(path),
    body === undefined
      ? { headers: language }
      : {
          method: 'POST',
          headers: { ...language, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
  );
  return read<T>(response);
}

declare global {
  interface Window {
    /** The request web/public/early.js made before the app's code ran, for the page that wants it. */
    __headroomEarly?: { readonly path: string; readonly response: Promise<Response> } | undefined;
  }
}

/**
 * GETs `path` as api() does, taking the answer early.js already asked for when it is that path (once:
 * a later visit asks again).
 */
export function apiEarly<T>(path: string): Promise<T> {
  const early = window.__headroomEarly;
  if (!early || early.path !== path) return api<T>(path);
  window.__headroomEarly = undefined;
  return early.response.then(read<T>, () => api<T>(path));
}

async function read<T>(response: Response): Promise<T> {
  const json = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  if (!response.ok) throw new Error(json.error?.message ?? `${response.status} ${response.statusText}`);
  return json as T;
}
