/** The human view of a snapshot: the allocator's totals, the peak, its parts as bars, the sites, findings. */
import type { LiveView, SnapshotFinding, SnapshotReport, TraceOom } from '../core/snapshot/analyse.js';
import { mainPeak } from '../core/snapshot/analyse.js';
import { SNAPSHOT_PARTS, type SnapshotPart } from '../core/snapshot/attribute.js';
import type { SnapshotComparison } from '../core/snapshot/compare.js';
import type { DiffFact, SnapshotDiff } from '../core/snapshot/diff.js';
import type { SnapshotFrame } from '../core/snapshot/snapshot.js';
import { formatBytes } from '../core/units.js';
import { findingText, formatError, type SnapshotWords } from '../words/snapshot.js';
import { meterBar } from './_bar.js';
import { renderTable, type Style } from './_output.js';

const BAR_WIDTH = 36;

/** Pads to `width` terminal columns: CJK characters take two. */
function padColumns(s: string, width: number): string {
  const wide = s.match(
    /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/g,
  );
  return s + ' '.repeat(Math.max(0, width - s.length - (wide?.length ?? 0)));
}

/** A site as one short line: path from the package down, line, function. */
export function siteLabel(site: { kind: string; frame: SnapshotFrame | null }, words: SnapshotWords): string {
  if (site.kind === 'python' && site.frame) {
    const f = site.frame.filename;
    const cut = f.search(/(site|dist)-packages\//);
    const short = cut >= 0 ? f.slice(f.indexOf('/', cut) + 1) : f.split('/').slice(-2).join('/');
    return `${short}:${site.frame.line} ${site.frame.name}`;
  }
  if (site.kind === 'autograd' && site.frame) return `${site.frame.name} (${words.sites.autograd})`;
  return words.sites[site.kind === 'cpp' ? 'cpp' : 'none'];
}

function partColor(style: Style): Readonly<Record<SnapshotPart | 'unattributed', (s: string) => string>> {
  return {
    weights: style.blue,
    gradients: style.magenta,
    optimizer: style.yellow,
    activations: style.cyan,
    runtime: style.dim,
    unattributed: (s) => s,
  };
}

/** The parts of a view as bars scaled to its live bytes, then why, then the sites. */
function renderView(view: LiveView, words: SnapshotWords, style: Style): string[] {
  const colors = partColor(style);
  const scale = Math.max(1, view.liveBytes);
  const lines: string[] = [];
  const rows: [SnapshotPart | 'unattributed', number][] = [
    ...SNAPSHOT_PARTS.map((p) => [p, view.parts[p]] as [SnapshotPart, number]),
    ['unattributed', view.unattributedBytes],
  ];
  for (const [part, bytes] of rows) {
    lines.push(
      `  ${padColumns(words.parts[part], 13)} ${colors[part](meterBar(bytes, scale, BAR_WIDTH))} ${formatBytes(bytes).padStart(10)}`,
    );
  }
  lines.push(
    `  ${padColumns(words.labels.live, 13)} ${' '.repeat(BAR_WIDTH)} ${formatBytes(view.liveBytes).padStart(10)}`,
  );
  lines.push('');
  lines.push(
    indent(
      renderTable(
        [words.labels.bytes, words.labels.count, words.labels.part, words.labels.why],
        view.rules.map((r) => [
          formatBytes(r.bytes),
          String(r.count),
          r.part === null ? words.parts.unattributed : words.parts[r.part],
          words.rules[r.rule],
        ]),
        [0, 1],
      ),
    ),
  );
  lines.push('', `  ${style.bold(words.labels.topSites)}`);
  lines.push(
    indent(
      renderTable(
        [words.labels.bytes, words.labels.count, words.labels.part, words.labels.site],
        view.sites.map((s) => [
          formatBytes(s.bytes),
          String(s.count),
          s.part === null ? '—' : words.parts[s.part],
          siteLabel(s, words),
        ]),
        [0, 1],
      ),
    ),
  );
  return lines;
}

const indent = (block: string) =>
  block
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

function renderOom(o: TraceOom, i: number, words: SnapshotWords): string {
  const parts = SNAPSHOT_PARTS.filter((p) => o.live.parts[p] > 0)
    .map((p) => `${words.parts[p]} ${formatBytes(o.live.parts[p])}`)
    .join(' · ');
  const top = o.live.sites[0];
  return [
    `  ${i + 1}. ${words.labels.eventNumber(o.eventIndex)}: ${words.labels.oomLine(o.requestedBytes, o.deviceFreeBytes, o.activeBytes)}`,
    `     ${parts}`,
    ...(top ? [`     ${words.labels.topSites}: ${siteLabel(top, words)} (${formatBytes(top.bytes)})`] : []),
  ].join('\n');
}

export function renderFindings(
  findings: readonly SnapshotFinding[],
  words: SnapshotWords,
  style: Style,
): string[] {
  if (findings.length === 0) return [];
  const lines = ['', style.bold(words.labels.findings)];
  for (const f of findings) {
    const { title, hint } = findingText(words, f);
    lines.push(`  ${style.yellow('!')} ${title}`, style.dim(`    ${words.labels.tryHint}: ${hint}`));
  }
  return lines;
}

/** Renders a snapshot's report, with the estimate beside it when there is one. */
export function renderSnapshot(input: {
  readonly file: string;
  readonly report: SnapshotReport;
  readonly comparison: SnapshotComparison | null;
  readonly scenarioLine: string | null;
  readonly words: SnapshotWords;
  readonly style: Style;
}): string {
  const { report: r, words, style } = input;
  const w = words.labels;
  const lines: string[] = [];
  lines.push(style.bold(`${input.file} — ${w.title}`));
  lines.push(
    `  ${w.reserved} ${style.bold(formatBytes(r.reservedBytes))} (${r.segments} ${w.segments}) · ${w.allocated} ${style.bold(formatBytes(r.allocatedBytes))} (${r.activeBlocks} ${w.activeBlocks}) · ${w.requested} ${formatBytes(r.requestedBytes)}`,
  );
  lines.push(
    `  ${w.cached} ${formatBytes(r.inactiveBytes)} · ${w.largestFree} ${formatBytes(r.largestInactiveBlockBytes)}${r.pendingFreeBytes > 0 ? ` · ${w.pendingFree} ${formatBytes(r.pendingFreeBytes)}` : ''}`,
  );
  lines.push('');
  const peak = mainPeak(r);
  const events = r.traceEvents.reduce((a, b) => a + b, 0);
  if (peak === null) {
    lines.push(
      `  ${w.trace}: ${w.noTrace}`,
      '',
      `  ${style.bold(w.byPartAtEnd)}`,
      ...renderView(r.end, words, style),
    );
  } else {
    const actions = Object.entries(r.traceActions)
      .map(([a, n]) => `${a} ${n.toLocaleString('en-US')}`)
      .join(' · ');
    lines.push(`  ${w.trace}: ${events.toLocaleString('en-US')} ${w.events} — ${actions}`);
    const at = peak.eventIndex < 0 ? w.beforeFirstEvent : w.atEvent(peak.eventIndex, peak.events);
    lines.push(
      `  ${w.peak}: ${style.bold(formatBytes(peak.activeBytes))} ${at}${r.peaks.length > 1 ? ` (GPU ${peak.device})` : ''} · ${w.reservedThen} ${formatBytes(peak.reservedBytes)}`,
    );
    lines.push('', `  ${style.bold(w.byPartAtPeak)}`, ...renderView(peak.live, words, style));
  }
  if (r.ooms.length > 0) {
    lines.push('', style.bold(w.ooms));
    lines.push(...r.ooms.map((o, i) => renderOom(o, i, words)));
  }
  const c = input.comparison;
  if (c) {
    lines.push('', style.bold(w.vsEstimate));
    if (input.scenarioLine) lines.push(style.dim(`  ${input.scenarioLine}`));
    lines.push(
      indent(
        renderTable(
          [w.part, w.estimate, w.measured, w.error],
          [
            ...c.parts.map((p) => [
              words.parts[p.part],
              formatBytes(p.estimateBytes),
              formatBytes(p.measuredBytes),
              formatError(p.error),
            ]),
            [words.parts.unattributed, '—', formatBytes(c.unattributedBytes), '—'],
          ],
          [1, 2, 3],
        ),
      ),
    );
    lines.push(`  ${w.totalLine(c.estimateAllocatedBytes, c.measuredBytes, formatError(c.totalError))}`);
    if (c.worst) {
      const worst = c.parts.find((p) => p.part === c.worst)!;
      lines.push(
        `  ${style.bold(w.worst(words.parts[c.worst], worst.estimateBytes, worst.measuredBytes, formatError(worst.error)))}`,
      );
    }
  }
  lines.push(...renderFindings([...r.findings, ...(c?.findings ?? [])], words, style));
  return lines.join('\n');
}

const FACT_LABEL = (words: SnapshotWords): Readonly<Record<DiffFact, string>> => ({
  reservedBytes: words.labels.reserved,
  allocatedBytes: words.labels.allocated,
  inactiveBytes: words.labels.cached,
  largestInactiveBlockBytes: words.labels.largestFree,
  segments: words.labels.segments,
  activeBlocks: words.labels.activeBlocks,
  peakActiveBytes: words.labels.peak,
});

const signedBytes = (n: number) => (n > 0 ? `+${formatBytes(n)}` : formatBytes(n));
const signedCount = (n: number) => (n > 0 ? `+${n}` : String(n));

/** Renders what changed from snapshot A to snapshot B. */
export function renderSnapshotDiff(input: {
  readonly a: string;
  readonly b: string;
  readonly diff: SnapshotDiff;
  readonly words: SnapshotWords;
  readonly style: Style;
}): string {
  const { diff: d, words, style } = input;
  const labels = FACT_LABEL(words);
  const count = (k: DiffFact) => k === 'segments' || k === 'activeBlocks';
  const lines = [style.bold(`${input.a} → ${input.b} — ${words.labels.diffTitle}`), ''];
  lines.push(
    indent(
      renderTable(
        ['', 'A', 'B', words.labels.change],
        d.facts.map((f) =>
          count(f.key)
            ? [labels[f.key], String(f.a), String(f.b), signedCount(f.delta)]
            : [labels[f.key], formatBytes(f.a), formatBytes(f.b), signedBytes(f.delta)],
        ),
        [1, 2, 3],
      ),
    ),
  );
  lines.push(
    '',
    `  ${style.bold(d.basis !== 'end-state' ? words.labels.byPartAtPeak : words.labels.byPartAtEnd)}`,
  );
  lines.push(
    indent(
      renderTable(
        [words.labels.part, 'A', 'B', words.labels.change],
        d.parts.map((p) => [words.parts[p.key], formatBytes(p.a), formatBytes(p.b), signedBytes(p.delta)]),
        [1, 2, 3],
      ),
    ),
  );
  if (d.sites.length > 0) {
    lines.push('', `  ${style.bold(words.labels.sitesGrew)}`);
    lines.push(
      indent(
        renderTable(
          [words.labels.change, 'A', 'B', words.labels.site],
          d.sites.map((s) => [signedBytes(s.delta), formatBytes(s.a), formatBytes(s.b), siteLabel(s, words)]),
          [0, 1, 2],
        ),
      ),
    );
  }
  return lines.join('\n');
}
