/**
 * The demo run the dashboard shows next to the ledger's, so a newcomer sees every page with no GPU.
 * It is SYNTHETIC and labelled so everywhere: a Llama-3.2-3B LoRA run on an RTX 4090 whose per-step
 * peaks follow the estimator, whose reserved memory creeps up (variable-length batches), and whose
 * evaluation gathers predictions on the GPU until it runs out of memory at an evaluation step.
 */
import { shapeFromConfig } from '../core/architecture.js';
import { findGpu, findModel } from '../core/catalog/index.js';
import type { RunDetail, SamplePoint, StepPoint } from '../core/dashboard-types.js';
import { diagnose } from '../core/diagnose/index.js';
import type { TimelineStep } from '../core/diagnose/timeline.js';
import { estimate } from '../core/estimate.js';
import { usableBytes } from '../core/margin.js';
import { parseScenario } from '../core/scenario.js';
import { GIB, MIB } from '../core/units.js';
import { say } from '../words/catalog.js';
import type { Lang } from '../words/lang.js';
import { REPORT } from '../words/report.js';
import { findingViews } from './finding-views.js';

export interface DemoRun {
  readonly detail: RunDetail;
}

/** Id of the demo run; ledger ids start at 1, so it cannot collide. */
export const DEMO_RUN_ID = 0;

const STEP_SECONDS = 1.5;
const EVAL_EVERY = 100;
const EVAL_STEPS = 20;
const TRAIN_STEPS = 290;

/** Deterministic noise in [−1, 1] (no Math.random: the demo is the same for everyone). */
function wobble(i: number): number {
  return Math.sin(i * 12.9898) * 0.6 + Math.sin(i * 0.37) * 0.4;
}

function fmt(bytes: number): string {
  return bytes >= GIB ? `${(bytes / GIB).toFixed(2)} GiB` : `${(bytes / MIB).toFixed(2)} MiB`;
}

function roundStep(p: StepPoint): StepPoint {
  const r = (v: number | null) => (v === null ? null : Math.round(v));
  return {
    ...p,
    allocatedBytes: r(p.allocatedBytes),
    reservedBytes: r(p.reservedBytes),
    peakAllocatedBytes: r(p.peakAllocatedBytes),
    peakReservedBytes: r(p.peakReservedBytes),
  };
}

