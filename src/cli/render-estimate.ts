/**
 * The human view of an estimate: the scenario in one line, a bar per part scaled to the GPU, the peaks.
 * Every word comes from the catalog (src/words: estimate-view, peak-terms, advice, estimate-notes) in
 * the language asked for.
 */
import { attackFirst, type Part } from '../core/advice.js';
import type { GpuSpec } from '../core/catalog/gpu-spec.js';
import type { Estimate } from '../core/estimate.js';
import type { Fit } from '../core/margin.js';
import type { MessageOf } from '../core/message.js';
import type { ResolvedModel } from '../core/model-ref.js';
import type { Scenario } from '../core/scenario.js';
import { say } from '../words/catalog.js';
import { ESTIMATE_VIEW, type EstimateViewParams } from '../words/estimate-view.js';
import { FORMATS } from '../words/format.js';
import { profileExplain, profileLine } from '../words/frameworks.js';
import type { Lang } from '../words/lang.js';
import { peakTermLabel } from '../words/peak-terms.js';
import { describeScenario } from '../words/scenario-line.js';
import { modelNotes, resolutionLine } from './_model-words.js';
import type { Style } from './_output.js';

const BAR_WIDTH = 40;
/** The parts in the order their bars are drawn. */
const PARTS: readonly Part[] = ['weights', 'gradients', 'optimizer', 'activations', 'runtime'];

type ViewMessage = MessageOf<EstimateViewParams>;

/** One line or label of the view in the language. */
const view = (lang: Lang, message: ViewMessage): string => say(ESTIMATE_VIEW, lang, message);

/** Columns a string takes in a terminal: CJK and full-width characters take two. */
function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text)
    width +=
      /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch)
        ? 2
        : 1;
  return width;
}

