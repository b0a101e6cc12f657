/** Findings as the dashboard and the report show them: rendered from their codes and params in a language. */
import type { FindingView } from '../core/dashboard-types.js';
import type { Finding } from '../core/diagnose/finding.js';
import { findingWords } from '../words/diagnosis.js';
import type { Lang } from '../words/lang.js';

/**
 * Findings as the dashboard shows them: each one's words in `lang` (the page's language), from the same
 * data `diagnose --json` prints, without the remedies.
 */
export function findingViews(findings: readonly Finding[], lang: Lang = 'en'): FindingView[] {
  return findings.map((f) => {
    const w = findingWords(f, lang);
    return {
      code: w.code,
      severity: w.severity,
      title: w.title,
      evidence: w.evidence.map((e) => ({ label: e.label, value: e.value })),
      action: w.action,
    };
  });
}
