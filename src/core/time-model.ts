/**
 * A rough, documented step-time model: training FLOPs per token over the GPU's dense 16-bit throughput at
 * a stated utilisation, plus the communication sharding needs over the interconnect and the transfers
 * offload needs over PCIe. It ranks choices (the planner's relative cost, `gpus --for`); it does not
 * predict a benchmark. docs/time-model.md explains each term.
 */
import type { ModelShape } from './architecture.js';
import type { GpuSpec } from './catalog/gpu-spec.js';
import type { Estimate } from './estimate.js';
import { GPUS_PER_NODE, quantizedBytesPerParam } from './estimate.js';
import { fitVerdict, memoryTarget } from './margin.js';
import type { MessageOf, NoParams } from './message.js';
import { paramBreakdown } from './params.js';
import type { Scenario } from './scenario.js';

/**
 * Model FLOPs utilisation assumed for fine-tuning: the share of the dense peak a training step reaches.
 * Published MFU: PaLM 540B 46.2 %, Megatron-Turing NLG 30.2 %, Gopher 32.5 % (Chowdhery et al. 2022,
 * "PaLM", Table 3); 35–45 % is typical of well-tuned transformer training. 0.40 is the middle.
 */
export const MODEL_FLOPS_UTILIZATION = 0.4;
/**
 * Share of a link's unidirectional bandwidth that NCCL collectives reach ("bus bandwidth"): nccl-tests
 * report roughly 70–80 % of the link rate for large messages (NVIDIA nccl-tests doc/PERFORMANCE.md).
 */
export const COLLECTIVE_EFFICIENCY = 0.7;
/**
 * PCIe payload bandwidth per lane per direction in GB/s, after line encoding (PCI-SIG: 8/16/32/64 GT/s;
 * 128b/130b for gen 3–5; gen 6 FLIT ≈ 242/256).
 */
export const PCIE_GBS_PER_LANE: Readonly<Record<number, number>> = {
  1: 0.25,
  2: 0.5,
  3: 0.985,
  4: 1.969,
  5: 3.938,
  6: 7.563,
};
/** Share of the PCIe payload rate that pinned host↔device copies reach (cudaMemcpy bandwidthTest: ~80 %). */
export const PCIE_EFFICIENCY = 0.8;
/** Per-GPU network bandwidth between nodes, GB/s: one 200 Gb/s InfiniBand HDR port per GPU (assumed). */
export const INTER_NODE_GBS = 25;
/** NVMe read/write bandwidth per node without a measured figure: one PCIe 4.0 x4 SSD, GB/s (assumed). */
export const DEFAULT_NVME_GBS = 3.5;
/**
 * Host memory traffic of an Adam step on the CPU per parameter: read fp32 weight, gradient and two
 * states, write weight and two states, write the 16-bit copy = 4·7 + 2 = 30 bytes.
 */
export const HOST_ADAM_BYTES_PER_PARAM = 30;
/**
 * Host memory bandwidth a CPU optimizer step reaches per node, GB/s: about a quarter of an 8-channel
 * DDR4-3200 socket's 204.8 GB/s (assumed; DeepSpeedCPUAdam is bandwidth-bound).
 */
export const HOST_OPTIMIZER_GBS = 50;

export type LinkKind = 'nvlink' | 'pcie' | 'network' | 'none';

/**
 * Which link, as data (src/words/time-notes.ts names it): one GPU; PCIe of a generation and width; a
 * fabric or bridge by its catalog type, at its per-direction rate; or the network between nodes.
 */
export interface LinkNameParams {
  'one-gpu': NoParams;
  pcie: { readonly gen: number; readonly lanes: number };
  fabric: { readonly type: string; readonly perDirectionGBs: number };
  network: { readonly nodes: number; readonly perGpuGBs: number };
}
export type LinkName = MessageOf<LinkNameParams>;

/** The link collectives use, and its usable unidirectional bandwidth. */
export interface Link {
  readonly kind: LinkKind;
  /** Usable bandwidth per GPU and direction, GB/s (efficiency applied). */
  readonly gbs: number;
  /** Which link it is, as data. */
  readonly name: LinkName;
  /**
   * The link in English ("PCIe gen 4 x16"), for the migrate checks that still build their reasons in
   * the core; words come from `name` (src/words/time-notes.ts, LINK_NAMES).
   */
}

