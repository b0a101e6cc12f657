/**
 * Step 1 of the troubleshooting order for a recorded run, from its nvidia-smi samples: other processes
 * on the run's cards, a leftover of an earlier run (a process of the same program that is not this
 * run's), and memory in use that no listed process accounts for. The samples are the ledger's
 * (src/core/run-record.ts): per-GPU `memory.used` and the run's own share, and the compute processes,
 * each flagged as the run's or not.
 */
import { UNACCOUNTED_MIN_BYTES, UNACCOUNTED_SHARE } from '../oom/index.js';
import type { Evidence } from './evidence.js';
import type { Finding } from './finding.js';
import { bytes, ev, type RuleInput, type RunSamples, say, value } from './rule-kit.js';
import { NO_TEXT, type SampleColumns, textAt } from './samples.js';

export type { RunSamples };

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

/** The key of a card: its UUID, else `#index`. */
const cardKey = (uuid: string | null, index: number): string => uuid ?? `#${index}`;

/** The cards the run's processes were seen on, and the card key of each per-process row. */
interface RunCards {
  readonly cards: Map<string, Card>;
  /** The key of process row i's card (by its UUID, else its GPU index); null when neither is known. */
  readonly cardOf: (i: number) => string | null;
}

/** The cards the run's processes were seen on, keyed by UUID (or index when the UUID is unknown). */
function runCards(s: SampleColumns): RunCards {
  const g = s.gpus;
  const uuidOfIndex = new Map<number, string>();
  // Each card's index and memory.total as of its latest sample that gave one (in the order first seen).
  const all = new Map<string, { key: string; index: number; totalBytes: number | null }>();
  for (let i = 0; i < g.length; i++) {
    const uuid = textAt(s, g.uuid[i]!);
    const index = g.gpu[i]!;
    if (uuid) uuidOfIndex.set(index, uuid);
    const key = cardKey(uuid, index);
    const total = g.totalBytes[i]!;
    const prev = all.get(key);
    if (prev) {
      prev.index = index;
      if (!Number.isNaN(total)) prev.totalBytes = total;
    } else all.set(key, { key, index, totalBytes: Number.isNaN(total) ? null : total });
  }
  const p = s.processes;
  const cardOf = (i: number): string | null => {
    if (p.gpuUuid[i] !== NO_TEXT) return s.texts[p.gpuUuid[i]!]!;
    const index = p.gpu[i]!;
    return Number.isNaN(index) ? null : (uuidOfIndex.get(index) ?? `#${index}`);
  };
  const cards = new Map<string, Card>();
  for (let i = 0; i < p.length; i++) {
    // `!usedBytes`: none (NaN) or 0.
    if (!p.ours[i] || !p.usedBytes[i]) continue;
    const key = cardOf(i);
    const card = key === null ? undefined : all.get(key);
    if (card) cards.set(card.key, card);
  }
  for (let i = 0; i < g.length; i++) {
    const card = all.get(cardKey(textAt(s, g.uuid[i]!), g.gpu[i]!));
    if (card && g.ownBytes[i]! > 0) cards.set(card.key, card);
  }
  return { cards, cardOf };
}

/** Each process seen on the run's cards, at the most it held. */
function processesOn(s: SampleColumns, { cards, cardOf }: RunCards, ours: boolean): SeenProcess[] {
  const p = s.processes;
  const flag = ours ? 1 : 0;
  const seen = new Map<string, SeenProcess>();
  for (let i = 0; i < p.length; i++) {
    const pid = p.pid[i]!;
    const used = p.usedBytes[i]!;
    if (p.ours[i] !== flag || Number.isNaN(pid) || Number.isNaN(used)) continue;
    const key = cardOf(i);
    const card = key === null ? undefined : cards.get(key);
    if (!card) continue;
    const id = `${pid}@${card.key}`;
    const prev = seen.get(id);
    if (!prev || used > prev.bytes) seen.set(id, { pid, name: textAt(s, p.name[i]!), card, bytes: used });
  }
  return [...seen.values()].sort((a, b) => b.bytes - a.bytes);
}

const gpuList = (list: readonly SeenProcess[]) =>
  [...new Set(list.map((p) => p.card.index))].sort((a, b) => a - b);

