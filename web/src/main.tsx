/** The dashboard shell: header with pages and the language switch, hash routing, pages. */
import { lazy, type ReactElement, StrictMode, Suspense, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { fleetWords } from '../../src/words/ui-fleet.js';
import { setApiLang } from './api.js';
import { defaultLang, type Lang, LangContext, MESSAGES } from './i18n.js';
import { RunPage } from './pages/RunPage.js';
import { RunsPage } from './pages/RunsPage.js';

// The run pages come with the shell (a run page opened from a link paints without waiting for more
// code); the other pages, with the catalogs and the estimator, are loaded when first opened.
const ComparePage = lazy(() => import('./pages/ComparePage.js').then((m) => ({ default: m.ComparePage })));
const EstimatePage = lazy(() => import('./pages/EstimatePage.js').then((m) => ({ default: m.EstimatePage })));
const FleetPage = lazy(() => import('./pages/FleetPage.js').then((m) => ({ default: m.FleetPage })));
const MigratePage = lazy(() => import('./pages/MigratePage.js').then((m) => ({ default: m.MigratePage })));
const SnapshotPage = lazy(() => import('./pages/SnapshotPage.js').then((m) => ({ default: m.SnapshotPage })));

import './styles.css';

function parseHash(hash: string): { path: string[]; query: string } {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  return { path: path.split('/').filter(Boolean), query };
}

function App() {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  // Bumped on every navigation from outside (links, back, a pasted URL): pages re-read their state from
  // the URL then. The Estimate page's own URL updates use replaceState, which fires no hashchange.
  const [navigation, setNavigation] = useState(0);
  const [lang, setLang] = useState<Lang>(
    () => (localStorage.getItem('headroom-lang') as Lang | null) ?? defaultLang(navigator.languages),
  );
  useEffect(() => {
    const onHash = () => {
      setRoute(parseHash(window.location.hash));
      setNavigation((n) => n + 1);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    localStorage.setItem('headroom-lang', lang);
    setApiLang(lang);
  }, [lang]);
  const go = (hash: string) => {
    window.location.hash = hash;
  };
  const m = MESSAGES[lang];
  const [page = 'estimate', arg] = route.path;
  let body: ReactElement;
  if (page === 'runs' && arg === 'compare') {
    const q = new URLSearchParams(route.query);
    body = <ComparePage a={Number(q.get('a'))} b={Number(q.get('b'))} />;
  } else if (page === 'runs' && arg) body = <RunPage id={Number(arg)} />;
  else if (page === 'runs')
    body = (
      <RunsPage
        onOpen={(id) => go(`#/runs/${id}`)}
        onCompare={(a, b) => go(`#/runs/compare?a=${a}&b=${b}`)}
      />
    );
  else if (page === 'migrate') body = <MigratePage />;
  else if (page === 'snapshot') body = <SnapshotPage key={navigation} query={route.query} />;
  else if (page === 'fleet') body = <FleetPage key={navigation} />;
  else
    body = (
      <EstimatePage
        key={navigation}
        query={route.query}
        onQuery={(q) => window.history.replaceState(null, '', `#/estimate${q ? `?${q}` : ''}`)}
      />
    );
  return (
    <LangContext.Provider value={lang}>
      <header>
        <h1>Headroom</h1>
        <nav>
          {(['estimate', 'runs', 'snapshot', 'migrate'] as const).map((p) => (
            <a key={p} href={`#/${p}`} className={page === p ? 'active' : ''} data-testid={`nav-${p}`}>
              {m[`nav.${p}`]}
            </a>
          ))}
          <a href="#/fleet" className={page === 'fleet' ? 'active' : ''} data-testid="nav-fleet">
            {fleetWords(lang)('nav')}
          </a>
        </nav>
        <fieldset className="lang">
          <legend className="sr-only">language</legend>
          <button
            type="button"
            className={lang === 'en' ? 'active' : ''}
            onClick={() => setLang('en')}
            data-testid="lang-en"
          >
            English
          </button>
          <button
            type="button"
            className={lang === 'zh' ? 'active' : ''}
            onClick={() => setLang('zh')}
            data-testid="lang-zh"
          >
            中文
          </button>
        </fieldset>
      </header>
      <main>
        <Suspense fallback={null}>{body}</Suspense>
      </main>
    </LangContext.Provider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
