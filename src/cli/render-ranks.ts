/**
 * `runs show` of a run of several ranks: the ranks side by side (their host, card and peaks on the
 * three levels, the run's peak rank marked), then each step's allocated peak per rank. The figures are
 * src/core/ranks.ts's; the words src/words/runs.ts's.
 */

import { maxOf } from '../core/extremes.js';
import type { MessageOf } from '../core/message.js';
import { type PerRankSteps, perRankStepPeaks, type RankStepPeaks } from '../core/ranks.js';
import type { RunRecord, StepRecord } from '../core/run-record.js';
import { say } from '../words/catalog.js';
import { FORMATS } from '../words/format.js';
import type { Lang } from '../words/lang.js';
import { RUNS, type RunsWordParams } from '../words/runs.js';
import { renderTable, type Style } from './_output.js';

const ws = (lang: Lang, line: MessageOf<RunsWordParams>) => say(RUNS, lang, line);

/** Most step rows of the per-rank table: evenly spread, the run's peak step always among them. */
export const RANK_STEP_ROWS = 20;
/** Most rank columns side by side; a wider run shows its first ranks and the peak rank. */
export const RANK_COLUMNS = 8;

const MARK = '◀';

/** `keep` of `count` indexes, evenly spread, the `must` ones among them. */
export function spread(count: number, keep: number, must: readonly number[]): number[] {
  if (count <= keep) return Array.from({ length: count }, (_, i) => i);
  const picked = new Set(must.filter((i) => i >= 0 && i < count));
  for (let k = 0; picked.size < keep && k < keep; k++) picked.add(Math.round((k * (count - 1)) / (keep - 1)));
  return [...picked].sort((a, b) => a - b);
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

/**
 * The rows the per-rank table shows: the ranks that reported steps, how many steps there are, and the
 * steps at the indexes rankTableRows picks (in step order).
 */
export interface RankTable {
  readonly ranks: readonly number[];
  readonly total: number;
  readonly steps: readonly RankStepPeaks[];
}

/** The indexes of the steps the per-rank table shows, of `total` steps, the run's peak step's among them. */
export function rankTableRows(total: number, peakIndex: number): number[] {
  return spread(total, RANK_STEP_ROWS, peakIndex < 0 ? [] : [peakIndex]);
}

/** The per-rank table's rows from all of a run's per-rank step peaks (perRankStepPeaks). */
export function rankTableOf(per: PerRankSteps, peakStep: number | null): RankTable {
  const picked = rankTableRows(
    per.steps.length,
    peakStep === null ? -1 : per.steps.findIndex((s) => s.step === peakStep),
  );
  return { ranks: per.ranks, total: per.steps.length, steps: picked.map((i) => per.steps[i]!) };
}

/** The ranks section of `runs show`; empty for a run of one rank (or none). */
export function renderRanks(
  run: RunRecord,
  steps: readonly StepRecord[] | RankTable | null,
  style: Style,
  lang: Lang,
): string {
  if (run.ranks.length < 2) return '';
  const f = FORMATS[lang];
  const bytes = (b: number | null) => (b === null ? '—' : f.bytes(b));
  const header = (
    [
      'col-rank',
      'col-local-rank',
      'col-host',
      'col-gpu',
      'col-allocated',
      'col-reserved',
      'col-device',
      'col-steps',
    ] as const
  ).map((code) => ws(lang, { code, params: {} }));
  const rows = run.ranks.map((r) => [
    r.rank === run.peakRank ? `${r.rank} ${style.yellow(MARK)}` : String(r.rank),
    String(r.localRank),
    r.host ?? '—',
    r.gpu === null ? '—' : String(r.gpu),
    bytes(r.peakAllocatedBytes),
    bytes(r.peakReservedBytes),
    bytes(r.peakDeviceBytes),
    String(r.steps),
  ]);
  const parts = [
    `\n  ${ws(lang, { code: 'ranks-heading', params: { count: run.ranks.length, peakRank: run.peakRank, mark: MARK } })}`,
    indent(renderTable(header, rows, [0, 1, 3, 4, 5, 6, 7])),
  ];
  const per =
    steps === null
      ? null
      : Array.isArray(steps)
        ? rankTableOf(perRankStepPeaks(steps), run.peakAllocated?.step ?? null)
        : (steps as RankTable);
  if (per && per.total > 0 && per.ranks.length > 1) {
    const peakAt = per.ranks.indexOf(run.peakRank ?? -1);
    const columns = spread(per.ranks.length, RANK_COLUMNS, peakAt >= 0 ? [peakAt] : []);
    const stepHeader = [
      ws(lang, { code: 'col-step', params: {} }),
      // Rank numbers are written as the launchers write them, in every language.
      ...columns.map((c) => `rank ${per.ranks[c]}`),
    ];
    const stepRows = per.steps.map((s) => {
      const top = maxOf(
        s.allocatedBytes.map((b) => b ?? 0),
        0,
      );
      return [
        s.phase === 'train' ? String(s.step) : `${s.step} ${s.phase}`,
        ...columns.map((c) => {
          const b = s.allocatedBytes[c] ?? null;
          return b !== null && b === top && top > 0 ? style.cyan(bytes(b)) : bytes(b);
        }),
      ];
    });
    parts.push(
      `\n  ${ws(lang, { code: 'per-rank-heading', params: { shown: per.steps.length, total: per.total } })}`,
      indent(
        renderTable(
          stepHeader,
          stepRows,
          columns.map((_, i) => i + 1),
        ),
      ),
    );
  }
  return parts.join('\n');
}