/** PCIe payload bandwidth of the GPU's host link, GB/s per direction (efficiency applied). */
export function pcieGbs(pcie: { readonly gen: number; readonly lanes: number } | null | undefined): number {
  const gen = pcie?.gen ?? 4;
  const lanes = pcie?.lanes ?? 16;
  return (PCIE_GBS_PER_LANE[gen] ?? PCIE_GBS_PER_LANE[4]!) * lanes * PCIE_EFFICIENCY;
}

/**
 * The link data-parallel collectives run over for `gpus` GPUs of this kind. NVLink/XGMI switch fabrics
 * (SXM/OAM boards) connect a whole node; bridges connect pairs, so more than two GPUs fall back to PCIe;
 * beyond one node the ring crosses the network. `override` replaces the catalog (a captured topology).
 */
export function collectiveLink(
  gpu: GpuSpec,
  gpus: number,
  override?: { readonly kind: 'nvlink' | 'pcie' } | null,
): Link {
  if (gpus <= 1)
    return {
      kind: 'none',
      gbs: Number.POSITIVE_INFINITY,
      name: { code: 'one-gpu', params: {} },
    };
  const ic = gpu.interconnect;
  const type = ic?.type ?? 'PCIe';
  const perDirection = ic ? (ic.unidirectionalGBs ?? (ic.bidirectionalGBs ?? 0) / 2) : 0;
  const fabric = type === 'NVLink' || type.startsWith('Infinity Fabric (XGMI)');
  const bridge = /bridge/.test(type);
  const gen = gpu.pcie?.gen ?? 4;
  const lanes = gpu.pcie?.lanes ?? 16;
  const pcie: Link = {
    kind: 'pcie',
    gbs: pcieGbs(gpu.pcie),
    name: { code: 'pcie', params: { gen, lanes } },
  };
  let intra: Link = pcie;
  if (override?.kind === 'pcie') intra = pcie;
  else if ((fabric || (bridge && gpus <= 2) || override?.kind === 'nvlink') && perDirection > 0) {
    intra = {
      kind: 'nvlink',
      gbs: perDirection * COLLECTIVE_EFFICIENCY,
      name: { code: 'fabric', params: { type, perDirectionGBs: perDirection } },
    };
  }
  // Beyond GPUS_PER_NODE (estimate.ts: 8-GPU HGX/DGX servers) the ring crosses the network.
  if (gpus > GPUS_PER_NODE) {
    return intra.gbs <= INTER_NODE_GBS * COLLECTIVE_EFFICIENCY
      ? intra
      : {
          kind: 'network',
          gbs: INTER_NODE_GBS * COLLECTIVE_EFFICIENCY,
          name: {
            code: 'network',
            params: { nodes: Math.ceil(gpus / GPUS_PER_NODE), perGpuGBs: INTER_NODE_GBS },
          },
        };
  }
  return intra;
}

/** Dense 16-bit (or fp32) peak of the GPU for this precision, TFLOP/s; null when the catalog has none. */
export function peakTflops(gpu: GpuSpec, precision: Scenario['precision']): number | null {
  if (precision === 'fp32')
    return gpu.denseTf32Tflops ?? (gpu.denseFp16Tflops ?? gpu.denseBf16Tflops ?? 0) / 4;
  if (precision.startsWith('bf16') && gpu.bf16 && gpu.denseBf16Tflops) return gpu.denseBf16Tflops;
  return gpu.denseFp16Tflops ?? gpu.denseBf16Tflops ?? null;
}

export interface FlopsPerToken {
  /** Forward matmuls and attention. */
  readonly forward: number;
  /** Gradients with respect to activations, through the layers gradients flow through. */
  readonly inputGradients: number;
  /** Gradients with respect to the trainable weights. */
  readonly weightGradients: number;
  /** Forward recomputed by activation checkpointing. */
  readonly recompute: number;
  readonly total: number;
}

