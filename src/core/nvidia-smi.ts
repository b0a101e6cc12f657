/**
 * nvidia-smi's machine-readable output, `--query-gpu=…` and `--query-compute-apps=…` with
 * `--format=csv[,noheader][,nounits]`, parsed from text. Format facts (data/docs/MONITORING.md §A2,
 * from `nvidia-smi --help-query-*` of driver 590.48.01 and captured outputs):
 * - values are separated by ", "; the header names the fields with units in brackets
 *   (`memory.used [MiB]`); `noheader` drops that line only, `nounits` drops the units everywhere;
 * - a value nvidia-smi cannot give prints as a bracketed token (`[N/A]`, `[Not Supported]`,
 *   `[Insufficient Permissions]`, ...): no value, the text kept;
 * - process names may contain commas (Windows paths): the cells before the name are read from the
 *   left and those after it from the right, as utkuozdemir/nvidia_gpu_exporter does.
 * A row that cannot be read is reported as a problem with its line number, never thrown.
 */
import { GIB, KIB, MIB } from './units.js';

/** One value as nvidia-smi printed it. */
export interface SmiCell {
  /** The text, trimmed. */
  readonly raw: string;
  /** A number when the text is one (units stripped); null for `[N/A]`-style tokens and `N/A`; else the text. */
  readonly value: number | string | null;
  /** The unit printed with the value (`MiB`, `%`, `W`) or in the header; null without one. */
  readonly unit: string | null;
}

export interface SmiCsvRow {
  /** 1-based line number in the text. */
  readonly line: number;
  /** Cells by canonical field name (see `canonicalField`). */
  readonly cells: Readonly<Record<string, SmiCell>>;
}

export interface SmiCsvProblem {
  readonly line: number;
  readonly text: string;
  readonly message: string;
}

export interface SmiCsv {
  /** Canonical field names, in column order. */
  readonly fields: readonly string[];
  readonly hadHeader: boolean;
  readonly rows: readonly SmiCsvRow[];
  readonly problems: readonly SmiCsvProblem[];
}

// Aliases of --query-compute-apps, mapped to the name its header prints
// (10_h200_help_query_compute_apps.txt: "process_name" or "name", "used_gpu_memory" or "used_memory";
// 26_*: queried as `name`, printed as `process_name`). --query-gpu's aliases (`name`/`gpu_name`,
// `uuid`/`gpu_uuid`) are both read by readGpuRows.
const APP_ALIASES: Readonly<Record<string, string>> = {
  name: 'process_name',
  used_memory: 'used_gpu_memory',
};

/** The field name nvidia-smi's header prints for a query field (`used_memory` → `used_gpu_memory`). */
export function canonicalField(field: string, kind: 'gpu' | 'apps' = 'gpu'): string {
  // A trailing `[unit]` goes, from the first `[` (read without a regex: `\s*\[.*\]$` is quadratic on spaces).
  const trimmed = field.trim();
  const open = trimmed.endsWith(']') ? trimmed.indexOf('[') : -1;
  const name = open < 0 ? trimmed : trimmed.slice(0, open).trimEnd();
  return kind === 'apps' ? (APP_ALIASES[name] ?? name) : name;
}

const NAME_FIELDS = ['process_name', 'name', 'gpu_name'];
const NUMBER_WITH_UNIT = /^(-?\d+(?:\.\d+)?)(?: ?([A-Za-z%]+))?$/;
const HEADER_CELL = /^[a-z][\w.]*(?: \[[^\]]+\])?$/;

function readCell(raw: string, headerUnit: string | null): SmiCell {
  if ((raw.startsWith('[') && raw.endsWith(']')) || raw === 'N/A')
    return { raw, value: null, unit: headerUnit };
  const m = NUMBER_WITH_UNIT.exec(raw);
  if (m) return { raw, value: Number(m[1]), unit: m[2] ?? headerUnit };
  return { raw, value: raw, unit: headerUnit };
}

function splitCells(line: string): string[] {
  return (line.includes(', ') ? line.split(', ') : line.split(',')).map((c) => c.trim());
}

function looksLikeHeader(cells: readonly string[]): boolean {
  return cells.length > 0 && cells.every((c) => HEADER_CELL.test(c));
}

/**
 * Parses CSV output. With a header line, the fields come from it; without one (`noheader`), pass
 * the queried `fields` in order. Lines starting with `#` are skipped (they are never nvidia-smi's),
 * as are repeats of the header (a `-lms` loop may print it again).
 */
