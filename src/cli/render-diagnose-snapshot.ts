/**
 * `diagnose RUN`'s section on the run's allocator snapshot: the five parts at the moment of failure,
 * the largest sites then, and the estimate's wrong part. Data: src/core/diagnose/snapshot.ts; words:
 * src/words/diagnose-snapshot.ts (and the snapshot page's part names, src/words/snapshot.ts).
 */
import { SNAPSHOT_PARTS } from '../core/snapshot/attribute.js';
import { formatBytes } from '../core/units.js';
import type { RunSnapshotDiagnosis } from '../io/diagnose-run.js';
import { say } from '../words/catalog.js';
import { DIAGNOSE_SNAPSHOT } from '../words/diagnose-snapshot.js';
import type { Lang } from '../words/lang.js';
import { SNAPSHOT_WORDS } from '../words/snapshot.js';
import type { Style } from './_output.js';
import { siteLabel } from './render-snapshot.js';

/** The section's lines (empty when there is nothing to say). */
export function renderSnapshotSection(d: RunSnapshotDiagnosis, lang: Lang, style: Style): string {
  if (d.problem) return `\n${style.yellow(`! ${say(DIAGNOSE_SNAPSHOT, lang, d.problem)}`)}`;
  const e = d.explanation;
  if (!e) return '';
  const words = SNAPSHOT_WORDS[lang];
  const heading = { path: e.source.path, rank: e.source.rank, moment: e.moment };
  const lines = ['', style.bold(say(DIAGNOSE_SNAPSHOT, lang, { code: 'heading', params: heading }))];
  const rows: [string, number][] = [
    ...SNAPSHOT_PARTS.map((p): [string, number] => [words.parts[p], e.parts[p]]),
    [words.parts.unattributed, e.unattributedBytes],
  ];
  const wide = Math.max(...rows.map(([name]) => name.length));
  for (const [name, bytes] of rows) {
    const share = e.liveBytes > 0 ? ` ${`${((bytes / e.liveBytes) * 100).toFixed(0)} %`.padStart(5)}` : '';
    lines.push(`  ${name.padEnd(wide)}  ${formatBytes(bytes).padStart(10)}${share}`);
  }
  for (const f of e.findings) lines.push(`  • ${say(DIAGNOSE_SNAPSHOT, lang, f)}`);
  if (e.sites.length > 0) {
    lines.push(`  ${style.dim(say(DIAGNOSE_SNAPSHOT, lang, { code: 'sites-heading', params: {} }))}`);
    for (const s of e.sites) {
      const part = s.part === null ? words.parts.unattributed : words.parts[s.part];
      lines.push(`    ${formatBytes(s.bytes).padStart(10)}  ${part.padEnd(wide)}  ${siteLabel(s, words)}`);
    }
  }
  return lines.join('\n');
}

/** The section as `--json` carries it: the data, and each finding's words in `lang`. */
export function snapshotJson(d: RunSnapshotDiagnosis, lang: Lang) {
  return {
    problem: d.problem ? { ...d.problem, words: say(DIAGNOSE_SNAPSHOT, lang, d.problem) } : null,
    explanation: d.explanation
      ? {
          ...d.explanation,
          findings: d.explanation.findings.map((f) => ({ ...f, words: say(DIAGNOSE_SNAPSHOT, lang, f) })),
        }
      : null,
  };
}