/** Pads to a width in terminal columns (padEnd counts characters, which misaligns Chinese). */
function padDisplay(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/** Wraps each of `pieces` (in order, each after the last) where it occurs in `text`. */
function emphasize(text: string, pieces: readonly string[], em: (s: string) => string): string {
  let out = '';
  let rest = text;
  for (const piece of pieces) {
    const at = rest.indexOf(piece);
    if (at < 0) continue;
    out += rest.slice(0, at) + em(piece);
    rest = rest.slice(at + piece.length);
  }
  return out + rest;
}

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
  /** The language of the words (--lang); English unless given. */
  readonly lang?: Lang;
}): string {
  const { result, scenario, model, gpu, style } = input;
  const lang = input.lang ?? 'en';
  const f = FORMATS[lang];
  const lines: string[] = [];
  lines.push(style.bold(describeScenario(scenario, model.id)));
  const resolved = resolutionLine(model, lang);
  if (resolved) lines.push(style.dim(resolved));
  for (const note of modelNotes(model, scenario.quantization, lang)) lines.push(style.yellow(note));
  lines.push(
    style.dim(
      view(lang, {
        code: 'params-line',
        params: {
          total: result.params.total,
          trainable: result.params.trainable,
          exactFromWeights: result.params.exactFromWeights,
          source: model.source,
        },
      }),
    ),
  );
  // What the framework's profile set for the fields the user left out; each fact's id under --explain.
  if (scenario.profile) {
    lines.push(style.dim(profileLine(scenario.profile, scenario.precision, lang)));
    if (input.explain) lines.push(...profileExplain(scenario.profile, lang).map((l) => style.dim(`  ${l}`)));
  }
  lines.push('');
  const usable = result.fits?.usableBytes ?? null;
  const scale = Math.max(usable ?? 0, result.peak.deviceBytes);
  const colors: Readonly<Record<Part, (s: string) => string>> = {
    weights: style.blue,
    gradients: style.magenta,
    optimizer: style.yellow,
    activations: style.cyan,
    runtime: style.dim,
  };
  for (const part of PARTS) {
    const bytes = result.components[part];
    const b = bar(bytes, scale, BAR_WIDTH);
    const label = view(lang, { code: 'part', params: { part } });
    lines.push(
      `  ${padDisplay(label, 12)} ${colors[part](b)}${' '.repeat(Math.max(0, BAR_WIDTH - b.length))} ${f.bytes(bytes).padStart(10)}`,
    );
  }
  // The stacked total against the card, one character per 1/BAR_WIDTH of the scale.
  let stacked = '';
  let stackedCells = 0;
  for (const part of PARTS) {
    const cells = Math.round((result.components[part] / scale) * BAR_WIDTH);
    stacked += colors[part]('█'.repeat(cells));
    stackedCells += cells;
  }
  const free =
    usable === null ? '' : '░'.repeat(Math.max(0, Math.round((usable / scale) * BAR_WIDTH) - stackedCells));
  const usableOn =
    usable === null
      ? ''
      : style.dim(`┃ ${view(lang, { code: 'usable-on', params: { bytes: usable, gpu: gpu?.id ?? '' } })}`);
  lines.push(
    `  ${padDisplay(view(lang, { code: 'total', params: {} }), 12)} ${stacked}${style.dim(free)}${usableOn}`,
  );
  lines.push('');
  const { allocatedBytes, reservedBytes, deviceBytes } = result.peak;
  const upper = result.upper;
  const peakLine = view(lang, {
    code: 'peak-levels',
    params: {
      phase: result.peakPhase,
      allocatedBytes,
      reservedBytes,
      deviceBytes,
      allocatedUpperBytes: upper.allocatedBytes,
      reservedUpperBytes: upper.reservedBytes,
      deviceUpperBytes: upper.deviceBytes,
    },
  });
  const phaseWord = view(lang, { code: 'phase', params: { phase: result.peakPhase } });
  lines.push(
    `  ${emphasize(
      peakLine,
      [
        phaseWord,
        f.bytesRange(allocatedBytes, upper.allocatedBytes),
        f.bytesRange(reservedBytes, upper.reservedBytes),
        f.bytesRange(deviceBytes, upper.deviceBytes),
      ],
      style.bold,
    )}`,
  );
  lines.push(style.dim(`  ${view(lang, { code: 'peak-levels-hint', params: {} })}`));
  // A padded run's climb tops the ranges; the basis speaks for what the card must hold.
  const climbs = upper.deviceBytes > upper.neededDeviceBytes;
  const neededReserved = upper.reservedBytes - (upper.deviceBytes - upper.neededDeviceBytes);
  // The levels nest (upper.ts): the bound at nvidia-smi may be set by allocated's or reserved's ratio.
  const level =
    upper.neededDeviceBytes > Math.round(deviceBytes * upper.basis.device.ratio) + 1
      ? neededReserved > Math.round(reservedBytes * upper.basis.reserved.ratio) + 1
        ? ('allocated' as const)
        : ('reserved' as const)
      : ('device' as const);
  const basis = upper.basis[level];
  lines.push(
    style.dim(
      `  ${view(lang, {
        code: 'upper-basis',
        params: {
          ...basis.kind,
          rows: basis.rows,
          sources: basis.sources,
          ratio: basis.ratio,
          from: basis.from,
          level,
          effective: upper.neededDeviceBytes / deviceBytes,
        },
      })}`,
    ),
  );
  if (climbs)
    lines.push(
      style.dim(
        `  ${view(lang, {
          code: 'upper-climb',
          params: {
            reservedUpperBytes: upper.reservedBytes,
            deviceUpperBytes: upper.deviceBytes,
            neededBytes: upper.neededDeviceBytes,
          },
        })}`,
      ),
    );
  if (input.explain) lines.push('', renderPeakTerms(result, style, lang), '');
  if (result.host) {
    lines.push(`  ${view(lang, { code: 'host-memory', params: result.host })}`);
  }
  if (result.fits && gpu) {
    lines.push(...renderVerdict(result.fits, gpu.name, style, lang));
  } else {
    lines.push(style.dim(`  ${view(lang, { code: 'add-gpu', params: {} })}`));
  }
  const attacks = attackFirst(result, scenario);
  if (attacks.length > 0) {
    lines.push('');
    lines.push(`  ${view(lang, { code: 'attack-first', params: {} })}`);
    attacks.forEach((a, i) => {
      lines.push(`   ${i + 1}. ${view(lang, { code: 'attack', params: a })}`);
    });
  }
  for (const note of result.notes)
    lines.push(style.dim(`  ${view(lang, { code: 'note', params: { note } })}`));
  return lines.join('\n');
}

/**
 * The fit verdict (margin.ts), as `fit`, `plan` and `gpus --for` judge it: what must be on the GPU at
 * the peak against its memory less the margin. A run inside the card but not inside the margin does not
 * fit, and the line says which of the two it misses.
 */