export function parseNvidiaSmiCsv(
  text: string,
  options: { readonly fields?: readonly string[]; readonly kind?: 'gpu' | 'apps' } = {},
): SmiCsv {
  const kind = options.kind ?? 'gpu';
  const lines = text.split(/\r?\n/);
  const rows: SmiCsvRow[] = [];
  const problems: SmiCsvProblem[] = [];
  let fields: string[] | null = options.fields ? options.fields.map((f) => canonicalField(f, kind)) : null;
  let units: (string | null)[] = fields ? fields.map(() => null) : [];
  let headerLine: string | null = null;
  let hadHeader = false;
  lines.forEach((rawLine, i) => {
    const line = rawLine.trim();
    const number = i + 1;
    if (line === '' || line.startsWith('#') || line === headerLine) return;
    const cells = splitCells(line);
    if (looksLikeHeader(cells)) {
      const names = cells.map((c) => canonicalField(c, kind));
      if (fields === null || names.join() === fields.join()) {
        fields = names;
        units = cells.map((c) => /\[([^\]]+)\]$/.exec(c)?.[1] ?? null);
        headerLine = line;
        hadHeader = true;
        return;
      }
    }
    if (fields === null) {
      problems.push({ line: number, text: line, message: 'no header line: pass the queried fields' });
      return;
    }
    let values = cells;
    if (values.length > fields.length) {
      // Commas inside a name: everything between the cells before it and those after it is the name.
      const nameAt = fields.findIndex((f) => NAME_FIELDS.includes(f));
      if (nameAt < 0) {
        problems.push({
          line: number,
          text: line,
          message: `expected ${fields.length} values, found ${values.length}`,
        });
        return;
      }
      const after = fields.length - nameAt - 1;
      values = [
        ...cells.slice(0, nameAt),
        cells.slice(nameAt, cells.length - after).join(', '),
        ...cells.slice(cells.length - after),
      ];
    }
    if (values.length < fields.length) {
      problems.push({
        line: number,
        text: line,
        message: `expected ${fields.length} values, found ${values.length}`,
      });
      return;
    }
    const row: Record<string, SmiCell> = {};
    fields.forEach((field, k) => {
      row[field] = readCell(values[k]!, units[k] ?? null);
    });
    rows.push({ line: number, cells: row });
  });
  return { fields: fields ?? [], hadHeader, rows, problems };
}

/** One GPU from `--query-gpu`; memory in MiB as printed (1 MiB = 2^20 bytes). */
export interface SmiGpuRow {
  readonly line: number;
  readonly timestamp: string | null;
  readonly index: number | null;
  readonly uuid: string | null;
  readonly name: string | null;
  readonly busId: string | null;
  readonly memoryTotalMiB: number | null;
  /** Driver and firmware reserve (`_v2` drivers); null where the driver does not report it. */
  readonly memoryReservedMiB: number | null;
  /** Memory of active contexts; excludes the reserve on `_v2` drivers (do not compute it as total − free). */
  readonly memoryUsedMiB: number | null;
  readonly memoryFreeMiB: number | null;
  readonly utilizationGpuPercent: number | null;
  readonly migMode: string | null;
}

/** One process from `--query-compute-apps`; null where nvidia-smi printed `[N/A]` or the field was not queried. */
export interface SmiComputeApp {
  readonly line: number;
  readonly timestamp: string | null;
  readonly gpuName: string | null;
  readonly gpuBusId: string | null;
  readonly gpuUuid: string | null;
  readonly pid: number | null;
  readonly name: string | null;
  readonly usedMiB: number | null;
}

const BYTES_PER_UNIT: Readonly<Record<string, number>> = { B: 1, KiB: KIB, MiB: MIB, GiB: GIB };

function mib(cell: SmiCell | undefined): number | null {
  if (!cell || typeof cell.value !== 'number') return null;
  const per = BYTES_PER_UNIT[cell.unit ?? 'MiB'];
  return per === undefined ? null : (cell.value * per) / MIB;
}

function num(cell: SmiCell | undefined): number | null {
  return cell && typeof cell.value === 'number' ? cell.value : null;
}

function str(cell: SmiCell | undefined): string | null {
  if (!cell || cell.value === null) return null;
  return cell.raw;
}

function pick(cells: Readonly<Record<string, SmiCell>>, ...names: string[]): SmiCell | undefined {
  for (const n of names) if (cells[n]) return cells[n];
  return undefined;
}

/** Reads `--query-gpu` rows (any field order; missing fields are null). */
export function readGpuRows(csv: SmiCsv): SmiGpuRow[] {
  return csv.rows.map(({ line, cells }) => ({
    line,
    timestamp: str(cells.timestamp),
    index: num(cells.index),
    uuid: str(pick(cells, 'uuid', 'gpu_uuid')),
    name: str(pick(cells, 'name', 'gpu_name')),
    busId: str(pick(cells, 'pci.bus_id', 'gpu_bus_id')),
    memoryTotalMiB: mib(cells['memory.total']),
    memoryReservedMiB: mib(cells['memory.reserved']),
    memoryUsedMiB: mib(cells['memory.used']),
    memoryFreeMiB: mib(cells['memory.free']),
    utilizationGpuPercent: num(cells['utilization.gpu']),
    migMode: str(cells['mig.mode.current']),
  }));
}

/** Reads `--query-compute-apps` rows (any field order; missing fields are null). */
export function readComputeApps(csv: SmiCsv): SmiComputeApp[] {
  return csv.rows.map(({ line, cells }) => ({
    line,
    timestamp: str(cells.timestamp),
    gpuName: str(cells.gpu_name),
    gpuBusId: str(cells.gpu_bus_id),
    gpuUuid: str(cells.gpu_uuid),
    pid: num(cells.pid),
    name: str(cells.process_name),
    usedMiB: mib(cells.used_gpu_memory),
  }));
}

/** Parses `--query-gpu` output in one call. */
export function parseGpuQuery(
  text: string,
  fields?: readonly string[],
): { readonly gpus: SmiGpuRow[]; readonly problems: readonly SmiCsvProblem[] } {
  const csv = parseNvidiaSmiCsv(text, fields ? { fields, kind: 'gpu' } : { kind: 'gpu' });
  return { gpus: readGpuRows(csv), problems: csv.problems };
}

/** Parses `--query-compute-apps` output in one call. */
export function parseComputeApps(
  text: string,
  fields?: readonly string[],
): { readonly processes: SmiComputeApp[]; readonly problems: readonly SmiCsvProblem[] } {
  const csv = parseNvidiaSmiCsv(text, fields ? { fields, kind: 'apps' } : { kind: 'apps' });
  return { processes: readComputeApps(csv), problems: csv.problems };
}
