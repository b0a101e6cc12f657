/**
 * The words that frame a diagnosis — the message's heading and figures, a recorded run's heading, the
 * groups and severities, a remedy's figure, "nothing to report" — and a finding rendered whole, in
 * English and Simplified Chinese. The CLI (`headroom diagnose`, its `--json` words), the server's
 * finding views and the dashboard all render findings through `findingWords`.
 */
import type { Finding, FindingGroup, Remedy, Severity } from '../core/diagnose/finding.js';
import type { NoParams } from '../core/message.js';
import type { OomFamily, OomMessage, OomPhase, PhaseBasis } from '../core/oom/index.js';
import { defineDomain, say } from './catalog.js';
import { type EvidenceWords, evidenceWords } from './evidence.js';
import { FINDING_ACTIONS } from './finding-actions.js';
import { FINDINGS } from './findings.js';
import type { Lang } from './lang.js';
import { OOM_TERMS } from './oom.js';
import { remedyChangeWords } from './remedies.js';

/** The message's figures the heading summarises (null or absent: not in the message). */
export type OomFigures = Pick<
  OomMessage,
  | 'requestedBytes'
  | 'totalBytes'
  | 'freeBytes'
  | 'allocatedByTorchBytes'
  | 'reservedUnallocatedBytes'
  | 'reservedTotalBytes'
  | 'thisProcessInUseBytes'
>;

export interface DiagnosisParams {
  readonly 'no-findings': NoParams;
  /** The flags that make a remedy's change: "try --gradient-checkpointing full". */
  readonly 'try-flags': { readonly flags: string };
  /** A recorded run's heading: "run 3 "leak" · ok · 20 steps" (the status is the ledger's word). */
  readonly 'run-head': {
    readonly id: number;
    readonly name: string | null;
    readonly status: string;
    readonly steps: number;
  };
  /** The message's heading: "PyTorch caching allocator (2.x layout) · GPU 0 · phase: forward (from the log)". */
  readonly 'message-head': {
    readonly family: OomFamily;
    readonly gpu: number | null;
    readonly rank: number | null;
    readonly phase: OomPhase;
    readonly basis: PhaseBasis;
  };
  /** The message's figures in one line: "requested 546 MiB · total 15.77 GiB · …". */
  readonly figures: OomFigures;
  /** A remedy's figure: "−6.10 GiB, fits with 2.30 GiB to spare". */
  readonly 'remedy-fits': { readonly savedBytes: number; readonly spareBytes: number };
  readonly 'remedy-short': { readonly savedBytes: number; readonly shortBytes: number };
  readonly 'remedy-saves': { readonly savedBytes: number };
}

const FIGURES = {
  en: {
    requestedBytes: 'requested',
    totalBytes: 'total',
    freeBytes: 'free',
    allocatedByTorchBytes: 'allocated by PyTorch',
    reservedUnallocatedBytes: 'reserved-unallocated',
    reservedTotalBytes: 'reserved in total',
    thisProcessInUseBytes: 'this process',
  },
  zh: {
    requestedBytes: '请求',
    totalBytes: '总量',
    freeBytes: '空闲',
    allocatedByTorchBytes: 'PyTorch 已分配',
    reservedUnallocatedBytes: '已预留未分配',
    reservedTotalBytes: '预留总量',
    thisProcessInUseBytes: '本进程',
  },
} as const satisfies Record<Lang, Record<keyof OomFigures, string>>;

const figureLine = (lang: Lang, p: OomFigures, bytes: (n: number) => string): string => {
  const parts: string[] = [];
  for (const [key, label] of Object.entries(FIGURES[lang]) as [keyof OomFigures, string][]) {
    const value = p[key];
    if (value !== null && value !== undefined) parts.push(`${label} ${bytes(value)}`);
  }
  return parts.join(' · ');
};