export function renderVerdict(fit: Fit, gpuName: string, style: Style, lang: Lang = 'en'): string[] {
  const marginFraction = fit.marginFraction;
  if (!fit.ok) {
    const over = fit.requiredBytes - fit.usableBytes;
    if (over > 0) {
      const words = view(lang, {
        code: 'fit-over-card',
        params: {
          gpu: gpuName,
          requiredBytes: fit.requiredBytes,
          overBytes: over,
          usableBytes: fit.usableBytes,
        },
      });
      return [style.red(`  ✗ ${words}`)];
    }
    const words = view(lang, {
      code: 'fit-over-margin',
      params: {
        gpu: gpuName,
        marginFraction,
        requiredBytes: fit.requiredBytes,
        usableBytes: fit.usableBytes,
        overBytes: fit.requiredBytes - fit.budgetBytes,
        budgetBytes: fit.budgetBytes,
      },
    });
    return [
      style.red(`  ✗ ${words}`),
      style.dim(`    ${view(lang, { code: 'margin-budget', params: { marginFraction } })}`),
    ];
  }
  if (fit.pagedToHostBytes > 0) {
    const words = view(lang, {
      code: 'fits-paged',
      params: { gpu: gpuName, marginFraction, pagedToHostBytes: fit.pagedToHostBytes },
    });
    return [style.yellow(`  ✓ ${words}`)];
  }
  const words = view(lang, {
    code: 'fits',
    params: { gpu: gpuName, headroomBytes: fit.headroomBytes, usableBytes: fit.usableBytes, marginFraction },
  });
  return [style.green(`  ✓ ${words}`)];
}

/**
 * How the peak adds up: the peak phase's terms (torch allocated), then what the allocator reserves
 * above them and what the process holds outside torch, up to the nvidia-smi figure.
 */
export function renderPeakTerms(result: Estimate, style: Style, lang: Lang = 'en'): string {
  const { allocatedBytes, reservedBytes, deviceBytes } = result.peak;
  const f = FORMATS[lang];
  const terms = (result.peakTerms ?? []).map((t) => ({ label: peakTermLabel(lang, t.term), bytes: t.bytes }));
  const reserve = view(lang, { code: 'terms-reserve', params: { basis: result.reserveBasis } });
  // Padded batches: the reserve's growth over the run, on its own row (allocator.ts).
  const growth = result.breakdown.variableLengthReserveBytes;
  const growthLabel = view(lang, { code: 'terms-reserve-growth', params: {} });
  const need = result.breakdown.variableLengthNeedBytes;
  const needLabel = view(lang, { code: 'terms-reserve-need', params: {} });
  // FSDP's side streams' pools, in reserved on a row of their own (allocator.ts streamCacheBytes).
  const streams = result.breakdown.reserveStreamCacheBytes ?? 0;
  const streamsLabel = view(lang, { code: 'terms-stream-cache', params: {} });
  const outside = view(lang, { code: 'terms-outside', params: {} });
  const reservedTotal = view(lang, { code: 'terms-reserved', params: { bytes: reservedBytes } });
  const labelWidth = Math.max(
    streams > 0 ? displayWidth(streamsLabel) : 0,
    ...terms.map((t) => displayWidth(t.label)),
    displayWidth(outside),
    displayWidth(reserve),
    growth > 0 ? displayWidth(growthLabel) : 0,
    growth > 0 ? displayWidth(needLabel) : 0,
  );
  // A term's row has a bar against the nvidia-smi peak; a total's row says what it adds up to.
  const row = (label: string, bytes: number, total?: string): string =>
    `    ${padDisplay(label, labelWidth)}  ${f.bytes(bytes).padStart(10)}  ${
      total === undefined ? style.cyan(bar(bytes, deviceBytes, BAR_WIDTH / 2)) : style.dim(total)
    }`.trimEnd();
  return [
    `  ${view(lang, { code: 'terms-heading', params: { phase: result.peakPhase } })}`,
    ...terms.map((t) => row(t.label, t.bytes)),
    style.bold(row(view(lang, { code: 'terms-allocated', params: {} }), allocatedBytes, '')),
    // The reserved total goes on the last row above it: the streams' when there are some.
    row(reserve, reservedBytes - allocatedBytes - streams, streams > 0 ? '' : reservedTotal),
    ...(streams > 0 ? [row(streamsLabel, streams, reservedTotal)] : []),
    row(
      outside,
      deviceBytes - reservedBytes,
      view(lang, { code: 'terms-device', params: { bytes: deviceBytes } }),
    ),
    // Not in the sum: the climb if batches keep reaching the cap, and what of it the upper bound carries.
    ...(growth > 0 ? [style.dim(row(growthLabel, growth, '')), style.dim(row(needLabel, need, ''))] : []),
  ].join('\n');
}
