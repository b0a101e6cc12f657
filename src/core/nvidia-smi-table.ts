/**
 * nvidia-smi's human table (plain `nvidia-smi`), parsed from text: per-GPU memory, MIG devices and
 * processes. A fallback for when only a pasted table is at hand; the sampler reads the CSV
 * (nvidia-smi.ts). Layouts seen (data/docs/MONITORING.md, samples 01–31 in
 * data/validation/nvidia-smi): the old 79-column table (driver 410–470) and the new 89-column one
 * (GI/CI process columns), `NNNNMiB / NNNNNMiB` memory cells, per-process memory as `NNNNMiB` or
 * `N/A` (Windows WDDM), names truncated with `...`, MIG blocks with a BAR1 line per instance.
 * Rows are recognised by their shape, so excerpts without headers still parse.
 */

export interface TableGpu {
  readonly index: number;
  /** As printed (possibly truncated with `...`). */
  readonly name: string;
  readonly usedMiB: number;
  readonly totalMiB: number;
}

export type TableProcessType = 'C' | 'G' | 'C+G' | 'M' | 'M+C';

export interface TableProcess {
  readonly gpu: number;
  /** GPU instance id (MIG); null where printed N/A or in the old layout. */
  readonly gi: number | null;
  readonly ci: number | null;
  readonly pid: number;
  readonly type: TableProcessType;
  /** As printed (possibly truncated with `...`; `Unknown Error` for a dead PID). */
  readonly name: string;
  /** Null where nvidia-smi prints N/A (Windows WDDM). */
  readonly usedMiB: number | null;
}

export interface TableMigDevice {
  readonly gpu: number;
  readonly gi: number;
  readonly ci: number;
  readonly migDev: number;
  readonly usedMiB: number;
  readonly totalMiB: number;
  readonly bar1UsedMiB?: number;
  readonly bar1TotalMiB?: number;
}

export interface NvidiaSmiTable {
  readonly gpus: readonly TableGpu[];
  readonly processes: readonly TableProcess[];
  readonly migDevices: readonly TableMigDevice[];
}

// `|   0  NVIDIA H200                    On  |   00000000:83:00.0 Off |` (Persistence-M, or the
// Windows driver model, closes the first cell).
// Each pattern is linear: a group before a run of spaces ends on a non-space (so the run has one
// split), a number starts where a digit run starts, and a line is read trimmed, so no `\s*` pair meets.
const GPU_ROW = /^\|\s*(\d+)\s+(\S(?:.*?\S)?)\s+(?:On|Off|WDDM|TCC)\s*\|/;
const MEMORY_CELL = /(?<!\d)(\d+)MiB\s*\/\s*(\d+)MiB/;
// `|  0    2   0   0  |           11091MiB / 40448MiB    | ...`, then `|                  |    0MiB / 24739MiB |`
const MIG_ROW = /^\|\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\|\s*(\d+)MiB\s*\/\s*(\d+)MiB/;
const MIG_BAR1_ROW = /^\|\s*\|\s*(\d+)MiB\s*\/\s*(\d+)MiB/;
// `|    0    2    0   21180   C   /root/tools/memhog   2296MiB |` (new) or `|    1   7653   C   python   5369MiB |` (old)
const PROCESS_ROW =
  /^\|?\s*(\d+)\s+(?:(\d+|N\/A)\s+(\d+|N\/A)\s+)?(\d+)\s+(C\+G|M\+C|C|G|M)\s+([^|\s](?:[^|]*?[^|\s])?)\s+(?:(\d+)MiB|N\/A)(?:\s*\|)?$/;

/** nvidia-smi prints its table 79 or 89 columns wide (a little more for long names): longer lines are not rows. */
export const MAX_TABLE_LINE_CHARS = 512;

const idOrNull = (s: string | undefined): number | null =>
  s === undefined || s === 'N/A' ? null : Number(s);

/** Parses one nvidia-smi table (or an excerpt of one). */
export function parseNvidiaSmiTable(text: string): NvidiaSmiTable {
  const lines = text.split(/\r?\n/);
  const gpus: TableGpu[] = [];
  const processes: TableProcess[] = [];
  const migDevices: TableMigDevice[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trimEnd();
    if (line.length > MAX_TABLE_LINE_CHARS) continue;
    const gpu = GPU_ROW.exec(line);
    if (gpu) {
      const memory = MEMORY_CELL.exec((lines[i + 1] ?? '').slice(0, MAX_TABLE_LINE_CHARS));
      if (memory) {
        gpus.push({
          index: Number(gpu[1]),
          name: gpu[2]!.trim(),
          usedMiB: Number(memory[1]),
          totalMiB: Number(memory[2]),
        });
        i++;
      }
      continue;
    }
    const mig = MIG_ROW.exec(line);
    if (mig) {
      const bar1 = MIG_BAR1_ROW.exec((lines[i + 1] ?? '').slice(0, MAX_TABLE_LINE_CHARS));
      migDevices.push({
        gpu: Number(mig[1]),
        gi: Number(mig[2]),
        ci: Number(mig[3]),
        migDev: Number(mig[4]),
        usedMiB: Number(mig[5]),
        totalMiB: Number(mig[6]),
        ...(bar1 ? { bar1UsedMiB: Number(bar1[1]), bar1TotalMiB: Number(bar1[2]) } : {}),
      });
      if (bar1) i++;
      continue;
    }
    const proc = PROCESS_ROW.exec(line);
    if (proc) {
      processes.push({
        gpu: Number(proc[1]),
        gi: idOrNull(proc[2]),
        ci: idOrNull(proc[3]),
        pid: Number(proc[4]),
        type: proc[5] as TableProcessType,
        name: proc[6]!.trim(),
        usedMiB: proc[7] === undefined ? null : Number(proc[7]),
      });
    }
  }
  return { gpus, processes, migDevices };
}
