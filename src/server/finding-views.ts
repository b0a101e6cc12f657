/** Findings as the dashboard and the report show them. */
import type { FindingView } from '../core/dashboard-types.js';
import type { Finding } from '../core/diagnose/finding.js';

/** Findings as the dashboard shows them (the same objects as `diagnose --json`, without the remedies' flags). */
export function findingViews(findings: readonly Finding[]): FindingView[] {
  return findings.map((f) => ({
    code: f.code,
    severity: f.severity,
    title: f.title,
    evidence: f.evidence.map((e) => ({ label: e.label, value: e.value })),
    action: f.action,
  }));
}
