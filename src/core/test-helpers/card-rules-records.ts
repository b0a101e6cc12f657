/**
 * The card rules as they were written over records (arrays of GpuSampleRecord and ProcessSampleRecord),
 * before they read columns (src/core/diagnose/samples.ts): kept for the tests, which hold the rules on
 * columns to exactly these findings (card-rules.test.ts). Not used by the diagnoser.
 */
import type { Evidence } from '../diagnose/evidence.js';
import type { Finding } from '../diagnose/finding.js';
import { bytes, ev, type RuleInput, say, value } from '../diagnose/rule-kit.js';
import type { RunSamples } from '../diagnose/samples.js';
import { UNACCOUNTED_MIN_BYTES, UNACCOUNTED_SHARE } from '../oom/index.js';
import type { GpuSampleRecord, ProcessSampleRecord } from '../run-record.js';

/** The rules' input with the samples as records. */
export type RecordRuleInput = Omit<RuleInput, 'samples'> & { readonly samples: RunSamples | null };

interface Card {
  readonly key: string;
  readonly index: number;
  readonly totalBytes: number | null;
}

interface SeenProcess {
  readonly pid: number;
  readonly name: string | null;
  readonly card: Card;
  readonly bytes: number;
}

/** The cards the run's processes were seen on, keyed by UUID (or index when the UUID is unknown). */
function runCards(samples: RunSamples): {
  cards: Map<string, Card>;
  cardOf: (p: ProcessSampleRecord) => string | null;
} {
  const uuidOfIndex = new Map<number, string>();
  const all = new Map<string, Card>();
  for (const g of samples.gpus) {
    if (g.uuid) uuidOfIndex.set(g.gpu, g.uuid);
    const key = g.uuid ?? `#${g.gpu}`;
    all.set(key, { key, index: g.gpu, totalBytes: g.totalBytes ?? all.get(key)?.totalBytes ?? null });
  }
  const cardOf = (p: ProcessSampleRecord): string | null =>
    p.gpuUuid ?? (p.gpu === null ? null : (uuidOfIndex.get(p.gpu) ?? `#${p.gpu}`));
  const cards = new Map<string, Card>();
  for (const p of samples.processes) {
    if (!p.ours || !p.usedBytes) continue;
    const key = cardOf(p);
    const card = key === null ? undefined : all.get(key);
    if (card) cards.set(card.key, card);
  }
  for (const g of samples.gpus) {
    const card = all.get(g.uuid ?? `#${g.gpu}`);
    if (card && (g.ownBytes ?? 0) > 0) cards.set(card.key, card);
  }
  return { cards, cardOf };
}

