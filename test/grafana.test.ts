/** The Grafana dashboard in docs/grafana: it parses, and every query names only our series or DCGM's. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DCGM_FB_METRICS, HEADROOM_METRIC_NAMES } from '../src/core/fleet/names.js';
import { REPO_ROOT } from './data.js';

const DASHBOARD = join(REPO_ROOT, 'docs', 'grafana', 'headroom.json');

interface Target {
  readonly refId: string;
  readonly expr: string;
}
interface Panel {
  readonly id: number;
  readonly title: string;
  readonly type: string;
  readonly targets: readonly Target[];
  readonly datasource: { readonly uid: string };
}
interface Dashboard {
  readonly uid: string;
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly { name: string; query: unknown; definition?: string }[] };
}

function dashboard(): Dashboard {
  return JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
}

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
]);

/** The metric names a PromQL expression selects: identifiers outside strings, braces and label lists, not calls. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/(?<![\w:.])[A-Za-z_:][\w:]*(?![\w:])(?!\s*\()/g)]
    .map((m) => m[0])
    .filter((word, i, all) => !KEYWORDS.has(word) && all.indexOf(word) === i && !/^\d/.test(word));
}

const KNOWN = new Set([...HEADROOM_METRIC_NAMES, ...Object.values(DCGM_FB_METRICS)]);

describe('docs/grafana/headroom.json', () => {
  const d = dashboard();
  const targets = d.panels.flatMap((p) => p.targets.map((t) => ({ panel: p.title, ...t })));

  it('has the panels the issue asks for, each with queries on the chosen data source', () => {
    expect(d.uid).toBe('headroom-runs');
    expect(d.panels.map((p) => p.type)).toEqual(['timeseries', 'bargauge', 'timeseries', 'table', 'table']);
    for (const p of d.panels) {
      expect(p.targets.length, p.title).toBeGreaterThan(0);
      // Grafana's own ${…} variable syntax, not a template string.
      expect(p.datasource.uid).toBe(`\${datasource}`);
    }
  });

  it('reads metric names off PromQL (the checker itself)', () => {
    expect(
      metricNames('max by (run, level) (headroom_run_peak_bytes{run=~"$run"}) and on (UUID) x_y'),
    ).toEqual(['headroom_run_peak_bytes', 'x_y']);
    expect(metricNames('DCGM_FI_DEV_FB_USED * 1048576 >= 0.95')).toEqual(['DCGM_FI_DEV_FB_USED']);
  });

  it.each(targets.map((t) => [`${t.panel} ${t.refId}`, t.expr]))(
    '%s selects only our series and DCGM’s',
    (_name, expr) => {
      const names = metricNames(expr);
      expect(names.length).toBeGreaterThan(0);
      expect(names.filter((n) => !KNOWN.has(n))).toEqual([]);
    },
  );

  it('puts a DCGM series beside ours, joined on the UUID label both carry', () => {
    const joined = targets.filter(
      (t) => t.expr.includes('DCGM_FI_DEV_FB_USED') && t.expr.includes('headroom_run'),
    );
    expect(joined.length).toBeGreaterThanOrEqual(2);
    for (const t of joined) expect(t.expr).toMatch(/on \(UUID\)/);
  });

  it('uses only the variables it defines, and the run variable lists runs from our series', () => {
    const defined = new Set(d.templating.list.map((v) => v.name));
    const used = new Set(targets.flatMap((t) => [...t.expr.matchAll(/\$(\w+)/g)].map((m) => m[1]!)));
    expect([...used].filter((v) => !defined.has(v))).toEqual([]);
    const run = d.templating.list.find((v) => v.name === 'run')!;
    expect(metricNames(run.definition!.replace(/^label_values\((\w+),.*$/, '$1'))).toEqual([
      'headroom_run_running',
    ]);
  });
});