/** Memory in use on a run card that neither the run nor a listed process holds: the median over samples. */
function unlisted(s: SampleColumns, { cards, cardOf }: RunCards): Finding[] {
  const g = s.gpus;
  const p = s.processes;
  // The process samples as batches (one nvidia-smi reading each: rows of one time), oldest first.
  const starts: number[] = [];
  for (let i = 0; i < p.length; i++) if (i === 0 || p.tMs[i] !== p.tMs[i - 1]) starts.push(i);
  starts.push(p.length);
  const batches = starts.length - 1;
  // One reading per per-GPU sample on a run card with its figures: what is left after the run and the
  // other listed processes, and the figures it was worked out from.
  const rest = new Float64Array(g.length);
  const used = new Float64Array(g.length);
  const own = new Float64Array(g.length);
  const others = new Float64Array(g.length);
  const total = new Float64Array(g.length);
  let n = 0;
  let b = -1;
  for (let i = 0; i < g.length; i++) {
    while (b + 1 < batches && p.tMs[starts[b + 1]!]! <= g.tMs[i]!) b++;
    const key = cardKey(textAt(s, g.uuid[i]!), g.gpu[i]!);
    const u = g.usedBytes[i]!;
    const o = g.ownBytes[i]!;
    const t = g.totalBytes[i]!;
    if (b < 0 || !cards.has(key) || Number.isNaN(u) || Number.isNaN(o) || Number.isNaN(t)) continue;
    let sum = 0;
    for (let j = starts[b]!; j < starts[b + 1]!; j++)
      if (!p.ours[j] && cardOf(j) === key) sum += Number.isNaN(p.usedBytes[j]!) ? 0 : p.usedBytes[j]!;
    rest[n] = u - o - sum;
    used[n] = u;
    own[n] = o;
    others[n] = sum;
    total[n] = t;
    n++;
  }
  if (n === 0) return [];
  const sorted = rest.slice(0, n).sort((x, y) => x - y);
  const median = sorted[Math.floor((n - 1) / 2)]!;
  // The reading shown: the median one with the run at its fullest (samples before the run allocated tie).
  let at = -1;
  for (let k = 0; k < n; k++) if (rest[k] === median && (at < 0 || own[k]! > own[at]!)) at = k;
  const atTotal = total[at]!;
  if (median < Math.max(UNACCOUNTED_MIN_BYTES, UNACCOUNTED_SHARE * atTotal)) return [];
  const evidence: Evidence[] = [
    ev('smi-used', value('part-of-whole', { partBytes: used[at]!, wholeBytes: atTotal })),
    ev('this-run', bytes(own[at]!)),
  ];
  if (others[at]! > 0) evidence.push(ev('processes-total', bytes(others[at]!)));
  evidence.push(
    ev('unaccounted', value('unaccounted-samples', { bytes: median, cardBytes: atTotal, samples: n })),
  );
  return [say('memory-outside-process', 'warn', { bytes: median }, evidence)];
}

/** The environment findings a recorded run's nvidia-smi samples show (none without samples). */
export function cardFindings(input: RuleInput): Finding[] {
  const samples = input.samples;
  if (!samples || samples.gpus.length === 0) return [];
  const seen = runCards(samples);
  if (seen.cards.size === 0) return [];
  const severity = input.match ? 'error' : 'warn';
  const ours = processesOn(samples, seen, true);
  const ourNames = new Set(ours.map((p) => p.name).filter((n): n is string => n !== null));
  const foreign = processesOn(samples, seen, false);
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
  out.push(...unlisted(samples, seen));
  return out;
}

/** nvidia-smi's `memory.used` at its highest on the run's cards, as evidence (null without samples). */
export function smiUsedEvidence(input: RuleInput): Evidence | null {
  const samples = input.samples;
  if (!samples) return null;
  const { cards } = runCards(samples);
  const g = samples.gpus;
  let top = -1;
  for (let i = 0; i < g.length; i++) {
    const used = g.usedBytes[i]!;
    const total = g.totalBytes[i]!;
    if (
      cards.has(cardKey(textAt(samples, g.uuid[i]!), g.gpu[i]!)) &&
      !Number.isNaN(used) &&
      !Number.isNaN(total) &&
      (top < 0 || used / total > g.usedBytes[top]! / g.totalBytes[top]!)
    )
      top = i;
  }
  if (top < 0) return null;
  return ev(
    'smi-used',
    value('part-of-whole', { partBytes: g.usedBytes[top]!, wholeBytes: g.totalBytes[top]! }),
  );
}
