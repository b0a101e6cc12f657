/** Pruning the ladder: the rungs a later rung made pointless go, every rung shown is needed. */
import { describe, expect, it, vi } from 'vitest';
import { findGpu } from './catalog/index.js';
import { estimate } from './estimate.js';
import { requiredDeviceBytes } from './margin.js';
import { resolveModelRef } from './model-ref.js';
import { makePlan, type Plan } from './plan.js';
import { parseScenario, type Scenario } from './scenario.js';
import { LORA_8B_ZERO3_DEFAULT_BUCKET } from './test-helpers/scenarios.js';
import { stepTime } from './time-model.js';

// The search's mechanics at a point upper bound (ratio 1): its boundaries stay put when the table is
// regenerated. The verdict on the real upper bound is tested in margin, estimate, fit and capacity.
vi.mock('./estimate/upper-table.js', () => import('./test-helpers/point-upper.js'));

const shapeOf = (id: string) => resolveModelRef(id)!.shape;
const plan = (raw: Record<string, unknown>, gpu: string, extra: { allowShorter?: boolean } = {}) =>
  makePlan({ scenario: parseScenario(raw), shape: shapeOf(String(raw.model)), gpu: findGpu(gpu)!, ...extra });

/** A scenario as dotted paths to its values: nested objects (parallelism, offload, lora) field by field. */
function flatten(value: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) for (const e of flatten(v, `${prefix}${k}.`)) out.set(...e);
  } else if (value !== undefined) out.set(prefix.slice(0, -1), JSON.stringify(value));
  return out;
}

function unflatten(paths: ReadonlyMap<string, string>): Scenario {
  const root: Record<string, unknown> = {};
  for (const [path, json] of paths) {
    const keys = path.split('.');
    let node = root;
    for (const k of keys.slice(0, -1)) {
      node[k] ??= {};
      node = node[k] as Record<string, unknown>;
    }
    node[keys.at(-1)!] = JSON.parse(json);
  }
  return root as unknown as Scenario;
}

/**
 * The plan's last scenario with shown rung i undone: the fields it changed set back to what they were
 * before it. A later rung that changed one of those fields again builds on it (QLoRA on LoRA's method,
 * ZeRO-3 on ZeRO-2's strategy) and is undone with it.
 */
function withoutRung(p: Plan, i: number): Scenario {
  const before = p.rungs.map((_, k) => flatten(k === 0 ? p.scenario : p.rungs[k - 1]!.scenario));
  const after = p.rungs.map((r) => flatten(r.scenario));
  const changed = (k: number) =>
    new Set(
      [...before[k]!.keys(), ...after[k]!.keys()].filter((x) => before[k]!.get(x) !== after[k]!.get(x)),
    );
  const undone = new Set([i]);
  const touched = changed(i);
  for (let k = i + 1; k < p.rungs.length; k++) {
    const own = changed(k);
    if (![...own].some((x) => touched.has(x))) continue;
    undone.add(k);
    for (const x of own) touched.add(x);
  }
  const result = new Map(after.at(-1)!);
  for (const k of [...undone].sort((a, b) => b - a))
    for (const x of changed(k)) {
      const was = before[k]!.get(x);
      if (was === undefined) result.delete(x);
      else result.set(x, was);
    }
  return unflatten(result);
}

