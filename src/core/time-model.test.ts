import { describe, expect, it } from 'vitest';
import { say } from '../words/catalog.js';
import { LINK_NAMES, TIME_NOTES } from '../words/time-notes.js';
import { findGpu } from './catalog/index.js';
import { estimate } from './estimate.js';
import { resolveModelRef } from './model-ref.js';
import { parseScenario } from './scenario.js';
import { TORCHTUNE_8B_FULL_PAGED } from './test-helpers/scenarios.js';
import {
  COLLECTIVE_EFFICIENCY,
  collectiveLink,
  flopsPerToken,
  INTER_NODE_GBS,
  MODEL_FLOPS_UTILIZATION,
  PCIE_EFFICIENCY,
  pcieGbs,
  type StepTimeNote,
  stepTime,
} from './time-model.js';

/** A note in English, as the catalog words it (src/words/time-notes.ts). */
const english = (note: StepTimeNote) => say(TIME_NOTES, 'en', note);

const shape = resolveModelRef('llama-3.1-8b')!.shape;
// Llama-3.1-8B by hand (config.json: h 4096, 32 layers, 32 heads / 8 KV heads of 128, MLP 14336, vocab 128256).
const LAYER_MATMUL = (4096 * 4096 * 2 + 4096 * 1024 * 2 + 3 * 4096 * 14336) * 32;
const HEAD = 128256 * 4096;
const ATTENTION_2048 = 4 * 32 * 2048 * 32 * 128; // QKᵀ and AV, forward, per token

describe('flopsPerToken', () => {
  it('is 6·P plus attention (three passes) for full fine-tuning (Kaplan et al. 2020; PaLM App. B)', () => {
    const f = flopsPerToken(parseScenario({ model: 'llama-3.1-8b' }), shape, 8e9);
    expect(f.forward).toBe(2 * (LAYER_MATMUL + HEAD) + ATTENTION_2048);
    expect(f.inputGradients).toBe(2 * (LAYER_MATMUL + HEAD) + 2 * ATTENTION_2048);
    expect(f.weightGradients).toBe(2 * (LAYER_MATMUL + HEAD));
    expect(f.recompute).toBe(0);
    expect(f.total).toBe(6 * (LAYER_MATMUL + HEAD) + 3 * ATTENTION_2048);
  });

  it('adds the layers’ forward again under full checkpointing, attention alone under selective', () => {
    const full = flopsPerToken(parseScenario({ model: 'x', gradientCheckpointing: 'full' }), shape, 8e9);
    expect(full.recompute).toBe(2 * LAYER_MATMUL + ATTENTION_2048);
    const selective = flopsPerToken(
      parseScenario({ model: 'x', gradientCheckpointing: 'selective' }),
      shape,
      8e9,
    );
    expect(selective.recompute).toBe(ATTENTION_2048);
  });

  it('computes weight gradients for the adapters only with LoRA: about 4·P', () => {
    const adapters = 6_815_744; // r16 on q_proj and v_proj of 32 layers
    const f = flopsPerToken(parseScenario({ model: 'x', method: 'lora' }), shape, adapters);
    expect(f.weightGradients).toBe(2 * adapters);
    expect(f.total).toBe(4 * (LAYER_MATMUL + HEAD + adapters) + 2 * adapters + 3 * ATTENTION_2048);
  });

  it('sends input gradients only through the trained top layers with freeze', () => {
    const f = flopsPerToken(parseScenario({ model: 'x', method: 'freeze', trainableLayers: 4 }), shape, 1e9);
    expect(f.inputGradients).toBe(2 * (LAYER_MATMUL * (4 / 32) + HEAD) + 2 * ATTENTION_2048 * (4 / 32));
  });
});

