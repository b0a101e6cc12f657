/**
 * Host-memory (CPU RAM) kills, not VRAM (data/docs/MONITORING.md §A7 and rule 7): the Linux OOM killer
 * (`Killed`, dmesg `Out of memory: Killed process`, `invoked oom-killer`, Kubernetes `OOMKilled`, exit code
 * 137 / -9), DataLoader workers killed or out of shared memory, PyTorch's `DefaultCPUAllocator`, NumPy's
 * `Unable to allocate … for an array`, `std::bad_alloc`, Python's `MemoryError`, ENOMEM.
 */
import { SIZE, sizeBytes } from './byte-size.js';
import { type GrammarHit, LineIndex, quoteOf } from './grammar-hit.js';
import { emptyOom } from './oom-message.js';

interface HostPattern {
  readonly pattern: RegExp;
  /** Group holding a byte count, or the number and unit of a size. */
  readonly requested?: (m: RegExpExecArray) => number | null;
}

const PATTERNS: readonly HostPattern[] = [
  {
    pattern:
      /\bDataLoader\s+worker\s+\(pids?(?:\(s\))?\s+(?=\d)[\d, ]+\)\s+is\s+killed\s+by\s+signal\s*:\s*(?:Killed|Bus\s+error)/gi,
  },
  { pattern: /\b(?:out\s+of|insufficient)\s+shared\s+memory\b/gi },
  {
    pattern:
      /\bDefaultCPUAllocator\s*:\s*(?:can't\s+allocate\s+memory|not\s+enough\s+memory)\s*:\s*you\s+tried\s+to\s+allocate\s+(\d+)\s+bytes/gi,
    requested: (m) => Number(m[1]),
  },
  {
    pattern: new RegExp(String.raw`\bUnable\s+to\s+allocate\s+${SIZE}\s+for\s+an\s+array`, 'gi'),
    requested: (m) => sizeBytes(m[1]!, m[2]!),
  },
  // The shell's job-control line ("Killed", "./run.sh: line 3: 1234 Killed  python train.py").
  { pattern: /^[ \t]*(?:\S+: line \d+:\s+\d+\s+)?Killed\b(?:[ \t]+\S.*)?$/gm },
  { pattern: /[`'"]killed[`'"]/gi },
  { pattern: /\bsignal\s*:\s*killed\b/gi },
  { pattern: /\bOut\s+of\s+memory\s*:\s*Kill(?:ed)?\s+process\b/gi },
  {
    pattern:
      /\binvoked\s+oom-killer\b|\boom[-_]kill(?:er)?\b|\bOOMKilled\b|\bMemory\s+cgroup\s+out\s+of\s+memory\b/gi,
  },
  { pattern: /\bexit\s*(?:code|status)?\s*[:=]?\s*(?:137|-9)\b(?!\.\d)|\bSignal\s+9\s+\(SIGKILL\)/gi },
  { pattern: /\bstd::bad_alloc\b|(?<![\w.])MemoryError\b|\bCannot\s+allocate\s+memory\b/g },
];

/** Every host-memory kill in `text`, one per line. */
export function findHostOomMessages(text: string): GrammarHit[] {
  const byLine = new Map<number, GrammarHit>();
  const lines = new LineIndex(text);
  for (const { pattern, requested } of PATTERNS) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const lineStart = lines.start(m.index);
      const bytes = requested ? requested(m) : null;
      const existing = byLine.get(lineStart);
      if (existing && (existing.oom.requestedBytes !== null || bytes === null)) continue;
      byLine.set(lineStart, {
        start: m.index,
        oom: { ...emptyOom('host-oom'), requestedBytes: bytes },
        backend: null,
        layout: null,
        requestUnbounded: false,
        signature: m[0].trim().replace(/\s+/g, ' '),
        quote: quoteOf(lines.line(m.index)),
      });
    }
  }
  return [...byLine.values()].sort((a, b) => a.start - b.start);
}
