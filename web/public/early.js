// The run page's chart, asked for while the dashboard's code is still loading: a run page opened
// directly (a link, a reload) then paints as soon as both are in. web/src/api.ts (takeEarly) hands the
// answer to the page; any other page leaves this alone. A plain script: the page's CSP allows 'self'.
(() => {
  const run = /^#\/runs\/(\d+)$/.exec(window.location.hash);
  if (!run) return;
  const token =
    new URLSearchParams(window.location.search).get('token') ?? sessionStorage.getItem('headroom-token');
  const path = `/api/runs/${run[1]}/chart`;
  const url = token ? `${path}?token=${encodeURIComponent(token)}` : path;
  window.__headroomEarly = { path, response: fetch(url) };
})();
