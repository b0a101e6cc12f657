/** The human view of an estimate: the scenario in one line, a bar per part scaled to the GPU, the peaks. */
import { attackFirst } from '../core/advice.js';
import type { GpuSpec } from '../core/catalog/gpu-spec.js';
import { describeScenario, PEAK_TERM_LABELS } from '../core/describe.js';
import type { Components, Estimate } from '../core/estimate.js';
import type { Fit } from '../core/margin.js';
import type { ResolvedModel } from '../core/model-ref.js';
import type { Scenario } from '../core/scenario.js';
import { formatBytes, formatParams } from '../core/units.js';
import { say } from '../words/catalog.js';
import { ESTIMATE_NOTES } from '../words/estimate-notes.js';
import { marginReason } from '../words/margin.js';
import { prequantizedNote, resolutionLine } from './_model-words.js';
import type { Style } from './_output.js';

const BAR_WIDTH = 40;
const PART_LABELS: Readonly<Record<keyof Components, string>> = {
  weights: 'weights',
  gradients: 'gradients',
  optimizer: 'optimizer',
  activations: 'activations',
  runtime: 'runtime',
};

function bar(bytes: number, scaleBytes: number, width: number): string {
  const cells = (bytes / scaleBytes) * width;
  const full = Math.floor(cells);
  const partial = cells - full;
  const eighths = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
  const tail = full < width ? (eighths[Math.round(partial * 7)] ?? '') : '';
  const body = '█'.repeat(Math.min(full, width)) + tail;
  return body === '' && bytes > 0 ? '▏' : body;
}

/** Renders an estimate for the terminal. */
export function renderEstimate(input: {
  readonly result: Estimate;
  readonly scenario: Scenario;
  readonly model: ResolvedModel;
  readonly gpu: GpuSpec | null;
  readonly style: Style;
  /** Add how the peak adds up, term by term (--explain). */
  readonly explain?: boolean;
}): string {
  const { result, scenario, model, gpu, style } = input;
  const lines: string[] = [];
  lines.push(style.bold(describeScenario(scenario, model.id)));
  const resolved = resolutionLine(model);
  if (resolved) lines.push(style.dim(resolved));
  const stored = prequantizedNote(model, scenario.quantization);
  if (stored) lines.push(style.yellow(stored));
  const params = `${formatParams(result.params.total)} parameters (${result.params.exactFromWeights ? 'exact, from the weight files' : model.source}), ${formatParams(result.params.trainable)} trained`;
  lines.push(style.dim(`${params}; every figure is per GPU`));
  lines.push('');
  const usable = result.fits?.usableBytes ?? null;
  const scale = Math.max(usable ?? 0, result.peak.deviceBytes);
  const colors: Readonly<Record<keyof Components, (s: string) => string>> = {
    weights: style.blue,
    gradients: style.magenta,
    optimizer: style.yellow,
    activations: style.cyan,
    runtime: style.dim,
  };
  for (const part of Object.keys(PART_LABELS) as (keyof Components)[]) {
    const bytes = result.components[part];
    const b = bar(bytes, scale, BAR_WIDTH);
    lines.push(
      `  ${PART_LABELS[part].padEnd(12)} ${colors[part](b)}${' '.repeat(Math.max(0, BAR_WIDTH - b.length))} ${formatBytes(bytes).padStart(10)}`,
    );
  }
  // The stacked total against the card, one character per 1/BAR_WIDTH of the scale.
  let stacked = '';
  for (const part of Object.keys(PART_LABELS) as (keyof Components)[]) {
    stacked += colors[part]('█'.repeat(Math.round((result.components[part] / scale) * BAR_WIDTH)));
  }
  const stackedCells = (Object.keys(PART_LABELS) as (keyof Components)[]).reduce(
    (n, part) => n + Math.round((result.components[part] / scale) * BAR_WIDTH),
    0,
  );
  const free =
    usable === null ? '' : '░'.repeat(Math.max(0, Math.round((usable / scale) * BAR_WIDTH) - stackedCells));
  lines.push(
    `  ${'total'.padEnd(12)} ${stacked}${style.dim(free)}${usable === null ? '' : style.dim(`┃ ${formatBytes(usable)} usable on ${gpu?.id}`)}`,
  );
  lines.push('');
  const { allocatedBytes, reservedBytes, deviceBytes } = result.peak;
  lines.push(
    `  peak at ${style.bold(result.peakPhase)}:  allocated ${style.bold(formatBytes(allocatedBytes))}  ·  reserved ${style.bold(formatBytes(reservedBytes))}  ·  nvidia-smi ${style.bold(formatBytes(deviceBytes))}`,
  );
  lines.push(
    style.dim(
      '  (torch.cuda.max_memory_allocated · max_memory_reserved · what nvidia-smi shows for the process)',
    ),
  );
  if (input.explain) lines.push('', renderPeakTerms(result, style), '');
  if (result.host) {
    lines.push(
      `  host memory for offload: ${formatBytes(result.host.cpuBytes)} CPU RAM${result.host.nvmeBytes > 0 ? `, ${formatBytes(result.host.nvmeBytes)} NVMe` : ''} per node`,
    );
  }
  if (result.fits && gpu) {
    lines.push(...renderVerdict(result.fits, gpu.name, style));
  } else {
    lines.push(style.dim('  add --gpu ID to check the fit (headroom gpus lists them)'));
  }
  const attacks = attackFirst(result, scenario);
  if (attacks.length > 0) {
    lines.push('');
    lines.push('  attack first:');
    attacks.forEach((a, i) => {
      lines.push(
        `   ${i + 1}. ${a.part} (${formatBytes(a.bytes)}, ${(a.share * 100).toFixed(0)} %): ${a.remedies.slice(0, 3).join('; ')}`,
      );
    });
  }
  for (const note of result.notes) lines.push(style.dim(`  note: ${say(ESTIMATE_NOTES, 'en', note)}`));
  return lines.join('\n');
}