describe('links', () => {
  it('PCIe payload rates per gen and lanes, at the copy efficiency', () => {
    expect(pcieGbs({ gen: 4, lanes: 16 })).toBeCloseTo(1.969 * 16 * PCIE_EFFICIENCY, 10);
    expect(pcieGbs({ gen: 5, lanes: 16 })).toBeCloseTo(3.938 * 16 * PCIE_EFFICIENCY, 10);
  });

  it('NVLink switch fabrics serve the whole node; bridges only pairs; more than a node crosses the network', () => {
    const h100 = findGpu('h100-sxm')!;
    expect(collectiveLink(h100, 8)).toMatchObject({ kind: 'nvlink', gbs: 450 * COLLECTIVE_EFFICIENCY });
    expect(collectiveLink(h100, 16)).toMatchObject({
      kind: 'network',
      gbs: INTER_NODE_GBS * COLLECTIVE_EFFICIENCY,
    });
    const a100pcie = findGpu('a100-pcie-80gb')!; // "NVLink bridge", 600 GB/s both ways
    expect(collectiveLink(a100pcie, 2)).toMatchObject({ kind: 'nvlink', gbs: 300 * COLLECTIVE_EFFICIENCY });
    expect(collectiveLink(a100pcie, 4)).toMatchObject({ kind: 'pcie', gbs: pcieGbs({ gen: 4, lanes: 16 }) });
    expect(collectiveLink(findGpu('rtx-4090')!, 2).kind).toBe('pcie');
    // A captured topology overrides the catalog.
    expect(collectiveLink(h100, 4, { kind: 'pcie' }).kind).toBe('pcie');
    expect(collectiveLink(h100, 1).kind).toBe('none');
  });

  it('names each link as data, worded as its English description', () => {
    const h100 = findGpu('h100-sxm')!;
    const links = [
      collectiveLink(h100, 1),
      collectiveLink(h100, 8),
      collectiveLink(h100, 16),
      collectiveLink(findGpu('rtx-4090')!, 2),
    ];
    expect(links.map((l) => l.name)).toEqual([
      { code: 'one-gpu', params: {} },
      { code: 'fabric', params: { type: 'NVLink', perDirectionGBs: 450 } },
      { code: 'network', params: { nodes: 2, perGpuGBs: INTER_NODE_GBS } },
      { code: 'pcie', params: { gen: 4, lanes: 16 } },
    ]);
    expect(links.map((l) => say(LINK_NAMES, 'en', l.name))).toEqual([
      'one GPU',
      'NVLink, 450 GB/s per direction',
      `across 2 nodes at ${INTER_NODE_GBS} GB/s per GPU`,
      'PCIe gen 4 x16',
    ]);
    expect(say(LINK_NAMES, 'zh', links[2]!.name)).toBe(`跨 2 个节点，每块 GPU ${INTER_NODE_GBS} GB/s`);
  });
});

