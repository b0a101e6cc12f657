/**
 * The names on both sides of the fleet: the series Headroom exports (`/metrics` of `headroom serve`
 * and `headroom run --metrics-port`) and the dcgm-exporter series `headroom fleet` reads beside them.
 * The exporter, the fleet reader, the Grafana dashboard's test and the docs all take them from here.
 */

/** The memory levels of a run, as in the ledger: torch allocated, torch reserved, nvidia-smi per process. */
export const MEMORY_LEVELS = ['allocated', 'reserved', 'device'] as const;
export type MemoryLevel = (typeof MEMORY_LEVELS)[number];

/**
 * dcgm-exporter's labels on every GPU series (internal/pkg/rendermetrics/render_metrics.go, release
 * 4.5.3-4.8.2: `gpu`, `UUID`, `pci_bus_id`, `device`, `modelName`, `Hostname`; MIG adds
 * `GPU_I_PROFILE` and `GPU_I_ID`). Its master after that release renames `Hostname` to `hostname`
 * (commit d5e5f51, "Rename Hostname label to hostname", May 2026): the reader takes either.
 */
export const DCGM_LABELS = {
  hostname: 'Hostname',
  hostnameLater: 'hostname',
  gpu: 'gpu',
  uuid: 'UUID',
  device: 'device',
  modelName: 'modelName',
  migInstance: 'GPU_I_ID',
} as const;

/**
 * The framebuffer series of dcgm-exporter's default counters (etc/default-counters.csv: "Framebuffer
 * memory used / free / reserved (in MiB)"), all gauges in MiB.
 */
export const DCGM_FB_METRICS = {
  used: 'DCGM_FI_DEV_FB_USED',
  free: 'DCGM_FI_DEV_FB_FREE',
  reserved: 'DCGM_FI_DEV_FB_RESERVED',
} as const;

/** The label names our per-card series share with dcgm-exporter's, so PromQL and Grafana can join on them. */
const JOIN = [DCGM_LABELS.hostname, DCGM_LABELS.gpu, DCGM_LABELS.uuid] as const;

/** One series family Headroom exports. */
export interface HeadroomMetric {
  readonly name: string;
  readonly help: string;
  readonly labels: readonly string[];
}

/** Every series Headroom exports; all are gauges. */
export const HEADROOM_METRICS = {
  peakBytes: {
    name: 'headroom_run_peak_bytes',
    help: 'Peak GPU memory of a run on one rank and card, in bytes: level allocated and reserved from torch (the probe), device from nvidia-smi per process.',
    labels: ['run', 'name', 'rank', ...JOIN, 'level'],
  },
  step: {
    name: 'headroom_run_step',
    help: 'The last training step a rank of the run reported.',
    labels: ['run', 'rank'],
  },
  running: {
    name: 'headroom_run_running',
    help: '1 while the run is being recorded (status running), else 0.',
    labels: ['run', 'name', DCGM_LABELS.hostname],
  },
  estimateBytes: {
    name: 'headroom_run_estimate_bytes',
    help: "The estimator's per-GPU peak for the run's scenario, in bytes, by level.",
    labels: ['run', 'level'],
  },
  upperBytes: {
    name: 'headroom_run_upper_bytes',
    help: "The estimate's upper bound for the run's scenario, in bytes, by level.",
    labels: ['run', 'level'],
  },
  findings: {
    name: 'headroom_findings',
    help: "How many of the run's diagnosis findings have this code and severity.",
    labels: ['run', 'code', 'severity'],
  },
} as const satisfies Readonly<Record<string, HeadroomMetric>>;

/** The names of every series Headroom exports. */
export const HEADROOM_METRIC_NAMES: readonly string[] = Object.values(HEADROOM_METRICS).map((m) => m.name);