/**
 * The fit verdict (margin.ts), as `fit`, `plan` and `gpus --for` judge it: what must be on the GPU at
 * the peak against its memory less the margin. A run inside the card but not inside the margin does not
 * fit, and the line says which of the two it misses.
 */
export function renderVerdict(fit: Fit, gpuName: string, style: Style): string[] {
  const pct = Math.round(fit.marginFraction * 100);
  const margin = `the ${pct} % margin`;
  if (!fit.ok) {
    const over = fit.requiredBytes - fit.usableBytes;
    if (over > 0) {
      return [
        style.red(
          `  ✗ does not fit on ${gpuName}: needs ${formatBytes(fit.requiredBytes)}, ${formatBytes(over)} over its ${formatBytes(fit.usableBytes)}`,
        ),
      ];
    }
    return [
      style.red(
        `  ✗ does not fit on ${gpuName} with ${margin}: needs ${formatBytes(fit.requiredBytes)} of its ${formatBytes(fit.usableBytes)}, ${formatBytes(fit.requiredBytes - fit.budgetBytes)} over the ${formatBytes(fit.budgetBytes)} budget`,
      ),
      style.dim(`    the budget keeps ${margin} free (--headroom): ${marginReason('en')}`),
    ];
  }
  if (fit.pagedToHostBytes > 0) {
    return [
      style.yellow(
        `  ✓ fits on ${gpuName} with ${margin} only with ${formatBytes(fit.pagedToHostBytes)} of the paged optimizer states in CPU RAM: they are paged in for every optimizer step (slower)`,
      ),
    ];
  }
  const share = (fit.headroomBytes / fit.usableBytes) * 100;
  return [
    style.green(
      `  ✓ fits on ${gpuName} with ${formatBytes(fit.headroomBytes)} to spare (${share.toFixed(0)} % free; the budget keeps ${margin})`,
    ),
  ];
}

/**
 * How the peak adds up: the peak phase's terms (torch allocated), then what the allocator reserves
 * above them and what the process holds outside torch, up to the nvidia-smi figure.
 */
export function renderPeakTerms(result: Estimate, style: Style): string {
  const { allocatedBytes, reservedBytes, deviceBytes } = result.peak;
  const terms = (result.peakTerms ?? []).map((t) => ({ label: PEAK_TERM_LABELS[t.term], bytes: t.bytes }));
  const reserve = '+ allocator reserve and fragmentation';
  const outside = '+ outside torch (CUDA context, NCCL, paged states)';
  const labelWidth = Math.max(...terms.map((t) => t.label.length), outside.length);
  // A term's row has a bar against the nvidia-smi peak; a total's row says what it adds up to.
  const row = (label: string, bytes: number, total?: string): string =>
    `    ${label.padEnd(labelWidth)}  ${formatBytes(bytes).padStart(10)}  ${
      total === undefined ? style.cyan(bar(bytes, deviceBytes, BAR_WIDTH / 2)) : style.dim(total)
    }`.trimEnd();
  return [
    `  how the ${result.peakPhase} peak adds up (torch allocated, then above it):`,
    ...terms.map((t) => row(t.label, t.bytes)),
    style.bold(row('= allocated', allocatedBytes, '')),
    row(reserve, reservedBytes - allocatedBytes, `= reserved ${formatBytes(reservedBytes)}`),
    row(outside, deviceBytes - reservedBytes, `= nvidia-smi ${formatBytes(deviceBytes)}`),
  ].join('\n');
}