/** Builds the demo run. */
export function buildDemoRun(lang: Lang = 'en'): DemoRun {
  const scenario = parseScenario({
    model: 'llama-3.2-3b',
    method: 'lora',
    lora: { rank: 16, targets: 'all-linear' },
    precision: 'bf16-true',
    microBatchSize: 4,
    seqLen: 1024,
    gradientCheckpointing: 'full',
    loss: 'chunked',
    gpu: 'rtx-4090',
  });
  const gpu = findGpu('rtx-4090')!;
  const shape = shapeFromConfig(findModel('llama-3.2-3b')!);
  const est = estimate({ scenario, shape, gpu });
  const capacity = usableBytes(gpu);
  const contextBytes = 500 * MIB;
  const persistent =
    est.breakdown.weightsBytes! + est.breakdown.optimizerBytes! + est.breakdown.gradientsBytes!;
  const steps: StepPoint[] = [];
  const timeline: TimelineStep[] = [];
  const samples: SamplePoint[] = [];
  const phases: { name: string; start: number; end: number }[] = [];
  // Gathered predictions grow so that the third evaluation no longer fits (the story the demo tells).
  const evalGrowthPerStep =
    (capacity - contextBytes - persistent - est.breakdown.lossResidentBytes! * 0.5 - 300 * MIB - 2.2 * GIB) /
    (2.5 * EVAL_STEPS);
  let t = 4;
  let reservedExtra = 0;
  let evalHeld = 0;
  let step = 0;
  let oomAt = 0;
  let oomStep = 0;
  outer: for (let block = 0; block * EVAL_EVERY < TRAIN_STEPS + EVAL_EVERY; block++) {
    const trainStart = t;
    for (let i = 0; i < EVAL_EVERY && step < TRAIN_STEPS; i++) {
      step++;
      // Padded batches vary in length: the peak moves by a few percent around the estimate.
      const peak = est.peak.allocatedBytes * (0.95 + 0.04 * wobble(step));
      reservedExtra = Math.min(reservedExtra + 9 * MIB * (1 + wobble(step * 7)), 2.2 * GIB);
      const reserved = peak + 300 * MIB + reservedExtra;
      const loss = 1.9 * Math.exp(-step / 140) + 0.72 + 0.03 * wobble(step * 3);
      steps.push(
        roundStep({
          step,
          t,
          loss,
          allocatedBytes: persistent,
          reservedBytes: reserved,
          peakAllocatedBytes: peak,
          peakReservedBytes: reserved,
          phase: 'train',
        }),
      );
      timeline.push({
        step,
        phase: 'train',
        allocatedBytes: persistent,
        reservedBytes: reserved,
        peakAllocatedBytes: peak,
        peakReservedBytes: reserved,
        inactiveSplitBytes: reservedExtra * 0.6,
        numAllocRetries: step > 230 ? Math.floor((step - 230) / 15) : 0,
        rank: 0,
        device: 0,
      });
      samples.push({
        t: t - STEP_SECONDS / 2,
        usedBytes: Math.round(reserved + contextBytes),
        totalBytes: capacity,
      });
      t += STEP_SECONDS;
    }
    phases.push({ name: 'train', start: trainStart, end: t });
    // Evaluation: predictions are kept on the GPU (logits gathered for metrics), so memory grows.
    const evalStart = t;
    for (let j = 0; j < EVAL_STEPS; j++) {
      evalHeld += evalGrowthPerStep;
      const allocated = persistent + evalHeld;
      const peak = allocated + est.breakdown.lossResidentBytes! * 0.5;
      const reserved = Math.max(peak + 300 * MIB + reservedExtra, (steps.at(-1)?.peakReservedBytes ?? 0) + 0);
      if (reserved + contextBytes > capacity) {
        oomAt = t;
        oomStep = step;
        phases.push({ name: 'eval', start: evalStart, end: t });
        break outer;
      }
      steps.push(
        roundStep({
          step,
          t,
          loss: null,
          allocatedBytes: allocated,
          reservedBytes: reserved,
          peakAllocatedBytes: peak,
          peakReservedBytes: reserved,
          phase: 'eval',
        }),
      );
      timeline.push({
        step,
        phase: 'eval',
        allocatedBytes: allocated,
        reservedBytes: reserved,
        peakAllocatedBytes: peak,
        peakReservedBytes: reserved,
        inactiveSplitBytes: reservedExtra * 0.6,
        numAllocRetries: timeline.at(-1)?.numAllocRetries ?? 0,
        rank: 0,
        device: 0,
      });
      samples.push({ t: t - 0.4, usedBytes: Math.round(reserved + contextBytes), totalBytes: capacity });
      t += 0.8;
    }
    phases.push({ name: 'eval', start: evalStart, end: t });
  }
  const last = steps.at(-1)!;
  const allocatedByTorch = last.peakAllocatedBytes!;
  const reservedUnallocated = Math.max(last.peakReservedBytes! - allocatedByTorch, 100 * MIB);
  const inUse = allocatedByTorch + reservedUnallocated + contextBytes;
  const free = Math.max(0, capacity - inUse);
  const requested = free + 0.6 * GIB;
  const oomText = [
    'Traceback (most recent call last):',
    '  File "/home/demo/train.py", line 212, in <module>',
    '    metrics = trainer.evaluate()',
    '  File "/usr/lib/python3/site-packages/transformers/trainer.py", line 4049, in evaluate',
    '    output = eval_loop(',
    '  File "/usr/lib/python3/site-packages/transformers/trainer.py", line 4243, in evaluation_loop',
    '    losses, logits, labels = self.prediction_step(model, inputs, prediction_loss_only, ignore_keys=ignore_keys)',
    '  File "/usr/lib/python3/site-packages/transformers/trainer.py", line 4459, in prediction_step',
    '    outputs = model(**inputs)',
    `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ${fmt(requested)}. GPU 0 has a total capacity of ${fmt(capacity)} of which ${fmt(free)} is free. Including non-PyTorch memory, this process has ${fmt(inUse)} memory in use. Of the allocated memory ${fmt(allocatedByTorch)} is allocated by PyTorch, and ${fmt(reservedUnallocated)} is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)`,
  ].join('\n');
  const diagnosis = diagnose({
    text: oomText,
    timeline: { steps: timeline, capacityBytes: capacity },
    scenario: { scenario, shape, gpu },
  });
  const findings = findingViews(diagnosis.findings, lang);
  const peakOf = (key: 'peakAllocatedBytes' | 'peakReservedBytes') =>
    Math.max(...steps.map((s) => s[key] ?? 0));
  return {
    detail: {
      // The demo is one GPU: a single rank, nothing to show side by side.
      ranks: [],
      peakRank: null,
      rankSteps: { ranks: [], steps: [] },
      run: {
        id: DEMO_RUN_ID,
        name: say(REPORT, lang, { code: 'demo-name', params: {} }),
        status: 'oom',
        exitCode: 1,
        model: 'llama-3.2-3b',
        method: 'lora',
        microBatchSize: 4,
        seqLen: 1024,
        peakAllocatedBytes: peakOf('peakAllocatedBytes'),
        peakReservedBytes: peakOf('peakReservedBytes'),
        peakDeviceBytes: Math.max(...samples.map((s) => s.usedBytes)),
        steps: oomStep,
        startedAt: '2026-01-01T00:00:00.000Z',
        durationMs: Math.round(oomAt * 1000),
        demo: true,
        command:
          'python train.py --model meta-llama/Llama-3.2-3B --lora-r 16 --batch-size 4 --max-len 1024 (demo)',
        scenario: scenario as unknown as Record<string, unknown>,
      },
      steps,
      samples,
      phases,
      oom: { t: oomAt, text: oomText },
      findings,
      estimate: est,
      // The demo is made up from figures: no allocator snapshot to open.
      snapshots: [],
    },
  };
}