/** Each process seen on the run's cards, at the most it held. */
function processesOn(
  samples: RunSamples,
  cards: ReadonlyMap<string, Card>,
  cardOf: (p: ProcessSampleRecord) => string | null,
  ours: boolean,
): SeenProcess[] {
  const seen = new Map<string, SeenProcess>();
  for (const p of samples.processes) {
    if (p.ours !== ours || p.pid === null || p.usedBytes === null) continue;
    const key = cardOf(p);
    const card = key === null ? undefined : cards.get(key);
    if (!card) continue;
    const id = `${p.pid}@${card.key}`;
    const prev = seen.get(id);
    if (!prev || p.usedBytes > prev.bytes)
      seen.set(id, { pid: p.pid, name: p.name, card, bytes: p.usedBytes });
  }
  return [...seen.values()].sort((a, b) => b.bytes - a.bytes);
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

const gpuList = (list: readonly SeenProcess[]) =>
  [...new Set(list.map((p) => p.card.index))].sort((a, b) => a - b);

/** Memory in use on a run card that neither the run nor a listed process holds: the median over samples. */
function unlisted(
  samples: RunSamples,
  cards: ReadonlyMap<string, Card>,
  cardOf: (p: ProcessSampleRecord) => string | null,
): Finding[] {
  // The process samples as batches (one nvidia-smi reading each), oldest first.
  const batches: { tMs: number; rows: ProcessSampleRecord[] }[] = [];
  for (const p of samples.processes) {
    const last = batches[batches.length - 1];
    if (last && last.tMs === p.tMs) last.rows.push(p);
    else batches.push({ tMs: p.tMs, rows: [p] });
  }
  const readings: { rest: number; used: number; own: number; others: number; total: number }[] = [];
  let b = -1;
  for (const g of samples.gpus) {
    while (b + 1 < batches.length && batches[b + 1]!.tMs <= g.tMs) b++;
    const key = g.uuid ?? `#${g.gpu}`;
    if (b < 0 || !cards.has(key) || g.usedBytes === null || g.ownBytes === null || g.totalBytes === null)
      continue;
    const others = batches[b]!.rows.filter((p) => !p.ours && cardOf(p) === key).reduce(
      (sum, p) => sum + (p.usedBytes ?? 0),
      0,
    );
    readings.push({
      rest: g.usedBytes - g.ownBytes - others,
      used: g.usedBytes,
      own: g.ownBytes,
      others,
      total: g.totalBytes,
    });
  }
  if (readings.length === 0) return [];
  const rest = median(readings.map((r) => r.rest));
  // The reading shown: the median one with the run at its fullest (samples before the run allocated tie).
  const at = readings.filter((r) => r.rest === rest).reduce((a, r) => (r.own > a.own ? r : a));
  if (rest < Math.max(UNACCOUNTED_MIN_BYTES, UNACCOUNTED_SHARE * at.total)) return [];
  const evidence: Evidence[] = [
    ev('smi-used', value('part-of-whole', { partBytes: at.used, wholeBytes: at.total })),
    ev('this-run', bytes(at.own)),
  ];
  if (at.others > 0) evidence.push(ev('processes-total', bytes(at.others)));
  evidence.push(
    ev(
      'unaccounted',
      value('unaccounted-samples', { bytes: rest, cardBytes: at.total, samples: readings.length }),
    ),
  );
  return [say('memory-outside-process', 'warn', { bytes: rest }, evidence)];
}

/** The environment findings a recorded run's nvidia-smi samples show (none without samples). */
export function cardFindingsOfRecords(input: RecordRuleInput): Finding[] {
  const samples = input.samples;
  if (!samples || samples.gpus.length === 0) return [];
  const { cards, cardOf } = runCards(samples);
  if (cards.size === 0) return [];
  const severity = input.match ? 'error' : 'warn';
  const ours = processesOn(samples, cards, cardOf, true);
  const ourNames = new Set(ours.map((p) => p.name).filter((n): n is string => n !== null));
  const foreign = processesOn(samples, cards, cardOf, false);
  const leftovers = foreign.filter((p) => p.name !== null && ourNames.has(p.name));
  const others = foreign.filter((p) => !leftovers.includes(p));
  const line = (p: SeenProcess) => value('process', { pid: p.pid, name: p.name, bytes: p.bytes });
  const out: Finding[] = [];
  if (others.length > 0) {
    const total = others.reduce((s, p) => s + p.bytes, 0);
    const evidence = others.map((p) => ev('process', line(p)));
    evidence.push(ev('processes-total', bytes(total)));
    const card = others[0]!.card;
    if (card.totalBytes !== null) evidence.push(ev('card-total', bytes(card.totalBytes)));
    out.push(
      say(
        'other-processes',
        severity,
        { count: others.length, bytes: total, gpus: gpuList(others) },
        evidence,
      ),
    );
  }
  if (leftovers.length > 0) {
    const evidence = leftovers.map((p) => ev('process', line(p)));
    for (const p of ours.filter((o) => leftovers.some((l) => l.card === o.card)))
      evidence.push(ev('this-run', line(p)));
    out.push(say('leftover-process', severity, {}, evidence));
  }
  out.push(...unlisted(samples, cards, cardOf));
  return out;
}

/** nvidia-smi's `memory.used` at its highest on the run's cards, as evidence (null without samples). */
export function smiUsedEvidenceOfRecords(input: RecordRuleInput): Evidence | null {
  const samples = input.samples;
  if (!samples) return null;
  const { cards } = runCards(samples);
  let top: GpuSampleRecord | null = null;
  for (const g of samples.gpus)
    if (
      cards.has(g.uuid ?? `#${g.gpu}`) &&
      g.usedBytes !== null &&
      g.totalBytes !== null &&
      (!top || g.usedBytes / g.totalBytes > top.usedBytes! / top.totalBytes!)
    )
      top = g;
  if (!top) return null;
  return ev('smi-used', value('part-of-whole', { partBytes: top.usedBytes!, wholeBytes: top.totalBytes! }));
}
