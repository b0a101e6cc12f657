/**
 * What nvidia-smi (or gpustat) output pasted beside an out-of-memory report says: memory in use that
 * no listed process holds, processes that are dead or stopped, other ranks' contexts on one GPU, one
 * GPU far fuller than the others of the same job (data/docs/MONITORING.md §A2 and "Rules the corpus
 * suggests" 6 and 8; samples in data/validation/nvidia-smi). The table is parsed by
 * ../nvidia-smi-table.ts, from lines short enough to be table rows.
 */
import { parseNvidiaSmiTable, type TableProcess } from '../nvidia-smi-table.js';
import { MIB } from '../units.js';
import type { LogLine } from './log-lines.js';
import { RANK_CONTEXT_MAX_BYTES, UNACCOUNTED_MIN_BYTES, UNACCOUNTED_SHARE } from './phase-bytes.js';

export type SmiReason =
  | 'smi-leftover'
  | 'smi-rank-contexts'
  | 'smi-gpu-uneven'
  | 'smi-used-no-process'
  | 'smi-full-before-ours'
  | 'smi-rows';

export interface SmiReading {
  readonly phase: 'other-process' | 'multi-gpu-imbalance';
  readonly reason: SmiReason;
  /** The line that shows it. */
  readonly line: number;
}

/** nvidia-smi rows are under 130 characters; longer lines are not read as rows (and cost nothing). */
const MAX_ROW_CHARS = 300;
/** A GPU of a multi-GPU job holds at least a CUDA context: one with less is not part of the job. */
export const IN_USE_MIN_BYTES = 256 * MIB;
/** One GPU this many times the median of the job's other GPUs, and at least UNEVEN_MIN_BYTES more. */
export const UNEVEN_FACTOR = 2;
export const UNEVEN_MIN_BYTES = 1024 * MIB;
/** A card this full (used over total) on nvidia-smi is full: no room for a new process's context and buffers. */
export const SMI_FULL_SHARE = 0.9;
/** Contexts of other ranks have the same size: within this ratio of each other. */
const SAME_SIZE_RATIO = 1.1;

// gpustat: `[6] NVIDIA A100 80GB PCIe | 52'C, 100 % | 10151 / 81920 MB | (null)`
const GPUSTAT_ROW = /^\[(\d+)\][^|]*\|[^|]*\|\s*(\d+)\s*\/\s*(\d+)\s*MB\s*\|([^|]*)$/;
const PROCESSES_HEADER = /^\|\s*Processes:|\bNo running processes found\b/;
// ps aux: USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND — a stopped (T) or zombie (Z) state.
const PS_ROW = /^\S+\s+(\d+)\s+[\d.]+\s+[\d.]+\s+\d+\s+\d+\s+\S+\s+([TZ])[A-Za-z<+]*\s/;

const mib = (n: number) => n * MIB;

function gpuUsed(
  lines: readonly string[],
): { index: number; used: number; total: number; line: number; procs: string | null }[] {
  const out = new Map<
    number,
    { index: number; used: number; total: number; line: number; procs: string | null }
  >();
  lines.forEach((text, line) => {
    const g = GPUSTAT_ROW.exec(text);
    if (g)
      out.set(Number(g[1]), {
        index: Number(g[1]),
        used: mib(Number(g[2])),
        total: mib(Number(g[3])),
        line,
        procs: g[4]!.trim(),
      });
  });
  return [...out.values()];
}

function lineOf(lines: readonly string[], test: (t: string) => boolean): number {
  const i = lines.findIndex(test);
  return Math.max(i, 0);
}

/** Several same-sized small processes beside one larger on a GPU: the other ranks' contexts. */
function contextRows(processes: readonly TableProcess[]): TableProcess | null {
  const byGpu = new Map<number, TableProcess[]>();
  for (const p of processes) {
    if (p.usedMiB === null) continue;
    const list = byGpu.get(p.gpu);
    if (list) list.push(p);
    else byGpu.set(p.gpu, [p]);
  }
  for (const list of byGpu.values()) {
    const small = list.filter((p) => mib(p.usedMiB!) <= RANK_CONTEXT_MAX_BYTES);
    if (small.length < 2 || small.length === list.length) continue;
    const sizes = small.map((p) => p.usedMiB!);
    const max = sizes.reduce((a, b) => Math.max(a, b));
    const min = sizes.reduce((a, b) => Math.min(a, b));
    if (max <= SAME_SIZE_RATIO * min) return small[0]!;
  }
  return null;
}