/**
 * Training FLOPs per token. Matmul parameters P (active per token for MoE, LM head included):
 * forward 2P, input gradients 2P, weight gradients 2·P_trainable — 6P for full fine-tuning (Kaplan et
 * al. 2020 §2.1), about 4P for LoRA — plus attention, 4·L·s·(a·d) forward and twice that backward
 * (PaLM Appendix B), and the forward again under full checkpointing (+2P), its attention alone under
 * selective checkpointing.
 */
export function flopsPerToken(scenario: Scenario, shape: ModelShape, trainableParams: number): FlopsPerToken {
  const params = paramBreakdown(shape);
  const L = shape.numLayers;
  const layerMatmul = params.linears.reduce(
    (sum, m) => sum + m.inFeatures * m.outFeatures * m.activeCount,
    0,
  );
  const head = shape.vocabSize * shape.hiddenSize;
  const attention = 4 * L * scenario.seqLen * shape.numHeads * ((shape.headDim + shape.valueHeadDim) / 2);
  const full = scenario.method === 'full';
  const adapters = scenario.method === 'lora' || scenario.method === 'qlora' ? trainableParams : 0;
  // Gradients flow through every layer except under freeze, where only the top k layers and the head train.
  const gradShare = scenario.method === 'freeze' ? Math.min(scenario.trainableLayers ?? 2, L) / L : 1;
  const forward = 2 * (layerMatmul + head + adapters) + attention;
  const inputGradients = 2 * (layerMatmul * gradShare + head + adapters) + 2 * attention * gradShare;
  const weightGradients = full ? 2 * (layerMatmul + head) : 2 * Math.min(trainableParams, layerMatmul + head);
  const recompute =
    scenario.gradientCheckpointing === 'full'
      ? (2 * (layerMatmul + adapters) + attention) * gradShare
      : scenario.gradientCheckpointing === 'selective'
        ? attention * gradShare
        : 0;
  return {
    forward,
    inputGradients,
    weightGradients,
    recompute,
    total: forward + inputGradients + weightGradients + recompute,
  };
}

export interface StepTime {
  readonly flopsPerToken: FlopsPerToken;
  /** Tokens one GPU processes per optimizer step (micro-batch × sequence × accumulation). */
  readonly tokensPerStepPerGpu: number;
  /** Dense peak used, TFLOP/s, and the utilisation applied. */
  readonly peakTflops: number;
  readonly utilization: number;
  /** Matmul time of one optimizer step on one GPU, plus 4-bit dequantization. */
  readonly computeSeconds: number;
  /** Sharding collectives per step and GPU: bytes sent and time over the link. */
  readonly commBytes: number;
  readonly commSeconds: number;
  readonly link: Link;
  /**
   * Offload: bytes over PCIe (and NVMe) per step and GPU — states, parameters and saved activations —
   * their time, and the CPU optimizer step.
   */
  readonly offloadBytes: number;
  readonly offloadSeconds: number;
  readonly hostOptimizerSeconds: number;
  /** max(compute, comm) + offload + host optimizer: collectives overlap compute, offload does not. */
  readonly stepSeconds: number;
  /** Training tokens per second across all GPUs. */
  readonly tokensPerSecond: number;
  /** What the model assumed, as data (src/words/time-notes.ts words them). */
  readonly notes: readonly StepTimeNote[];
}

/**
 * What the time model assumed or found, by code: a GPU with no throughput in the catalog (the times
 * mean nothing), a bf16 run timed at a GPU's fp16 rate, paged optimizer states that cross PCIe every
 * step (bytes), and communication longer than compute (seconds per step, over which link).
 */
export interface StepTimeNoteParams {
  'no-throughput': { readonly gpu: string };
  'no-bf16': { readonly gpu: string };
  'paged-over-pcie': { readonly bytes: number };
  'communication-bound': { readonly commSeconds: number; readonly link: LinkName };
}
export type StepTimeNote = MessageOf<StepTimeNoteParams>;

