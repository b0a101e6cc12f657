/**
 * What the Prometheus exposition reads: runs, each with its ranks (one card each), the estimate and
 * its upper bound per level, and the diagnosis findings. The exporter (src/io/metrics-registry.ts)
 * knows nothing else; a ledger is one implementation (src/io/metrics-ledger.ts), a test's list of
 * runs is another, so a later per-rank ledger only swaps the implementation.
 */

/** The three levels of one figure, in bytes; null where it is unknown. */
export interface LevelBytes {
  readonly allocatedBytes: number | null;
  readonly reservedBytes: number | null;
  readonly deviceBytes: number | null;
}

/** One rank of a run on one card. */
export interface RankMetrics {
  /** The global rank (torchrun's RANK). */
  readonly rank: number;
  readonly localRank: number | null;
  /** The machine the rank ran on (its probe's socket.gethostname()). */
  readonly host: string | null;
  /** The card's index as nvidia-smi and dcgm-exporter number it (not necessarily the CUDA ordinal). */
  readonly gpu: number | null;
  /** The card's UUID as NVML writes it (`GPU-…`). */
  readonly uuid: string | null;
  readonly peakAllocatedBytes: number | null;
  readonly peakReservedBytes: number | null;
  readonly peakDeviceBytes: number | null;
  /** The last step the rank reported. */
  readonly lastStep: number | null;
}

/** A finding of the run's diagnosis, as the exposition counts it. */
export interface FindingCount {
  readonly code: string;
  readonly severity: string;
  readonly count: number;
}

export interface RunMetrics {
  readonly id: number;
  /** The run's name, else `run <id>`. */
  readonly name: string;
  readonly running: boolean;
  readonly host: string | null;
  readonly ranks: readonly RankMetrics[];
  readonly estimate: LevelBytes | null;
  /** The estimate's upper bound (estimate.upper), where the estimate has one. */
  readonly upper: LevelBytes | null;
  readonly findings: readonly FindingCount[];
}

/** Where the exposition reads runs from; called once per scrape. */
export interface MetricsSource {
  runs(): readonly RunMetrics[] | Promise<readonly RunMetrics[]>;
}

const BARE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A card UUID in NVML's spelling, which nvidia-smi and dcgm-exporter print (`GPU-` and lower-case
 * hex). torch's `get_device_properties(i).uuid` prints the same 16 bytes as bare 8-4-4-4-12 hex
 * (torch/csrc/cuda/Module.cpp, uuid_to_string), without the prefix. MIG UUIDs (`MIG-…`) pass as they are.
 */
export function nvmlUuid(uuid: string | null | undefined): string | null {
  if (uuid === null || uuid === undefined) return null;
  const text = uuid.trim();
  if (text === '') return null;
  if (BARE_UUID.test(text)) return `GPU-${text.toLowerCase()}`;
  return text;
}

/** A card as nvidia-smi listed it before the run (the run's env.gpus). */
export interface ListedGpu {
  readonly index: number;
  readonly uuid: string | null;
}

/**
 * The nvidia-smi index and UUID of the card behind a CUDA ordinal. The probe's UUID, when it gave one,
 * is looked up in the cards nvidia-smi listed. Else CUDA_VISIBLE_DEVICES maps the ordinal to the index
 * or UUID it lists. Else the ordinal is taken as the index: CUDA numbers cards fastest first unless
 * CUDA_DEVICE_ORDER=PCI_BUS_ID, nvidia-smi by PCI bus, which agree on a machine of identical cards
 * (CUDA C Programming Guide, "CUDA Environment Variables").
 */
export function cardOf(
  ordinal: number | null,
  probeUuid: string | null,
  cudaVisibleDevices: string | null,
  listed: readonly ListedGpu[],
): { gpu: number | null; uuid: string | null } {
  const find = (uuid: string | null) =>
    uuid === null ? undefined : listed.find((g) => nvmlUuid(g.uuid) === uuid);
  const uuid = nvmlUuid(probeUuid);
  const known = find(uuid);
  if (known) return { gpu: known.index, uuid };
  let gpu = ordinal;
  let visibleUuid: string | null = null;
  if (cudaVisibleDevices !== null && ordinal !== null) {
    const entry = cudaVisibleDevices
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')[ordinal];
    if (entry === undefined) gpu = null;
    else if (/^\d+$/.test(entry)) gpu = Number(entry);
    else {
      visibleUuid = nvmlUuid(entry);
      gpu = find(visibleUuid)?.index ?? null;
    }
  }
  const listedUuid = gpu === null ? null : nvmlUuid(listed.find((g) => g.index === gpu)?.uuid);
  return { gpu, uuid: uuid ?? visibleUuid ?? listedUuid };
}