describe('stepTime', () => {
  const time = (raw: Record<string, unknown>, gpuId: string) => {
    const scenario = parseScenario({ model: 'llama-3.1-8b', ...raw });
    const gpu = findGpu(gpuId)!;
    return stepTime({ scenario, shape, gpu, estimate: estimate({ scenario, shape, gpu }) });
  };

  it('one GPU: tokens × FLOPs per token over the dense bf16 peak at 40 % utilisation', () => {
    const t = time({ method: 'full', microBatchSize: 2, gradAccumSteps: 4 }, 'h100-sxm');
    const tokens = 2 * 2048 * 4;
    const flops = 6 * (LAYER_MATMUL + HEAD) + 3 * ATTENTION_2048;
    expect(t.computeSeconds).toBeCloseTo((tokens * flops) / (989e12 * MODEL_FLOPS_UTILIZATION), 12);
    expect(t.commSeconds).toBe(0);
    expect(t.stepSeconds).toBe(t.computeSeconds);
    expect(t.tokensPerSecond).toBeCloseTo(tokens / t.computeSeconds, 6);
  });

  it('DDP all-reduces the gradients once per step: 2(N−1)/N of them over the link', () => {
    const t = time(
      { method: 'full', precision: 'bf16-true', parallelism: { strategy: 'ddp', gpus: 4 } },
      'h100-sxm',
    );
    const gradBytes = 8_030_261_248 * 2;
    expect(t.commBytes).toBe(2 * (3 / 4) * gradBytes);
    expect(t.commSeconds).toBeCloseTo(t.commBytes / (450 * COLLECTIVE_EFFICIENCY * 1e9), 12);
    expect(t.tokensPerSecond).toBeCloseTo((4 * 2048) / t.stepSeconds, 6);
  });

  it('ZeRO-3 gathers the weights twice and reduce-scatters gradients every micro-batch (ZeRO paper: 1.5× DDP)', () => {
    const raw = {
      method: 'full',
      precision: 'bf16-true',
      gradAccumSteps: 2,
      parallelism: { strategy: 'zero3', gpus: 4 },
    };
    const t = time(raw, 'h100-sxm');
    const bytes = 8_030_261_248 * 2;
    expect(t.commBytes).toBe((3 / 4) * (2 * bytes + bytes) * 2);
    // Over PCIe the same volume takes far longer: what migrate warns about.
    const pcie = time(raw, 'l40s');
    expect(pcie.link.kind).toBe('pcie');
    expect(pcie.commSeconds / t.commSeconds).toBeCloseTo(
      (450 * COLLECTIVE_EFFICIENCY) / pcieGbs({ gen: 4, lanes: 16 }),
      6,
    );
  });

  it('optimizer offload adds PCIe transfers and a CPU optimizer step that do not overlap compute', () => {
    const base = time(
      { method: 'full', precision: 'bf16-true', parallelism: { strategy: 'zero2', gpus: 1 } },
      'a100-sxm-80gb',
    );
    const off = time(
      {
        method: 'full',
        precision: 'bf16-true',
        parallelism: { strategy: 'zero2', gpus: 1 },
        offload: { optimizer: 'cpu' },
      },
      'a100-sxm-80gb',
    );
    expect(base.offloadSeconds).toBe(0);
    expect(off.offloadBytes).toBe(8_030_261_248 * 2 + 8_030_261_248 * 2);
    expect(off.stepSeconds).toBeCloseTo(
      off.computeSeconds + off.offloadSeconds + off.hostOptimizerSeconds,
      12,
    );
    expect(off.stepSeconds).toBeGreaterThan(base.stepSeconds * 2);
  });

  it('activation offload sends each micro-batch’s offloaded activations out and back over PCIe', () => {
    const raw = {
      method: 'qlora',
      quantization: 'nf4',
      precision: 'bf16-true',
      gradientCheckpointing: 'full',
      gradAccumSteps: 4,
    };
    const base = time(raw, 'rtx-4090');
    const off = time({ ...raw, offload: { activations: 'cpu' } }, 'rtx-4090');
    const layerInputs = 32 * 2048 * 4096 * 2;
    expect(base.offloadBytes).toBe(0);
    expect(off.offloadBytes).toBe(2 * layerInputs * 4);
    expect(off.offloadSeconds).toBeCloseTo(off.offloadBytes / (pcieGbs({ gen: 4, lanes: 16 }) * 1e9), 12);
    expect(off.stepSeconds).toBeCloseTo(base.stepSeconds + off.offloadSeconds, 12);
    // Checkpointed layer inputs are small beside the compute: a few per cent.
    expect(off.stepSeconds / base.stepSeconds).toBeLessThan(1.1);
  });

  it('paged optimizer states that do not fit move in and out over PCIe once per step', () => {
    const raw = TORCHTUNE_8B_FULL_PAGED;
    const onH100 = time(raw, 'h100-sxm');
    expect([onH100.offloadBytes, onH100.notes]).toEqual([0, []]);
    const scenario = parseScenario({ model: 'llama-3.1-8b', ...raw });
    const gpu = findGpu('rtx-4090')!;
    const est = estimate({ scenario, shape, gpu });
    const spilled = est.fits!.pagedToHostBytes;
    expect(spilled).toBeGreaterThan(5 * 2 ** 30);
    const on4090 = time(raw, 'rtx-4090');
    expect(on4090.offloadBytes).toBe(2 * spilled);
    expect(on4090.offloadSeconds).toBeCloseTo((2 * spilled) / (pcieGbs({ gen: 4, lanes: 16 }) * 1e9), 12);
    expect(on4090.notes).toEqual([{ code: 'paged-over-pcie', params: { bytes: spilled } }]);
    expect(on4090.notes.map(english)).toEqual([
      `${(spilled / 2 ** 30).toFixed(1)} GiB of paged optimizer states do not fit on the GPU and move over PCIe every step`,
    ]);
  });

  it('charges 4-bit dequantization at memory bandwidth, and says when a GPU lacks bf16', () => {
    const q = time({ method: 'qlora', quantization: 'nf4', precision: 'bf16-true' }, 'rtx-4090');
    const l = time({ method: 'lora', precision: 'bf16-true' }, 'rtx-4090');
    expect(q.computeSeconds).toBeGreaterThan(l.computeSeconds);
    expect(time({ method: 'lora', precision: 'bf16-true' }, 't4').notes.map(english)).toEqual([
      't4 has no bf16 tensor cores: timed at its fp16 rate',
    ]);
  });
});