export interface StepTimeInput {
  readonly scenario: Scenario;
  readonly shape: ModelShape;
  readonly gpu: GpuSpec;
  /** The estimate of this scenario (trainable parameters, per-GPU weight, gradient and optimizer bytes). */
  readonly estimate: Estimate;
  /** The link measured on the machine (nvidia-smi topo), instead of the catalog's. */
  readonly link?: { readonly kind: 'nvlink' | 'pcie' } | null;
  /** Measured NVMe bandwidth, GB/s, instead of DEFAULT_NVME_GBS. */
  readonly nvmeGbs?: number | null;
}

/**
 * Seconds per optimizer step of one GPU, and tokens per second of the whole job.
 * @example stepTime({ scenario, shape, gpu: findGpu('h100-sxm')!, estimate: estimate({ scenario, shape }) }).stepSeconds
 */
export function stepTime(input: StepTimeInput): StepTime {
  const { scenario, shape, gpu, estimate: est } = input;
  const notes: StepTimeNote[] = [];
  const flops = flopsPerToken(scenario, shape, est.params.trainable);
  const microTokens = scenario.microBatchSize * scenario.seqLen;
  const tokensPerStep = microTokens * scenario.gradAccumSteps;
  let peak = peakTflops(gpu, scenario.precision);
  if (peak === null || peak <= 0) {
    peak = 1;
    notes.push({ code: 'no-throughput', params: { gpu: gpu.id } });
  } else if (scenario.precision.startsWith('bf16') && !gpu.bf16) {
    notes.push({ code: 'no-bf16', params: { gpu: gpu.id } });
  }
  const flopsPerSecond = peak * 1e12 * MODEL_FLOPS_UTILIZATION;
  let computeSeconds = (tokensPerStep * flops.total) / flopsPerSecond;

  // bitsandbytes dequantizes each 4/8-bit weight to 16 bits before its matmul (QLoRA §3): reading the
  // packed weight and writing the 16-bit copy, once in forward, once in backward, once more when recomputed.
  const params = paramBreakdown(shape);
  if (scenario.quantization !== 'none' && gpu.memoryBandwidthGBs) {
    const passes = 2 + (scenario.gradientCheckpointing === 'full' ? 1 : 0);
    const bytes = params.linearParams * (quantizedBytesPerParam(scenario.quantization) + 2) * passes;
    computeSeconds += (bytes / (gpu.memoryBandwidthGBs * 1e9)) * scenario.gradAccumSteps;
  }

  // Collectives (ZeRO paper §7: data parallelism moves 2Ψ per step, ZeRO-3 3Ψ): ring all-reduce sends
  // 2(N−1)/N of the buffer, all-gather and reduce-scatter (N−1)/N each.
  const n = scenario.parallelism.gpus;
  const strategy = scenario.parallelism.strategy;
  const link = collectiveLink(gpu, n, input.link);
  const share = n > 1 ? (n - 1) / n : 0;
  const full = scenario.method === 'full' || scenario.method === 'freeze';
  const gradElemBytes = scenario.precision === 'fp32' ? 4 : 2;
  const trainable = est.params.trainable;
  // LoRA adapters stay fp32 (PEFT); their gradients are reduced in fp32.
  const gradBytes = full ? trainable * gradElemBytes : trainable * 4;
  const quantized = scenario.quantization !== 'none';
  const gatheredWeightBytes = quantized
    ? params.linearParams * quantizedBytesPerParam(scenario.quantization) +
      (est.params.total - params.linearParams) * 2
    : est.params.total * (scenario.precision === 'fp32' ? 4 : 2);
  const accum = scenario.gradAccumSteps;
  let commBytes = 0;
  switch (strategy) {
    case 'single':
      break;
    case 'ddp':
    case 'zero1':
      // Gradients all-reduced once per step (no_sync between micro-batches).
      commBytes = 2 * share * gradBytes;
      break;
    case 'zero2':
    case 'fsdp-grad-op':
      // Partitioned gradients are reduce-scattered every micro-batch; updated parameters all-gathered once.
      commBytes = share * (gradBytes * accum + (full ? trainable * 2 : gradBytes));
      break;
    case 'zero3':
    case 'fsdp':
      // Parameters gathered for forward and again for backward, gradients reduce-scattered, per micro-batch.
      commBytes = share * (2 * gatheredWeightBytes + gradBytes) * accum;
      break;
  }
  const commSeconds = commBytes > 0 ? commBytes / (link.gbs * 1e9) : 0;

  // Offload (ZeRO-Offload / ZeRO-Infinity / FSDP CPUOffload): gradients go to the host every micro-batch
  // and updated 16-bit parameters come back once per step; offloaded parameters are fetched for forward
  // and backward every micro-batch. NVMe is shared by the node's GPUs.
  const pcie = pcieGbs(gpu.pcie);
  const nvmeGbs = (input.nvmeGbs ?? DEFAULT_NVME_GBS) / Math.min(n, GPUS_PER_NODE);
  const shards = strategy === 'single' || strategy === 'ddp' ? 1 : n;
  const shardedWeights =
    strategy === 'zero3' || strategy === 'fsdp' ? gatheredWeightBytes / n : gatheredWeightBytes;
  const gradShard = gradBytes / (['zero2', 'zero3', 'fsdp', 'fsdp-grad-op'].includes(strategy) ? shards : 1);
  let offloadSeconds = 0;
  let offloadBytes = 0;
  let hostOptimizerSeconds = 0;
  const optimizerOff = scenario.offload.optimizer;
  const paramsOff = scenario.offload.params;
  if (optimizerOff !== 'none') {
    const bytes = gradShard * accum + (full ? trainable * 2 : gradBytes) / shards;
    offloadBytes += bytes;
    offloadSeconds += bytes / (pcie * 1e9);
    if (optimizerOff === 'nvme') {
      // Optimizer states (fp32 master + two states = 12 B/param) read and written back each step.
      const stateBytes = (24 * trainable) / shards;
      offloadSeconds += stateBytes / (nvmeGbs * 1e9);
    }
    const hostParams = Math.min(n, GPUS_PER_NODE) * (trainable / shards);
    hostOptimizerSeconds = (hostParams * HOST_ADAM_BYTES_PER_PARAM) / (HOST_OPTIMIZER_GBS * 1e9);
  }
  if (paramsOff !== 'none') {
    const bytes = 2 * shardedWeights * accum;
    offloadBytes += bytes;
    offloadSeconds += bytes / (pcie * 1e9);
    if (paramsOff === 'nvme') offloadSeconds += bytes / (nvmeGbs * 1e9);
  }
  // Activation offload: each micro-batch's offloaded activations go to the host in forward and come
  // back in backward. Counted in full, like the other offloads: torch's save_on_cpu (Hugging Face's
  // checkpointing offload) copies synchronously; torchtune's and TRL's side stream hide part of it.
  const activationBytes = est.breakdown.activationsOffloadedBytes ?? 0;
  if (activationBytes > 0) {
    const bytes = 2 * activationBytes * accum;
    offloadBytes += bytes;
    offloadSeconds += bytes / (pcie * 1e9);
  }
  // Paged optimizer states that did not fit stay in host RAM: CUDA managed memory pages them in for the
  // optimizer step and out again when forward needs the room, once per step.
  const pagedToHost = fitVerdict(est, memoryTarget(gpu)).pagedToHostBytes;
  if (pagedToHost > 0) {
    const bytes = 2 * pagedToHost;
    offloadBytes += bytes;
    offloadSeconds += bytes / (pcie * 1e9);
    notes.push({ code: 'paged-over-pcie', params: { bytes: pagedToHost } });
  }
  const stepSeconds = Math.max(computeSeconds, commSeconds) + offloadSeconds + hostOptimizerSeconds;
  if (commSeconds > computeSeconds)
    notes.push({ code: 'communication-bound', params: { commSeconds, link: link.name } });
  return {
    flopsPerToken: flops,
    tokensPerStepPerGpu: tokensPerStep,
    peakTflops: peak,
    utilization: MODEL_FLOPS_UTILIZATION,
    computeSeconds,
    commBytes,
    commSeconds,
    link,
    offloadBytes,
    offloadSeconds,
    hostOptimizerSeconds,
    stepSeconds,
    tokensPerSecond: (tokensPerStep * n) / stepSeconds,
    notes,
  };
}