export const DIAGNOSIS = defineDomain<DiagnosisParams>({
  name: 'diagnosis',
  words: {
    en: {
      'no-findings': () => 'Nothing to report.',
      'try-flags': (p) => `try ${p.flags}`,
      'run-head': (p) =>
        `run ${p.id}${p.name ? ` "${p.name}"` : ''} · ${p.status} · ${p.steps} step${p.steps === 1 ? '' : 's'}`,
      'message-head': (p) => {
        const t = OOM_TERMS.en;
        const head = [t.families[p.family]];
        if (p.gpu !== null) head.push(`GPU ${p.gpu}`);
        if (p.rank !== null) head.push(`rank ${p.rank}`);
        head.push(`phase: ${t.phases[p.phase]}${p.basis === 'none' ? '' : ` (${t.bases[p.basis]})`}`);
        return head.join(' · ');
      },
      figures: (p, f) => figureLine('en', p, f.bytes),
      'remedy-fits': (p, f) => `−${f.bytes(p.savedBytes)}, fits with ${f.bytes(p.spareBytes)} to spare`,
      'remedy-short': (p, f) => `−${f.bytes(p.savedBytes)}, still ${f.bytes(p.shortBytes)} short`,
      'remedy-saves': (p, f) => `−${f.bytes(p.savedBytes)}`,
    },
    zh: {
      'no-findings': () => '没有需要报告的问题。',
      'try-flags': (p) => `试试 ${p.flags}`,
      'run-head': (p) => `运行 ${p.id}${p.name ? `“${p.name}”` : ''} · ${p.status} · ${p.steps} 步`,
      'message-head': (p) => {
        const t = OOM_TERMS.zh;
        const head = [t.families[p.family]];
        if (p.gpu !== null) head.push(`GPU ${p.gpu}`);
        if (p.rank !== null) head.push(`rank ${p.rank}`);
        head.push(`阶段：${t.phases[p.phase]}${p.basis === 'none' ? '' : `（${t.bases[p.basis]}）`}`);
        return head.join(' · ');
      },
      figures: (p, f) => figureLine('zh', p, f.bytes),
      'remedy-fits': (p, f) => `−${f.bytes(p.savedBytes)}，放得下，还剩 ${f.bytes(p.spareBytes)}`,
      'remedy-short': (p, f) => `−${f.bytes(p.savedBytes)}，仍差 ${f.bytes(p.shortBytes)}`,
      'remedy-saves': (p, f) => `−${f.bytes(p.savedBytes)}`,
    },
  },
  examples: {
    'no-findings': {},
    'try-flags': { flags: '--gradient-checkpointing full' },
    'run-head': { id: 3, name: 'leak', status: 'ok', steps: 20 },
    'message-head': { family: 'torch-v2', gpu: 0, rank: 1, phase: 'forward', basis: 'log' },
    figures: {
      requestedBytes: 572522496,
      totalBytes: 16932908564,
      freeBytes: 539167293,
      allocatedByTorchBytes: 14742475244,
      reservedUnallocatedBytes: 772653711,
      reservedTotalBytes: null,
    },
    'remedy-fits': { savedBytes: 6.1 * 2 ** 30, spareBytes: 2.3 * 2 ** 30 },
    'remedy-short': { savedBytes: 6.66 * 2 ** 30, shortBytes: 1.65 * 2 ** 30 },
    'remedy-saves': { savedBytes: 2 ** 30 },
  },
});

/** The troubleshooting groups, as the list's headings. */
export const GROUP_WORDS: Readonly<Record<Lang, Readonly<Record<FindingGroup, string>>>> = {
  en: { environment: 'Environment', configuration: 'Configuration', code: 'Code' },
  zh: { environment: '环境', configuration: '配置', code: '代码' },
};

/** How bad a finding is, as its tag. */
export const SEVERITY_WORDS: Readonly<Record<Lang, Readonly<Record<Severity, string>>>> = {
  en: { error: 'error', warn: 'warning', info: 'note' },
  zh: { error: '错误', warn: '警告', info: '提示' },
};

/** A label before its value: "requested: " / "请求：". */
export function labelled(label: string, lang: Lang): string {
  return lang === 'zh' ? `${label}：` : `${label}: `;
}

/** "−6.10 GiB, fits with 2.30 GiB to spare": a remedy's figure in words. */
export function remedyFigure(remedy: Pick<Remedy, 'savedBytes' | 'headroomAfterBytes'>, lang: Lang): string {
  const savedBytes = remedy.savedBytes;
  const spare = remedy.headroomAfterBytes;
  if (spare === null) return say(DIAGNOSIS, lang, { code: 'remedy-saves', params: { savedBytes } });
  return spare >= 0
    ? say(DIAGNOSIS, lang, { code: 'remedy-fits', params: { savedBytes, spareBytes: spare } })
    : say(DIAGNOSIS, lang, { code: 'remedy-short', params: { savedBytes, shortBytes: -spare } });
}

/** A remedy in words: its change, beside the data it carries. */
export interface RemedyWords extends Omit<Remedy, 'changes'> {
  readonly change: string;
}

/** A finding in words: its title, its evidence, what to do, and its remedies' changes. */
export interface FindingWords {
  readonly code: Finding['code'];
  readonly severity: Severity;
  readonly group: FindingGroup;
  readonly title: string;
  readonly evidence: readonly EvidenceWords[];
  readonly action: string;
  readonly remedies?: readonly RemedyWords[];
}

/**
 * A finding rendered whole in a language.
 * @example findingWords(diagnose({ text }).findings[0]!, 'zh').title
 */
export function findingWords(f: Finding, lang: Lang): FindingWords {
  return {
    code: f.code,
    severity: f.severity,
    group: f.group,
    title: say(FINDINGS, lang, f),
    evidence: f.evidence.map((e) => evidenceWords(e, lang)),
    action: say(FINDING_ACTIONS, lang, f),
    ...(f.remedies === undefined
      ? {}
      : {
          remedies: f.remedies.map((r) => {
            const { changes: _changes, ...figures } = r;
            return { change: remedyChangeWords(r, lang), ...figures };
          }),
        }),
  };
}