/**
 * The phase nvidia-smi output beside the report shows, first rule that holds:
 * - a process named "Unknown Error" (its PID is gone) or listed in `ps` as stopped (T) or a zombie (Z):
 *   a leftover of an earlier run holds memory → other-process (mxnet #4242, trixie #92);
 * - on one GPU, two or more processes of one size under 1.5 GiB beside a larger one: the other ranks'
 *   CUDA contexts on GPU 0 → multi-GPU imbalance (pytorch #49481);
 * - two or more GPUs in use (each ≥ 256 MiB: a context at least) where one holds ≥ 2× the median of
 *   the others and ≥ 1 GiB more → multi-GPU imbalance (apex #200);
 * - a GPU using ≥ 1 GiB and ≥ 10 % of its memory while the process list is empty ("No running
 *   processes found", gpustat's "(null)"): the memory belongs to processes this PID namespace cannot
 *   see — another container, a job on the host → other-process (CrossE #2, VisEdit #5);
 * - the error is CUDA's own (`CUDA error: out of memory`, no PyTorch figures: an allocation outside
 *   the caching allocator, as a context, a cuBLAS handle or a first cudaMalloc makes at start-up) and
 *   the table shows one GPU at least 90 % full while the others are idle: the card was full before
 *   this process had anything on it → other-process (gpt2-chitchat: TensorFlow on GPU 0);
 * - with no out-of-memory message in the text, compute processes holding ≥ 1 GiB: the table is the
 *   report, and what it shows holding the card is the problem → other-process.
 */
export function phaseFromSmi(
  logLines: readonly LogLine[],
  hasMessage: boolean,
  bareCudaError = false,
): SmiReading | null {
  // Rows as pasted in Markdown keep their backticks (`[6] NVIDIA A100 … | (null)`).
  const lines = logLines.map((l) =>
    l.text.length <= MAX_ROW_CHARS ? l.text.replace(/^\s*`+|`+\s*$/g, '') : '',
  );
  const table = parseNvidiaSmiTable(lines.join('\n'));
  const stat = gpuUsed(lines);
  if (table.gpus.length === 0 && table.processes.length === 0 && stat.length === 0) return null;
  const rowLine = (p: TableProcess) =>
    lineOf(lines, (t) => t.includes(String(p.pid)) && (p.usedMiB === null || t.includes(`${p.usedMiB}MiB`)));

  const stopped = new Set<number>();
  for (const t of lines) {
    const ps = PS_ROW.exec(t);
    if (ps) stopped.add(Number(ps[1]));
  }
  const leftover = table.processes.find((p) => /^Unknown Error$/i.test(p.name) || stopped.has(p.pid));
  if (leftover) return { phase: 'other-process', reason: 'smi-leftover', line: rowLine(leftover) };

  const context = contextRows(table.processes);
  if (context) return { phase: 'multi-gpu-imbalance', reason: 'smi-rank-contexts', line: rowLine(context) };

  // The last row printed per GPU (a paste may hold several snapshots); its line is looked up only
  // for the one a rule quotes.
  const gpus = new Map<number, { used: number; total: number; line: () => number }>();
  for (const g of table.gpus) {
    const find = () =>
      lineOf(lines, (t) => t.includes(`${g.usedMiB}MiB /`) && t.includes(`${g.totalMiB}MiB`));
    gpus.set(g.index, { used: mib(g.usedMiB), total: mib(g.totalMiB), line: find });
  }
  for (const g of stat) gpus.set(g.index, { used: g.used, total: g.total, line: () => g.line });
  const inUse = [...gpus.values()].filter((g) => g.used >= IN_USE_MIN_BYTES);
  if (inUse.length >= 2) {
    const sorted = [...inUse].sort((a, b) => b.used - a.used);
    const top = sorted[0]!;
    const rest = sorted.slice(1).map((g) => g.used);
    const median = rest[Math.floor((rest.length - 1) / 2)]!;
    if (top.used >= UNEVEN_FACTOR * median && top.used - median >= UNEVEN_MIN_BYTES)
      return { phase: 'multi-gpu-imbalance', reason: 'smi-gpu-uneven', line: top.line() };
  }

  const heavy = (g: { used: number; total: number }) =>
    g.used >= Math.max(UNACCOUNTED_MIN_BYTES, UNACCOUNTED_SHARE * g.total);
  const listsNone = table.processes.length === 0 && lines.some((t) => PROCESSES_HEADER.test(t));
  if (listsNone) {
    const g = [...gpus.values()].find(heavy);
    if (g) return { phase: 'other-process', reason: 'smi-used-no-process', line: g.line() };
  }
  const nullStat = stat.find((g) => (g.procs === '' || g.procs === '(null)') && heavy(g));
  if (nullStat) return { phase: 'other-process', reason: 'smi-used-no-process', line: nullStat.line };

  if (bareCudaError) {
    const full = [...gpus.values()].filter((g) => g.total > 0 && g.used >= SMI_FULL_SHARE * g.total);
    if (full.length === 1 && inUse.length === 1)
      return { phase: 'other-process', reason: 'smi-full-before-ours', line: full[0]!.line() };
  }

  if (!hasMessage) {
    const held = table.processes.find(
      (p) => p.type.includes('C') && p.usedMiB !== null && mib(p.usedMiB) >= UNACCOUNTED_MIN_BYTES,
    );
    if (held) return { phase: 'other-process', reason: 'smi-rows', line: rowLine(held) };
  }
  return null;
}