describe('makePlan: every rung shown is still needed', () => {
  // `headroom plan llama-3.1-8b --method full --gpu rtx-4090`: the climb applies an 8-bit optimizer before
  // LoRA; once LoRA trains only the adapters, 8-bit states save a few hundred MiB and the plan fits
  // without them.
  const full = plan({ model: 'llama-3.1-8b', method: 'full', gpu: 'rtx-4090' }, 'rtx-4090');

  it('llama-3.1-8b --method full on an RTX 4090: no 8-bit optimizer once LoRA makes it pointless', () => {
    const ids = full.rungs.map((r) => r.change.id);
    expect(ids).toContain('lora');
    expect(ids).not.toContain('8bit-optimizer');
    expect(full.rungs.at(-1)!.fits).toBe(true);
  });

  it('says which rungs it dropped, what they would still save, and after which rung', () => {
    // Checkpointing first: at the full fine-tune's optimizer-step peak it shrinks the activation cache the
    // step's temporaries sit beside (allocator.ts OPTIMIZER_STEP_RESERVE), so the climb keeps it there.
    expect(full.rungs.map((r) => r.change.id)).toEqual(['full-checkpointing', 'pure-bf16', 'lora']);
    const eightBit = full.dropped.find((d) => d.rung.change.id === '8bit-optimizer')!;
    // As climbed it saved the full fine-tune's fp32 Adam states down to 8 bits: 15 GiB.
    expect(eightBit.rung.savedBytes).toBeGreaterThan(14 * 2 ** 30);
    expect(eightBit.after).toBe('pure-bf16');
    // On top of the ladder shown it would save the adapters' states: 42M parameters × 2 × (4 − 1) bytes.
    const last = full.rungs.at(-1)!;
    const onTop = estimate({
      scenario: { ...last.scenario, optimizer: 'adamw-8bit' },
      shape: shapeOf('llama-3.1-8b'),
      gpu: findGpu('rtx-4090')!,
    });
    expect(eightBit.savingBytes).toBe(last.estimate.peak.deviceBytes - onTop.peak.deviceBytes);
    expect(eightBit.savingBytes).toBeGreaterThan(200 * 2 ** 20);
    expect(eightBit.savingBytes).toBeLessThan(300 * 2 ** 20);
    // Selective checkpointing saves nothing on top of full checkpointing, and says so.
    const selective = full.dropped.find((d) => d.rung.change.id === 'selective-checkpointing')!;
    expect(selective).toMatchObject({ savingBytes: 0, after: 'full-checkpointing' });
    expect(full.dropped.map((d) => d.rung.change.id)).toEqual([
      'expandable-segments',
      'fused-optimizer',
      'selective-checkpointing',
      '8bit-optimizer',
    ]);
    // Each dropped rung keeps the scenario it was climbed from, to word it.
    expect(eightBit.from.optimizer).toBe('adamw');
    expect(eightBit.rung.scenario.optimizer).toBe('adamw-8bit');
  });

  it('rebuilds the rungs it keeps on each other: savings against the rung shown before', () => {
    let previous = full.target.startPeakBytes;
    let from = full.scenario;
    for (const rung of full.rungs) {
      expect(rung.savedBytes).toBe(previous - rung.estimate.peak.deviceBytes);
      expect(rung.savedBytes).toBeGreaterThan(0);
      // Each shown rung changes only its own fields of the one before (LoRA leaves bf16 alone).
      if (rung.change.id === 'lora') expect(rung.scenario.precision).toBe(from.precision);
      previous = rung.estimate.peak.deviceBytes;
      from = rung.scenario;
    }
    expect(full.rungs.map((r) => r.fits)).toEqual([false, false, true]);
  });

  it('across catalog models and GPUs: every ladder shown fits, and undoing any one rung does not (or only slower)', () => {
    const cases: [Record<string, unknown>, string, { allowShorter?: boolean }?][] = [
      [{ model: 'llama-3.1-8b', method: 'full' }, 'rtx-4090'],
      [{ model: 'llama-3.1-8b', method: 'full', microBatchSize: 4 }, 'rtx-4090'],
      [
        {
          model: 'llama-3.1-8b',
          method: 'full',
          microBatchSize: 4,
          parallelism: { strategy: 'ddp', gpus: 4 },
        },
        'a100-sxm-80gb',
      ],
      [{ model: 'llama-3.1-8b', method: 'lora', seqLen: 8192 }, 'rtx-3060-12gb'],
      [{ model: 'llama-3.1-70b', method: 'full' }, 'rtx-4090'],
      [{ model: 'llama-3.1-70b', method: 'full', parallelism: { strategy: 'ddp', gpus: 8 } }, 'h100-sxm'],
      [{ model: 'llama-3.2-1b', method: 'full', microBatchSize: 8, seqLen: 4096 }, 't4'],
      [{ model: 'llama-3.2-3b', method: 'full', attention: 'eager' }, 'a10g'],
      [{ model: 'qwen2.5-7b', method: 'full', seqLen: 4096 }, 'l4'],
      [{ model: 'qwen2.5-14b', method: 'lora', microBatchSize: 4 }, 'rtx-3090'],
      [
        { model: 'qwen3-8b', method: 'full', parallelism: { strategy: 'fsdp', gpus: 4 }, gradAccumSteps: 4 },
        'a10g',
      ],
      [{ model: 'mistral-7b-v0.3', method: 'full' }, 'a100-sxm-40gb'],
      [{ model: 'gemma-2-9b', method: 'full', microBatchSize: 2 }, 'h100-sxm'],
      [{ model: 'phi-3-mini', method: 'full', seqLen: 4096 }, 'rtx-4080'],
      [{ model: 'mixtral-8x7b', method: 'lora' }, 'a100-sxm-80gb'],
      [{ model: 'qwen2.5-3b', method: 'full', seqLen: 16384 }, 'rtx-4090', { allowShorter: true }],
      [{ model: 'llama-3.1-8b', method: 'lora', seqLen: 32768 }, 'rtx-4090', { allowShorter: true }],
    ];
    let dropped = 0;
    let climbed = 0;
    for (const [raw, gpu, extra] of cases) {
      const p = plan(raw, gpu, extra);
      const last = p.rungs.at(-1);
      if (!last?.fits) continue;
      climbed++;
      dropped += p.dropped.length;
      const label = `${JSON.stringify(raw)} on ${gpu}`;
      const shape = shapeOf(String(raw.model));
      const on = findGpu(gpu)!;
      const perToken = (s: Scenario) => {
        const t = stepTime({
          scenario: s,
          shape,
          gpu: on,
          estimate: estimate({ scenario: s, shape, gpu: on }),
        });
        return t.stepSeconds / (t.tokensPerStepPerGpu * s.parallelism.gpus);
      };
      // Fits the budget, trains no slower per token than the ladder shown, and no shorter sequences.
      const fitsAsFast = (s: Scenario) =>
        requiredDeviceBytes(estimate({ scenario: s, shape, gpu: on })) <= p.target.budgetBytes &&
        perToken(s) <= perToken(last.scenario) &&
        s.seqLen >= last.scenario.seqLen;
      expect(fitsAsFast(last.scenario), label).toBe(true);
      // Only the last rung fits: the ladder stops where it first fits.
      expect(
        p.rungs.slice(0, -1).some((r) => r.fits),
        label,
      ).toBe(false);
      for (const [i, r] of p.rungs.entries())
        expect(fitsAsFast(withoutRung(p, i)), `${label} without ${r.change.id}`).toBe(false);
    }
    expect(climbed).toBeGreaterThanOrEqual(12);
    expect(dropped).toBeGreaterThan(climbed);
  });

  it('drops nothing when nothing fits: the climb is shown whole', () => {
    const p = plan({ model: 'llama-3.1-8b', method: 'full', seqLen: 65536 }, 'rtx-3060-12gb');
    expect(p.rungs.every((r) => !r.fits)).toBe(true);
    expect(p.rungs.length).toBeGreaterThan(8);
    expect(p.dropped).toEqual([]);
  });

  it('keeps a rung a kept rung builds on: LoRA under QLoRA, the chunked loss under its compilation', () => {
    const big = plan(
      { model: 'llama-3.1-70b', method: 'full', parallelism: { strategy: 'ddp', gpus: 8 } },
      'h100-sxm',
    );
    expect(big.rungs.map((r) => r.change.id)).toEqual(['full-checkpointing', 'lora', 'qlora']);
    expect(big.dropped.map((d) => d.rung.change.id)).toEqual([
      'expandable-segments',
      'fused-optimizer',
      'pure-bf16',
      '8bit-optimizer',
      'selective-checkpointing',
      'chunked-loss',
      'compile-loss',
    ]);
    const eager = plan(
      {
        model: 'llama-3.1-8b',
        method: 'qlora',
        quantization: 'nf4',
        quantizedInputsKept: 'step',
        attention: 'eager',
        microBatchSize: 8,
        seqLen: 8192,
      },
      'rtx-3060-12gb',
    );
    const ids = eager.rungs.map((r) => r.change.id);
    expect(ids).toEqual([
      'expandable-segments',
      'sdpa-attention',
      'smaller-micro-batch',
      'full-checkpointing',
      'chunked-loss',
      'compile-loss',
      // No pure-bf16 rung: a QLoRA scenario that names no precision already loads its base in bf16.
      'offload-activations-cpu',
    ]);
  });

  it('says when a dropped rung still saves as much: the ladder fits without it anyway', () => {
    // ZeRO-3 LoRA on a 10 GB card: the climb takes DeepSpeed's 1 GB reduce bucket away, then needs QLoRA
    // all the same, and QLoRA alone fits.
    const p = plan(LORA_8B_ZERO3_DEFAULT_BUCKET, 'rtx-3080');
    expect(p.rungs.map((r) => r.change.id)).toEqual(['qlora']);
    const bucket = p.dropped.find((d) => d.rung.change.id === 'zero-reduce-bucket')!;
    // 5e8 − 4,096² bf16 elements, as climbed and on top of QLoRA.
    expect(bucket.rung.savedBytes).toBe((5e8 - 4096 * 4096) * 2);
    expect(bucket).toMatchObject({ savingBytes: (5e8 - 4096 * 4096) * 2, after: null });
  });

  it('is the same plan every time', () => {
    const raw = { model: 'llama-3.1-8b', method: 'full', microBatchSize: 4 };
    expect(plan(raw, 'rtx-4090')).toEqual(plan(raw, 'rtx-4090'));
  });
});
