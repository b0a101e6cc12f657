/**
 * The memory model: per-GPU peak memory of one fine-tuning step, by part and by phase, at the three
 * levels a user can observe (torch allocated, torch reserved, nvidia-smi). docs/memory-model.md
 * explains each term and its source; the constants below carry their source where they have one.
 */
import type { LinearRole, ModelShape } from './architecture.js';
import { LINEAR_ROLES } from './architecture.js';
import { inputsKept } from './bitsandbytes.js';
import type { GpuSpec } from './catalog/gpu-spec.js';
import { HeadroomUserError } from './errors.js';
import type { EstimateNote } from './estimate-notes.js';
import { type Fit, fitVerdict, memoryTarget } from './margin.js';
import { type LinearModule, type ParamBreakdown, paramBreakdown } from './params.js';
import { type Scenario, usesBitsandbytes } from './scenario.js';
import { type ModelStateBytes, placeModelStates, shardModelStates } from './sharding.js';
import { MIB } from './units.js';

export type Phase = 'load' | 'forward' | 'backward' | 'optimizer-step';
export const PHASES: readonly Phase[] = ['load', 'forward', 'backward', 'optimizer-step'];

export interface Components {
  readonly weights: number;
  readonly gradients: number;
  readonly optimizer: number;
  readonly activations: number;
  readonly runtime: number;
}

/** One term of a phase's high point: what it is and its torch-allocated bytes. */
export interface TermBytes {
  readonly term: PeakTermName;
  readonly bytes: number;
}

export interface Estimate {
  readonly perGpu: true;
  readonly peak: {
    readonly allocatedBytes: number;
    readonly reservedBytes: number;
    readonly deviceBytes: number;
  };
  /** The five parts at the peak; they add up to peak.deviceBytes. */
  readonly components: Components;
  readonly peakPhase: Phase;
  /**
   * What the peak phase's high point holds, term by term (torch-allocated bytes; they add up to
   * peak.allocatedBytes). Reserved adds the allocator's reserve, device the CUDA context and NCCL.
   * Present when the estimate was asked for its terms (EstimateInput.terms).
   */
  readonly peakTerms?: readonly TermBytes[];
  /** torch-allocated bytes at the high point of each phase. */
  readonly phases: Readonly<Record<Phase, number>>;
  /** Each phase's high point term by term; each list adds up to that phase's figure in `phases`. */
  readonly phaseTerms?: Readonly<Record<Phase, readonly TermBytes[]>>;
  /** Host memory (CPU RAM, pinned buffers included) and NVMe space per node when anything is offloaded. */
  readonly host: { readonly cpuBytes: number; readonly nvmeBytes: number } | null;
  readonly params: { readonly total: number; readonly trainable: number; readonly exactFromWeights: boolean };
  /** The pieces behind the parts, for people who want to check the arithmetic. */
  readonly breakdown: Readonly<Record<string, number>>;
  readonly fits?: Fit;
  /** Assumptions the estimate had to make, as data (src/words/estimate-notes.ts words them). */
  readonly notes: readonly EstimateNote[];
}

export interface EstimateInput {
  readonly scenario: Scenario;
  readonly shape: ModelShape;
  /** Exact parameter count read from the weight files, when known; the shape's count otherwise. */
  readonly exactParams?: number | null;
  readonly gpu?: GpuSpec | null;
  /** The share of the GPU's memory kept free when judging the fit (margin.ts); default 10 %. */
  readonly marginFraction?: number;
  /**
   * Also return what each phase's high point is made of (`peakTerms`, `phaseTerms`): the CLI's
   * output and the dashboard ask for them; planners and searches, which only compare peaks, do not.
   */
  readonly terms?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Constants. Each is a physical quantity; docs/memory-model.md gives the reasoning.

/** GPUs one node holds in this model (the DGX/HGX board); host memory is per node, so it counts that many. */
export const GPUS_PER_NODE = 8;
/** CUDA context + kernel images with lazy loading, outside torch (PyTorch notes/cuda.rst; MEMORY-MODEL.md: 300–500 MiB). */
export const CUDA_CONTEXT_BYTES = 500 * MIB;
/**
 * The same on a Hopper GPU, measured: nvidia-smi's per-process figure minus torch's reserved was
 * 742–758 MiB in every one of 115 runs on an H200 (torch 2.11, CUDA 13.0, driver 580; bench/gpu rows),
 * whatever the model, precision or attention kernel. More SMs and Hopper's larger kernel images.
 */
export const HOPPER_CUDA_CONTEXT_BYTES = 758 * MIB;

/** What the CUDA context holds outside torch on this GPU (the general figure when the GPU is unknown). */
export function cudaContextBytes(gpu: Pick<GpuSpec, 'architecture'> | null | undefined): number {
  return gpu?.architecture === 'Hopper' ? HOPPER_CUDA_CONTEXT_BYTES : CUDA_CONTEXT_BYTES;
}
/**
 * One cuBLAS handle's workspace. torch allocates it through its caching allocator, so it counts in
 * max_memory_allocated: pytorch/pytorch#95668 finds 8,519,680 bytes still allocated after a single
 * nn.Linear on an A10G. The default is CUBLAS_WORKSPACE_CONFIG ":4096:2:16:8" (4096 KiB × 2 + 16 KiB × 8),
 * and 32 MiB on Hopper and Blackwell (aten/src/ATen/cuda/CublasHandlePool.cpp,
 * parseChosenWorkspaceSize).
 */
export const CUBLAS_WORKSPACE_BYTES = 4096 * 1024 * 2 + 16 * 1024 * 8;
export const CUBLAS_WORKSPACE_BYTES_HOPPER = 32 * MIB;
/** hipBLAS on ROCm, the same function: 32 MiB, and 128 MiB on gfx942/gfx950 (MI300, MI350). */
export const HIPBLAS_WORKSPACE_BYTES = 32 * MIB;
export const HIPBLAS_WORKSPACE_BYTES_GFX942 = 128 * MIB;
/**
 * A training step holds two cuBLAS handles, each with its own workspace: the handles are per thread,
 * and backward runs on autograd's device thread, not the Python thread that runs forward and the
 * optimizer. Measured on the H200: full fine-tunes that peak at the optimizer step, where every other
 * term is exact, allocated 64–67 MiB more than the terms without it (rows h200-016, h200-023,
 * h200c-014, h200c-016, h200g-004).
 */
export const CUBLAS_HANDLES_PER_STEP = 2;

/** The cuBLAS workspaces a training step keeps allocated on this GPU (the general size when it is unknown). */
export function cublasWorkspaceBytes(
  gpu: Pick<GpuSpec, 'architecture' | 'vendor'> | null | undefined,
): number {
  return CUBLAS_HANDLES_PER_STEP * workspacePerHandle(gpu);
}

function workspacePerHandle(gpu: Pick<GpuSpec, 'architecture' | 'vendor'> | null | undefined): number {
  if (gpu?.vendor === 'AMD')
    return /gfx94[2-9]|gfx95\d/.test(gpu.architecture)
      ? HIPBLAS_WORKSPACE_BYTES_GFX942
      : HIPBLAS_WORKSPACE_BYTES;
  const large = gpu?.architecture === 'Hopper' || gpu?.architecture === 'Blackwell';
  return large ? CUBLAS_WORKSPACE_BYTES_HOPPER : CUBLAS_WORKSPACE_BYTES;
}
/** NCCL communicator buffers per process when more than one GPU is used (NCCL_BUFFSIZE 4 MiB × channels × peers). */
export const NCCL_BUFFER_BYTES = 384 * MIB;
/**
 * Share of the churning (transient) bytes that the caching allocator holds as unusable reserve.
 * MEMORY-MODEL.md gives reserved − allocated as 5–30 % in training; on the 91 H200 runs (bench/gpu) the
 * measured reserve was a median 11.4 % of the bytes this model calls churn.
 */
export const ALLOCATOR_FRAGMENTATION = 0.12;
/**
 * The same share with expandable segments (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True), measured:
 * twelve H200 runs, each run twice, kept a median 7.8 % of the churn above allocated with it (2–31 %)
 * where the default allocator kept 53 % (8–96 %); bench/gpu/results/expandable-*.jsonl.
 */
export const EXPANDABLE_SEGMENTS_FRAGMENTATION = 0.078;

/** The share of the churning bytes the allocator keeps as reserve, for the scenario's allocator setting. */
export function fragmentationShare(scenario: Pick<Scenario, 'expandableSegments'>): number {
  return scenario.expandableSegments ? EXPANDABLE_SEGMENTS_FRAGMENTATION : ALLOCATOR_FRAGMENTATION;
}
/**
 * The allocator's own slack inside torch reserved: blocks rounded up to 2 MiB, 2 MiB and 20 MiB segments
 * only partly used. The least reserve beyond allocated measured on the H200 was 184 MiB (row h200c-002).
 */
export const ALLOCATOR_BASE_RESERVE_BYTES = 64 * MIB;
/** DeepSpeed ZeRO's gradient reduce bucket, elements (reduce_bucket_size default 5e8, deepspeed/runtime/zero/config.py). */
export const ZERO_REDUCE_BUCKET_ELEMENTS = 5e8;
/**
 * Decoder layers whose saved activations are on the GPU at once under activation offload: the one whose
 * tensors are being copied out (or back) and the one in use. Implementations sit around it: torch's
 * save_on_cpu (Hugging Face's checkpointing offload) keeps none after forward and one in backward;
 * Unsloth's offloaded checkpointer moves one layer input at a time; torchtune's OffloadActivations
 * (training/_activation_offloading.py, and TRL's copy) keeps up to 5 saved tensors in its forward stash
 * until backward's first node ends, and frees each backward node's tensors once the next one runs.
 */
export const ACTIVATION_OFFLOAD_LAYERS_ON_GPU = 2;
/** Chunks a chunked cross-entropy splits the logits into (torchtune CEWithChunkedOutputLoss num_output_chunks = 8). */
export const LOSS_CHUNKS = 8;
/** bitsandbytes blockwise quantization block for NF4/FP4 weights (bitsandbytes functional.quantize_4bit blocksize=64). */
const NF4_BLOCK = 64;
/** Second-level block for double quantization of the absmax constants (QLoRA paper §3: 256). */
const NF4_DQ_BLOCK = 256;
/** GPTQ group size of the common 4-bit checkpoints (auto-gptq default group_size 128). */
const GPTQ_GROUP = 128;
/** DeepSpeed's pinned host buffer factor (stage3.py additional_buffer_factor). */
const HOST_BUFFER_FACTOR = 1.5;

// ---------------------------------------------------------------------------------------------
// Precision.

interface PrecisionPlan {
  /** Bytes per stored base weight of a non-quantized tensor. */
  readonly weightBytes: number;
  /** Bytes per element of activations (compute dtype). */
  readonly computeBytes: number;
  /** Bytes per trainable parameter of the model itself (the parameter the optimizer updates). */
  readonly trainableBytes: number;
  /** Bytes per gradient element. */
  readonly gradientBytes: number;
  /** Bytes of each optimizer state element. */
  readonly stateBytes: number;
  /** Extra optimizer-held bytes per trainable parameter (fp32 master + fp32 gradient partition, DeepSpeed style). */
  readonly masterBytes: number;
  /** Weights are fp32 in memory but computed in 16 bits: autocast keeps a 16-bit copy of each weight it uses. */
  readonly autocastCopies: boolean;
}

const DEEPSPEED = new Set(['zero1', 'zero2', 'zero3']);

function precisionPlan(scenario: Pick<Scenario, 'precision' | 'method' | 'parallelism'>): PrecisionPlan {
  const p = scenario.precision;
  const full = scenario.method === 'full' || scenario.method === 'freeze';
  if (p === 'fp32') {
    return {
      weightBytes: 4,
      computeBytes: 4,
      trainableBytes: 4,
      gradientBytes: 4,
      stateBytes: 4,
      masterBytes: 0,
      autocastCopies: false,
    };
  }
  if (p.endsWith('-true')) {
    return {
      weightBytes: 2,
      computeBytes: 2,
      trainableBytes: 2,
      gradientBytes: 2,
      stateBytes: 2,
      masterBytes: 0,
      autocastCopies: false,
    };
  }
  // Mixed. DeepSpeed ZeRO keeps the model in 16 bits and the fp32 master weights plus an fp32
  // gradient partition inside the optimizer (2 + 2 + 16 B/param with Adam, stage_1_and_2.py); AMP and
  // FSDP mixed precision keep the parameters themselves in fp32 and compute in 16 bits.
  if (full && DEEPSPEED.has(scenario.parallelism.strategy)) {
    return {
      weightBytes: 2,
      computeBytes: 2,
      trainableBytes: 2,
      gradientBytes: 2,
      stateBytes: 4,
      masterBytes: 8,
      autocastCopies: false,
    };
  }
  return {
    weightBytes: 4,
    computeBytes: 2,
    trainableBytes: 4,
    gradientBytes: 4,
    stateBytes: 4,
    masterBytes: 0,
    autocastCopies: true,
  };
}

/** Bytes per weight of a quantized linear layer, block constants included. */
export function quantizedBytesPerParam(quantization: Scenario['quantization']): number {
  switch (quantization) {
    case 'nf4':
    case 'fp4':
      // 4-bit codes + one fp32 absmax per 64 weights (QLoRA paper §3; MEMORY-MODEL.md: +0.0625 B).
      return 0.5 + 4 / NF4_BLOCK;
    case 'nf4-dq':
      // Double quantization: 8-bit absmax per 64 weights + one fp32 constant per 256 blocks (QLoRA §3).
      return 0.5 + 1 / NF4_BLOCK + 4 / (NF4_BLOCK * NF4_DQ_BLOCK);
    case 'int8':
      // LLM.int8(): int8 weights + one fp32 scale per output row (negligible per weight).
      return 1;
    case 'int4-gptq':
      // Packed 4-bit + fp16 scale and packed 4-bit zero per group of 128 (auto-gptq QuantLinear).
      return 0.5 + 2 / GPTQ_GROUP + 0.5 / GPTQ_GROUP;
    case 'none':
      return Number.NaN;
  }
}

/**
 * Bytes per quantized weight that FSDP and ZeRO-3 cannot partition, so every GPU holds them whole.
 * bitsandbytes keeps a 4-bit layer's block constants in a QuantState that the module holds beside the
 * parameter; sharding converts only the parameter ("the quant state got lost when the parameter got
 * converted. This happens for example for fsdp": bitsandbytes nn/modules.py,
 * fix_4bit_weight_quant_state_from_module). GPTQ layers keep their packed weights, scales and zeros
 * as buffers (auto-gptq QuantLinear.register_buffer), which neither strategy shards. torchao's
 * NF4Tensor shards its scales with its codes (torchtune's FSDP2 QLoRA).
 */
export function unshardedQuantBytesPerParam(scenario: Pick<Scenario, 'quantization' | 'quantizer'>): number {
  if (scenario.quantization === 'int4-gptq') return quantizedBytesPerParam('int4-gptq');
  if (!usesBitsandbytes(scenario)) return 0;
  const codes = scenario.quantization === 'int8' ? 1 : 0.5;
  return quantizedBytesPerParam(scenario.quantization) - codes;
}

/** DeepSpeed's reduce bucket in elements for "auto", as the Hugging Face integration sizes it: hidden_size². */
export function autoReduceBucketElements(shape: ModelShape): number {
  return shape.hiddenSize * shape.hiddenSize;
}

/** DeepSpeed's reduce bucket in elements: the scenario's, "auto", else DeepSpeed's default. */
export function reduceBucketElements(scenario: Scenario, shape: ModelShape): number {
  const size = scenario.parallelism.reduceBucketSize;
  if (size === 'auto') return autoReduceBucketElements(shape);
  return size ?? ZERO_REDUCE_BUCKET_ELEMENTS;
}

// ---------------------------------------------------------------------------------------------
// What is trained.

interface TrainingPlan {
  /** Trainable parameters (whole model, before sharding). */
  readonly trainableParams: number;
  /** Extra weights stored for training only (LoRA adapters, modules_to_save copies). */
  readonly extraWeightParams: number;
  /** Trainable parameters kept at the model's own precision: all of full/freeze, modules_to_save copies of LoRA. */
  readonly denseTrainableParams: number;
  /** Roles whose weights are trained in the layers that train (full, freeze). */
  readonly fullyTrainedLayers: number;
  /** Roles that carry a LoRA adapter, with the adapter's in/out widths per instance. */
  readonly adapted: ReadonlyMap<
    string,
    {
      readonly roles: readonly LinearRole[];
      readonly inFeatures: number;
      readonly outFeatures: number;
      readonly count: number;
    }
  >;
  readonly lmHeadTrained: boolean;
  readonly lmHeadAdapted: boolean;
  readonly embeddingTrained: boolean;
  /** Layers through which gradients must flow (and so save activations). */
  readonly layersWithGrad: number;
}

const EMBED_NAMES = new Set([
  'embed_tokens',
  'wte',
  'embed_in',
  'word_embeddings',
  'tok_embeddings',
  'embeddings',
]);
const HEAD_NAMES = new Set(['lm_head', 'embed_out', 'output']);

/** Resolved targets per LoRA config and shape: planners re-estimate one scenario many times. */
const TARGETS = new WeakMap<object, WeakMap<ModelShape, TrainingPlan['adapted']>>();

function resolveTargets(
  scenario: Scenario,
  shape: ModelShape,
  linears: readonly LinearModule[],
): TrainingPlan['adapted'] {
  const lora = scenario.lora!;
  let byShape = TARGETS.get(lora);
  if (!byShape) {
    byShape = new WeakMap<ModelShape, TrainingPlan['adapted']>();
    TARGETS.set(lora, byShape);
  }
  const cached = byShape.get(shape);
  if (cached) return cached;
  const resolved = computeTargets(lora, shape, linears);
  byShape.set(shape, resolved);
  return resolved;
}

function computeTargets(
  lora: NonNullable<Scenario['lora']>,
  shape: ModelShape,
  linears: readonly LinearModule[],
): TrainingPlan['adapted'] {
  const adapted = new Map<
    string,
    { roles: LinearRole[]; inFeatures: number; outFeatures: number; count: number }
  >();
  const names =
    lora.targets === 'all-linear'
      ? // PEFT "all-linear": every linear module except the output head (peft/tuners/tuners_utils.py),
        // under the model's own names (the last of each role's names): a fused qkv_proj or gate_up_proj
        // is one module with one adapter, as PEFT finds it.
        [
          ...new Set(
            LINEAR_ROLES.filter(
              (role) => shape.moduleNames[role].length > 0 && linears.some((m) => m.role === role),
            ).map((role) => shape.moduleNames[role].at(-1)!),
          ),
        ]
      : lora.targets.filter((name) => !HEAD_NAMES.has(name));
  for (const name of names) {
    const roles = LINEAR_ROLES.filter((role) => shape.moduleNames[role].includes(name) || role === name);
    const present = roles.filter((role) => linears.some((m) => m.role === role));
    if (present.length === 0) {
      const known = [
        ...new Set(
          LINEAR_ROLES.flatMap((role) =>
            linears.some((m) => m.role === role) ? shape.moduleNames[role] : [],
          ),
        ),
      ];
      throw new HeadroomUserError({
        code: 'invalid-field',
        where: 'lora.targets',
        message: `lora.targets: "${name}" is not a linear module of ${shape.modelType} models`,
        hint: `use "all-linear" or some of: ${[...known, 'lm_head'].join(', ')}`,
      });
    }
    // A fused module name (query_key_value, c_attn, gate_up_proj) is one adapter over all the roles it
    // covers; a Llama-style name on a fused architecture adapts that slice alone (litgpt, PEFT fan-in).
    const modules = linears.filter((m) => present.includes(m.role));
    const groups = new Map<string, LinearModule[]>();
    for (const m of modules) {
      const key = `${m.group}:${m.inFeatures}:${m.count}`;
      groups.set(key, [...(groups.get(key) ?? []), m]);
    }
    const isFused = present.length > 1 && !LINEAR_ROLES.includes(name as LinearRole);
    for (const [key, group] of groups) {
      if (isFused) {
        const first = group[0]!;
        adapted.set(`${name}@${key}`, {
          roles: group.map((m) => m.role),
          inFeatures: first.inFeatures,
          outFeatures: group.reduce((sum, m) => sum + m.outFeatures, 0),
          count: first.count,
        });
      } else {
        for (const m of group) {
          adapted.set(`${m.role}@${key}:${m.outFeatures}`, {
            roles: [m.role],
            inFeatures: m.inFeatures,
            outFeatures: m.outFeatures,
            count: m.count,
          });
        }
      }
    }
  }
  return adapted;
}

function trainingPlan(scenario: Scenario, shape: ModelShape, params: ParamBreakdown): TrainingPlan {
  const none = new Map<string, never>();
  if (scenario.method === 'full') {
    return {
      trainableParams: params.totalParams,
      extraWeightParams: 0,
      denseTrainableParams: params.totalParams,
      fullyTrainedLayers: shape.numLayers,
      adapted: none,
      lmHeadTrained: true,
      lmHeadAdapted: false,
      embeddingTrained: true,
      layersWithGrad: shape.numLayers,
    };
  }
  if (scenario.method === 'freeze') {
    const k = Math.min(scenario.trainableLayers ?? 2, shape.numLayers);
    const perLayer =
      (params.linearParams + params.routerParams) / shape.numLayers +
      (params.normParams - shape.hiddenSize) / shape.numLayers;
    return {
      trainableParams: Math.round(perLayer * k),
      extraWeightParams: 0,
      denseTrainableParams: Math.round(perLayer * k),
      fullyTrainedLayers: k,
      adapted: none,
      lmHeadTrained: false,
      lmHeadAdapted: false,
      embeddingTrained: false,
      layersWithGrad: k,
    };
  }
  const lora = scenario.lora!;
  const adapted = resolveTargets(scenario, shape, params.linears);
  const rank = lora.rank;
  let adapterParams = 0;
  for (const a of adapted.values()) adapterParams += rank * (a.inFeatures + a.outFeatures) * a.count;
  const targets = lora.targets === 'all-linear' ? [] : lora.targets;
  const lmHeadAdapted = targets.some((t) => HEAD_NAMES.has(t));
  const headRows = shape.vocabSize;
  if (lmHeadAdapted) adapterParams += rank * (shape.hiddenSize + headRows);
  const saved = lora.modulesToSave;
  for (const name of saved) {
    if (!EMBED_NAMES.has(name) && !HEAD_NAMES.has(name)) {
      throw new HeadroomUserError({
        code: 'invalid-field',
        where: 'lora.modulesToSave',
        message: `lora.modulesToSave: "${name}" is not a module Headroom can size`,
        hint: 'use embed_tokens and/or lm_head',
      });
    }
  }
  const embeddingTrained = saved.some((n) => EMBED_NAMES.has(n));
  const lmHeadTrained = saved.some((n) => HEAD_NAMES.has(n));
  // PEFT's ModulesToSaveWrapper keeps the frozen original and a trainable copy.
  const embedRows = shape.vocabSize * shape.hiddenSize;
  const savedParams = (embeddingTrained ? embedRows : 0) + (lmHeadTrained ? embedRows : 0);
  return {
    trainableParams: adapterParams + savedParams,
    extraWeightParams: adapterParams + savedParams,
    denseTrainableParams: savedParams,
    fullyTrainedLayers: 0,
    adapted,
    lmHeadTrained,
    lmHeadAdapted,
    embeddingTrained,
    layersWithGrad: shape.numLayers,
  };
}

// ---------------------------------------------------------------------------------------------
// Optimizer states.

/** Bytes per adapter parameter, its gradient and each optimizer state: fp32 (PEFT) or the model's dtype. */
function adapterBytesPerParam(
  scenario: Pick<Scenario, 'lora'>,
  plan: PrecisionPlan,
): { readonly weight: number; readonly gradient: number; readonly state: number } {
  return scenario.lora?.adapterDtype === 'model'
    ? { weight: plan.trainableBytes, gradient: plan.gradientBytes, state: plan.stateBytes }
    : { weight: 4, gradient: 4, state: 4 };
}

function optimizerStateBytes(
  scenario: Pick<Scenario, 'optimizer' | 'fusedOptimizer'>,
  plan: PrecisionPlan,
  trainableParams: number,
  adapterParams: number,
  adapterStateBytes: number,
): { bytes: number; paged: boolean; foreachTemp: number } {
  const n = trainableParams;
  // Adapters are kept in fp32 by PEFT (autocast_adapter_dtype), so their states are fp32 as well,
  // unless they take the model's dtype (lora.adapterDtype "model").
  const dense = n - adapterParams;
  const states = (count: number) => count * (dense * plan.stateBytes + adapterParams * adapterStateBytes);
  const master = n * plan.masterBytes;
  // torch's fused kernels (fused=True) update each tensor in place: no state-sized temporary.
  const temp = (count: number) => (scenario.fusedOptimizer ? 0 : states(count));
  switch (scenario.optimizer) {
    case 'adamw':
      // torch.optim.AdamW (foreach): exp_avg, exp_avg_sq; one state-sized temporary for the sqrt.
      return { bytes: states(2) + master, paged: false, foreachTemp: temp(1) };
    case 'paged-adamw':
      return { bytes: states(2) + master, paged: true, foreachTemp: 0 };
    case 'adamw-8bit':
    case 'paged-adamw-8bit':
      // bitsandbytes 8-bit blockwise states: 1 B each + one fp32 absmax per 2048 (blocksize 2048).
      return {
        bytes: n * 2 * (1 + 4 / 2048) + master,
        paged: scenario.optimizer.startsWith('paged'),
        foreachTemp: 0,
      };
    case 'sgd':
      return { bytes: master, paged: false, foreachTemp: 0 };
    case 'sgd-momentum':
    case 'lion':
      return { bytes: states(1) + master, paged: false, foreachTemp: temp(1) };
    case 'adafactor':
      // Factored second moment (row + column vectors per matrix, Shazeer & Stern 2018): about
      // 2/sqrt(params per matrix) per weight; 1 % of a state is a generous bound for LLM matrices.
      return { bytes: states(1) * 0.01 + master, paged: false, foreachTemp: 0 };
  }
}

/**
 * Whole-model weights, gradients and optimizer states of full fine-tuning with `params` parameters,
 * before sharding: what accelerate's and DeepSpeed's estimators count (no activations).
 */
export function fullTrainingModelStates(
  params: number,
  scenario: Pick<Scenario, 'precision' | 'optimizer' | 'method' | 'parallelism'>,
): ModelStateBytes {
  const plan = precisionPlan(scenario);
  return {
    weights: params * plan.weightBytes,
    gradients: params * plan.gradientBytes,
    optimizer: optimizerStateBytes(scenario, plan, params, 0, 4).bytes,
  };
}

// ---------------------------------------------------------------------------------------------
// Activations: bytes saved for backward per token, per decoder layer.

interface LayerContext {
  readonly shape: ModelShape;
  readonly e: number;
  readonly scenario: Scenario;
  /** Weights of this layer are trained (full / freeze). */
  readonly layerTrained: boolean;
  readonly adapted: TrainingPlan['adapted'];
  /**
   * The quantized linears keep their input although their weight is frozen: bitsandbytes' MatMul8bitLt,
   * and MatMul4Bit before 0.43.2 (`ctx.tensors = (A, B)`; bitsandbytes PR #1270 made it `(None, B)`).
   */
  readonly quantizedSavesInputs: boolean;
  /**
   * Bytes per element of the residual stream. Under autocast with fp32 weights it stays fp32: the
   * fp32 embedding output, and HF's RMSNorm returns `weight * x.to(input_dtype)` in the input's fp32,
   * so a trained norm saves its normalized input in 4 bytes (measured: h200-005/006, 4 % under
   * without it).
   */
  readonly residualBytes: number;
  /**
   * Bytes per element of the copy of its input each LoRA adapter keeps for lora_A's weight gradient,
   * or null when the adapters read the layer's input tensor itself (see adapterInputCopyBytes).
   */
  readonly adapterInputCopy: number | null;
}

/**
 * Whether each LoRA adapter keeps its own copy of its input, and in how many bytes per element.
 * PEFT casts a layer's input to lora_A's dtype before the adapter (peft/tuners/lora/layer.py
 * Linear.forward: `x = self._cast_input_dtype(x, lora_A.weight.dtype)`), and keeps adapters in fp32 on
 * a 16-bit base (autocast_adapter_dtype=True): without autocast every adapted module saves its own
 * fp32 copy. Under autocast every lora_A call casts its input to 16 bits again (autocast caches the
 * casts of weights only, autocast_mode.cpp cached_cast), so each adapter saves its own 16-bit copy.
 * Adapters in the compute dtype (lora.adapterDtype "model", or fp32 training) read the input itself,
 * shared by every adapter on it. Measured on the H200 (bench/gpu, rows h200-015/028/043 against
 * h200c-007/008): fp32 adapters on a bf16 base hold 4 bytes per adapted input element, not a shared 2.
 */
function adapterInputCopyBytes(scenario: Scenario, plan: PrecisionPlan): number | null {
  if (!scenario.lora) return null;
  if (plan.autocastCopies) return plan.computeBytes;
  if (plan.computeBytes === 4 || scenario.lora.adapterDtype === 'model') return null;
  return 4;
}

function isAdapted(ctx: LayerContext, role: LinearRole): boolean {
  for (const a of ctx.adapted.values()) if (a.roles.includes(role)) return true;
  return false;
}

/**
 * Bytes a LoRA adapter saves per token beyond a shared input: its own copy of the input (cast, or
 * dropped out, with a 1-byte mask) and the rank-r A output, in the adapter's compute dtype.
 */
function adapterSavedBytes(ctx: LayerContext, roles: readonly LinearRole[]): number {
  const lora = ctx.scenario.lora;
  if (!lora) return 0;
  const copy = ctx.adapterInputCopy;
  let bytes = 0;
  for (const a of ctx.adapted.values()) {
    if (!a.roles.some((r) => roles.includes(r))) continue;
    // PEFT applies nn.Dropout before lora_A, to the cast input: a dropped-out copy and a 1-byte mask.
    if (lora.dropout > 0) bytes += ((copy ?? ctx.e) + 1) * a.inFeatures;
    else if (copy !== null) bytes += copy * a.inFeatures;
    bytes += (copy ?? ctx.e) * lora.rank;
  }
  return bytes;
}

/**
 * Whether a linear's input tensor itself is kept for backward. Autograd saves a linear's input only to
 * compute its weight's gradient, so a frozen 16-bit base does not keep it (derivatives.yaml: mm saves
 * `self` only when mat2 needs a gradient). A LoRA adapter keeps it when it reads the input directly;
 * with dropout > 0 it reads the dropped-out copy instead, and adapterSavedBytes counts that copy.
 */
function needsInput(ctx: LayerContext, roles: readonly LinearRole[]): boolean {
  const adapterReadsInput =
    (ctx.scenario.lora?.dropout ?? 0) === 0 &&
    ctx.adapterInputCopy === null &&
    roles.some((r) => isAdapted(ctx, r));
  return ctx.layerTrained || ctx.quantizedSavesInputs || adapterReadsInput;
}

/**
 * fp32 with grouped KV heads: Hugging Face hands SDPA the grouped K/V with enable_gqa=True
 * (integrations/sdpa_attention.py use_gqa_in_sdpa), and PyTorch's fused kernels take neither fp32 and
 * GQA together (flash and cuDNN need 16 bits; memory-efficient has no GQA), so SDPA runs its math path,
 * which saves the fp32 softmax output: 4·a·s bytes per token and layer. Seen on the H200
 * (bench/gpu/probe_attention.py: softmax_warp_forward and fp32 GEMMs instead of cuDNN's flash kernel;
 * rows h200-011, h200c-013). Selective checkpointing recomputes it.
 */
function sdpaMathPathBytesPerToken(scenario: Scenario, shape: ModelShape, computeBytes: number): number {
  const mathPath =
    scenario.attention === 'sdpa' &&
    computeBytes === 4 &&
    shape.numKvHeads < shape.numHeads &&
    scenario.gradientCheckpointing !== 'selective';
  return mathPath ? 4 * shape.numHeads * scenario.seqLen : 0;
}

/** Bytes a norm saves per token: RMSNorm upcasts to fp32 and keeps that input (HF LlamaRMSNorm). */
function normSavedBytes(ctx: LayerContext, recomputed: boolean): number {
  const h = ctx.shape.hiddenSize;
  if (recomputed) return 0;
  // RMSNorm written in Python (HF LlamaRMSNorm, litgpt RMSNorm) ends with `weight * normalized`: when
  // the weight trains, that multiply also keeps the 16-bit normalized tensor for the weight's gradient.
  // LayerNorm's fused kernel rebuilds it from the saved input, mean and rstd.
  if (ctx.shape.norm === 'rms') return 4 * h + (ctx.layerTrained ? ctx.residualBytes * h : 0);
  return ctx.e * h;
}

/**
 * Saved bytes per token of one decoder layer. Tensor by tensor, after Korthikanti et al. 2022 §4,
 * adapted to SwiGLU, GQA, RMSNorm, SDPA/flash kernels and frozen weights (docs/memory-model.md).
 */
export function layerActivationBytesPerToken(ctx: LayerContext): number {
  const { shape, e, scenario } = ctx;
  const h = shape.hiddenSize;
  const s = scenario.seqLen;
  const a = shape.numHeads;
  const qDim = a * shape.headDim;
  const selective = scenario.gradientCheckpointing === 'selective';
  // HF's SDPA and eager paths repeat K/V to every query head before the kernel (repeat_kv); the
  // flash-attention path keeps the grouped heads.
  const kvHeads = scenario.attention === 'flash' ? shape.numKvHeads : a;
  const kDim = kvHeads * shape.headDim;
  const vDim = kvHeads * shape.valueHeadDim;
  const oIn = a * shape.valueHeadDim;
  let bytes = 0;

  // Attention block: norm, q/k/v input, attention core, o_proj input.
  const parallelBlock = shape.normsPerLayer === 1; // Falcon-7B, Phi: attention and MLP share one norm
  bytes += normSavedBytes(ctx, selective);
  const qkvRoles: LinearRole[] = ['q_proj', 'k_proj', 'v_proj'];
  const mlpInRoles: LinearRole[] = shape.mlp === 'gated' ? ['gate_proj', 'up_proj'] : ['up_proj'];
  if (needsInput(ctx, parallelBlock ? [...qkvRoles, ...mlpInRoles] : qkvRoles) || selective) bytes += e * h;
  bytes += adapterSavedBytes(ctx, qkvRoles);
  if (shape.qkNorm && !selective) bytes += 4 * (qDim + shape.numKvHeads * shape.headDim);
  // SDPA / flash: q, k, v, output and an fp32 log-sum-exp per head (FlashAttention-2 backward inputs).
  bytes += e * (qDim + kDim + vDim + oIn) + 4 * a;
  // A fused q/k/v projection: v reaches SDPA as a slice of the qkv output (HF modeling_phi3.py splits
  // qkv by slicing), so saving v keeps the whole output alive, its q and k parts beside the rotated
  // copies. Eager attention over grouped heads copies v in repeat_kv, which lets the output go.
  // Measured on the H200: Phi-3-mini LoRA on qkv_proj and o_proj was 6 % under without it (h200c-017).
  if (shape.fusedQkv && !selective && !(scenario.attention === 'eager' && shape.numKvHeads < a)) {
    bytes += e * (qDim + shape.numKvHeads * shape.headDim);
  }
  if (scenario.attention === 'eager' && !selective) {
    // Eager softmax in fp32 keeps its output, and the 16-bit probabilities feed the PV matmul (HF
    // eager_attention_forward: softmax(dtype=float32).to(query.dtype)).
    bytes += (4 + e) * a * s;
    // Soft-capped scores (Gemma-2's eager_attention_forward: tanh(scores / cap) · cap) keep the tanh
    // output too. Measured on the H200: Gemma-2-2B eager was 7 % under without it (row h200-024).
    if (shape.attnLogitSoftcap) bytes += e * a * s;
  }
  bytes += sdpaMathPathBytesPerToken(scenario, shape, e);
  bytes += adapterSavedBytes(ctx, ['o_proj']);

  // MLP block.
  const extraNorms = Math.max(0, shape.normsPerLayer - 2); // Gemma-2/3 post-norms
  if (!parallelBlock) {
    bytes += normSavedBytes(ctx, selective);
    if (needsInput(ctx, mlpInRoles) || selective) bytes += e * h;
  }
  bytes += extraNorms * normSavedBytes(ctx, selective);
  bytes += adapterSavedBytes(ctx, [...mlpInRoles, 'down_proj']);
  const moe = shape.moe;
  const routedWidth = moe
    ? moe.expertIntermediateSize * moe.topK + moe.expertIntermediateSize * moe.sharedExperts
    : shape.intermediateSize;
  const downInput = needsInput(ctx, ['down_proj']);
  if (shape.mlp === 'gated') {
    // gate output (activation input), activation output and up output (the product's operands),
    // and the product itself when down_proj needs its input. Selective recomputes the elementwise ops.
    bytes += e * routedWidth * (selective ? 2 : 3) + (downInput && !selective ? e * routedWidth : 0);
  } else {
    // Activation input (fc1 output), and its output when down_proj needs its input.
    bytes += e * routedWidth + (downInput && !selective ? e * routedWidth : 0);
  }
  if (moe) {
    // Router logits in fp32, and each routed copy of the token's hidden state (dispatch and combine).
    bytes += 4 * moe.numExperts + 2 * e * h * moe.topK;
  }
  return bytes;
}

/**
 * Bytes per token of the distinct inputs of one decoder layer's quantized linears: the q/k/v input,
 * o_proj's input, the MLP's input (shared with q/k/v in a parallel block with one norm) and down_proj's.
 */
function quantizedInputBytesPerToken(shape: ModelShape, e: number): number {
  const h = shape.hiddenSize;
  const moe = shape.moe;
  const mlpInputs =
    shape.normsPerLayer === 1 ? 0 : moe ? h * (moe.topK + (moe.sharedExperts > 0 ? 1 : 0)) : h;
  const downInputs = moe
    ? moe.expertIntermediateSize * (moe.topK + moe.sharedExperts)
    : shape.intermediateSize;
  return e * (h + shape.numHeads * shape.valueHeadDim + mlpInputs + downInputs);
}

interface ActivationPlan {
  /** Bytes saved by the forward pass, held at the start of backward. */
  readonly savedBytes: number;
  /**
   * Bytes the previous step still holds while this step's forward runs: the quantized layers' inputs
   * when they outlive backward and the loop keeps the last outputs (quantizedInputsKept "next-forward").
   */
  readonly previousStepBytes: number;
  /** The largest extra transient of backward: a recomputed layer, or the logits' gradients. */
  readonly backwardTransientBytes: number;
  /** Logits and loss bytes held at the end of the forward pass. */
  readonly lossResidentBytes: number;
  /** The loss's own backward transient (the logits' gradients, whole or one chunk's). */
  readonly lossBackwardBytes: number;
  readonly perLayerBytes: number;
  /** Saved decoder-layer bytes that wait in pinned CPU memory (offload.activations "cpu"). */
  readonly offloadedBytes: number;
}

function activationPlan(
  scenario: Scenario,
  shape: ModelShape,
  plan: PrecisionPlan,
  training: TrainingPlan,
): ActivationPlan {
  const tokens = scenario.microBatchSize * scenario.seqLen;
  const e = plan.computeBytes;
  const h = shape.hiddenSize;
  const V = shape.vocabSize;
  const kept = inputsKept(scenario);
  const trainedCtx: LayerContext = {
    shape,
    e,
    scenario,
    layerTrained: true,
    adapted: training.adapted,
    quantizedSavesInputs: kept !== 'none',
    adapterInputCopy: adapterInputCopyBytes(scenario, plan),
    residualBytes: plan.autocastCopies ? 4 : e,
  };
  const ctx: LayerContext = { ...trainedCtx, layerTrained: training.fullyTrainedLayers > 0 };
  const perLayer = layerActivationBytesPerToken(training.fullyTrainedLayers > 0 ? trainedCtx : ctx);
  const layers = training.layersWithGrad;
  const checkpointed = scenario.gradientCheckpointing === 'full';
  // Full checkpointing keeps each layer's input and recomputes one layer at a time in backward.
  const savedPerLayer = (checkpointed ? e * h : perLayer) * tokens;
  // Activation offload moves the decoder layers' saved tensors to pinned CPU memory; a layer or two are
  // on the GPU at any moment. The head, the loss and the final norm stay: torchtune and TRL exempt the
  // output layer, and Unsloth offloads only the decoder layers' inputs.
  const offloaded = scenario.offload.activations === 'cpu';
  const layersOnGpu = offloaded ? Math.min(layers, ACTIVATION_OFFLOAD_LAYERS_ON_GPU) : layers;
  // Inputs an old bitsandbytes keeps on the autograd context stay on the GPU: the saved-tensor hooks
  // that offload never see them, and the context's reference keeps the GPU copy alive.
  const keptOnGpu =
    offloaded && kept !== 'none' && !checkpointed
      ? (layers - layersOnGpu) * quantizedInputBytesPerToken(shape, e) * tokens
      : 0;
  const layerBytes = layersOnGpu * savedPerLayer + keptOnGpu;
  const offloadedBytes = offloaded ? layers * savedPerLayer : 0;
  const recomputeBytes = checkpointed ? perLayer * tokens : 0;
  // Final norm; its output is the LM head's input, saved when the head trains (or is a quantized
  // linear that keeps its input).
  const quantizedHead = scenario.quantizeHead === true && scenario.quantization !== 'none';
  const headInput =
    training.lmHeadTrained ||
    training.lmHeadAdapted ||
    scenario.method === 'full' ||
    (quantizedHead && kept !== 'none')
      ? e * h
      : 0;
  const finalNormWeight = shape.norm === 'rms' && scenario.method === 'full' ? e * h : 0;
  const tail = (4 * h + headInput + finalNormWeight) * tokens;
  // Logits and loss (docs/memory-model.md, "The logits spike").
  let lossResident: number;
  let lossBackward: number;
  switch (scenario.loss) {
    case 'standard':
      // 16-bit logits (returned to the caller), the fp32 log-softmax output saved by cross-entropy;
      // backward adds the fp32 gradient of that output and the fp32 gradient of the logits. Compiled,
      // cross-entropy is one reduction that never materializes the log-softmax, and its backward makes
      // the logits' gradient (softmax − one-hot) in one kernel: no gradient of the log-softmax output
      // (Inductor's kernel for Hugging Face's loss reads the logits and subtracts max and logsumexp:
      // Lightning-AI/lightning-thunder#1654; "torch.compile is able to optimize away this memory
      // allocation": allenai/open-instruct#584). What it saves for backward is its fp32 input when the
      // upcast runs outside it (torchtune), as large as the log-softmax output it replaces.
      // The 16-bit logits themselves are dropped before backward when the caller keeps only the loss
      // (the Hugging Face Trainer's compute_loss returns the loss alone; torchtune's recipes
      // `del logits`): measured on the H200, backward's peak is 2 bytes per logit above forward's, as
      // 4 + 8 over (2 + 4 + 4) predicts (rows h200-012, h200-034).
      lossResident = 4 * V * tokens;
      lossBackward = (scenario.torchCompile ? 4 : 8) * V * tokens;
      break;
    case 'chunked':
      // Logit chunks in 16 bits and each chunk's fp32 log-softmax output stay until backward; the
      // gradients are made one chunk at a time (torchtune CEWithChunkedOutputLoss). Compiled, the
      // chunk's upcast and cross-entropy are one kernel that keeps no fp32 copy: "chunked cross entropy
      // reduces memory by processing and upcasting one chunk at a time. This allows the memory to be
      // released after the computation" (torchtune PR #1390, which compiles the loss with its upcast).
      lossResident = (scenario.torchCompile ? e : e + 4) * V * tokens;
      lossBackward = ((scenario.torchCompile ? 4 : 8) * V * tokens) / LOSS_CHUNKS;
      break;
    case 'fused':
      // Fused linear + cross-entropy (Liger, Cut Cross-Entropy) never holds the whole logits: a chunk of
      // about tokens·h/V rows at a time (Liger's chunk size rule), with its fp32 gradients.
      lossResident = 0;
      lossBackward = (e + 12) * V * Math.max(1, Math.ceil((tokens * h) / V));
      break;
  }
  // Soft-capped logits (Gemma-2): tanh keeps its 16-bit output beside the logits it returns. A fused
  // loss applies the cap inside its kernel.
  if (shape.finalLogitSoftcap && scenario.loss !== 'fused') lossResident += e * V * tokens;
  // The previous step's graph lives on while the loop holds its outputs, until the next forward
  // returns; backward freed its saved tensors but not the inputs bitsandbytes kept on the context. With
  // full (reentrant) checkpointing those were made in a recomputation whose graph is already gone.
  const previousStepBytes =
    kept === 'next-forward' && !checkpointed
      ? tokens * (layers * quantizedInputBytesPerToken(shape, e) + (quantizedHead ? e * h : 0))
      : 0;
  return {
    savedBytes: layerBytes + tail,
    previousStepBytes,
    backwardTransientBytes: Math.max(recomputeBytes, lossBackward),
    lossResidentBytes: lossResident,
    lossBackwardBytes: lossBackward,
    perLayerBytes: perLayer,
    offloadedBytes,
  };
}

// ---------------------------------------------------------------------------------------------
// The estimate.

/** The terms a phase's high point adds up to (torch-allocated bytes), in the order they are held. */
export const PEAK_TERMS = [
  'weights',
  'optimizer-states',
  'communication-buckets',
  'gathered-weights',
  'cublas-workspaces',
  'fsdp-root-unit',
  'accumulated-gradients',
  'gradients',
  'saved-activations',
  'logits-and-loss',
  'autocast-copies',
  'dequantized-weight',
  'quantization-transient',
  'previous-step-inputs',
  'backward-transient',
  'gathered-gradients',
  'fsdp-root-gradient',
  'optimizer-step-temporary',
  // A calibrated estimate (calibrate.ts): the measured run's difference from the terms above.
  'calibration',
] as const;
export type PeakTermName = (typeof PEAK_TERMS)[number];
/** The compositions a phase's high point can take (backward peaks at its start or at its end). */
type PhaseShape =
  | 'load'
  | 'forward'
  | 'backward-start'
  | 'backward-end'
  | 'optimizer-step'
  | 'optimizer-in-backward';

const PERSISTENT_TERMS = [
  'weights',
  'optimizer-states',
  'communication-buckets',
  'gathered-weights',
  'cublas-workspaces',
] as const;
const FORWARD_END_TERMS = [
  ...PERSISTENT_TERMS,
  'fsdp-root-unit',
  'accumulated-gradients',
  'saved-activations',
  'logits-and-loss',
  'autocast-copies',
  'dequantized-weight',
] as const;
/** The names of each composition's terms, in the order estimate() lists their values. */
const PHASE_TERM_NAMES: Readonly<Record<PhaseShape, readonly PeakTermName[]>> = {
  load: ['weights', 'quantization-transient'],
  forward: [...FORWARD_END_TERMS, 'previous-step-inputs'],
  'backward-start': [...FORWARD_END_TERMS, 'backward-transient', 'gathered-gradients', 'fsdp-root-gradient'],
  'backward-end': [
    ...PERSISTENT_TERMS,
    'fsdp-root-unit',
    'gradients',
    'gathered-gradients',
    'fsdp-root-gradient',
    'dequantized-weight',
    'optimizer-step-temporary',
  ],
  'optimizer-step': [
    'weights',
    'gradients',
    'optimizer-states',
    'communication-buckets',
    'cublas-workspaces',
    'optimizer-step-temporary',
  ],
  'optimizer-in-backward': PERSISTENT_TERMS,
};

/** Adds a composition's values, left to right. */
function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** A composition's values as named terms, whole bytes each; terms of 0 bytes are left out. */
function namedTerms(shape: PhaseShape, values: readonly number[]): TermBytes[] {
  const names = PHASE_TERM_NAMES[shape];
  const out: TermBytes[] = [];
  for (let i = 0; i < values.length; i++) {
    if (values[i]! > 0) out.push({ term: names[i]!, bytes: Math.round(values[i]!) });
  }
  return out;
}

/**
 * Estimates the per-GPU peak memory of one training step of `scenario` on a model of `shape`.
 * @example estimate({ scenario: parseScenario({ model: 'llama-3.1-8b' }), shape, gpu })
 */
export function estimate(input: EstimateInput): Estimate {
  const { scenario, shape } = input;
  const params = paramBreakdown(shape);
  const exact = input.exactParams ?? null;
  const totalParams = exact ?? params.totalParams;
  const plan = precisionPlan(scenario);
  const training = trainingPlan(scenario, shape, params);
  const strategy = scenario.parallelism.strategy;
  const gpus = scenario.parallelism.gpus;
  const notes: EstimateNote[] = [];
  const quantized = scenario.quantization !== 'none';
  const keepTerms = input.terms === true;

  // Weights. Quantization applies to the decoder's linear layers; embeddings, norms and the head stay
  // in 16 bits (bitsandbytes skips lm_head; GPTQ keeps it). Exact counts from the weight files replace
  // the shape's count; the difference is stored like embeddings.
  // quantizeHead: an untied output head quantized like the decoder's linears (Lightning quantizes
  // every nn.Linear); a tied head is the embedding, which bitsandbytes never converts.
  const quantizedHeadParams = quantized && scenario.quantizeHead ? params.lmHeadParams : 0;
  const linearWeights = params.linearParams + quantizedHeadParams;
  const otherParams = totalParams - linearWeights;
  const baseWeightBytes = quantized
    ? linearWeights * quantizedBytesPerParam(scenario.quantization) + otherParams * plan.weightBytes
    : totalParams * plan.weightBytes;
  // LoRA adapters and modules_to_save copies: PEFT keeps them in fp32; lora.adapterDtype "model" keeps
  // them in the model's own dtype (torchtune, Lightning's -true precisions), with their gradients and
  // optimizer states.
  const adapterBytes = adapterBytesPerParam(scenario, plan);
  const weightBytes =
    scenario.method === 'full' || scenario.method === 'freeze'
      ? totalParams * plan.weightBytes
      : baseWeightBytes + training.extraWeightParams * adapterBytes.weight;

  // Gradients and optimizer states for the trainable parameters.
  const trainable = training.trainableParams;
  const denseTrainable = training.denseTrainableParams;
  const gradientBytes =
    denseTrainable * plan.gradientBytes + (trainable - denseTrainable) * adapterBytes.gradient;
  const opt = optimizerStateBytes(scenario, plan, trainable, trainable - denseTrainable, adapterBytes.state);

  // Sharding and offload. Quantized bytes that no strategy partitions stay whole, and on the GPU.
  const unshardedQuantBytes = quantized ? linearWeights * unshardedQuantBytesPerParam(scenario) : 0;
  const whole: ModelStateBytes = {
    weights: weightBytes - unshardedQuantBytes,
    gradients: gradientBytes,
    optimizer: opt.bytes,
  };
  const perGpu = shardModelStates(whole, strategy, gpus);
  const placedShards = placeModelStates(perGpu, scenario.offload);
  const placed = {
    ...placedShards,
    gpu: { ...placedShards.gpu, weights: placedShards.gpu.weights + unshardedQuantBytes },
  };
  // The optimizer's step temporary is the size of the states it updates: this GPU's shard of them.
  const stepTempBytes =
    scenario.offload.optimizer === 'none' && whole.optimizer > 0
      ? opt.foreachTemp * (perGpu.optimizer / whole.optimizer)
      : 0;
  const pagedOptimizerBytes = opt.paged ? placed.gpu.optimizer : 0;
  const W = placed.gpu.weights;
  const O = placed.gpu.optimizer - pagedOptimizerBytes;
  // Optimizer in backward (torchtune optimizer_in_bwd): each parameter is stepped by a hook as soon as
  // its gradient is accumulated, and the gradient is freed there. No full set of gradients ever exists:
  // the most held at once is the largest parameter's gradient with its own step temporary.
  const inBackward = scenario.optimizerInBackward === true && placed.gpu.gradients > 0;
  const largestLinear = params.linears.reduce((max, m) => Math.max(max, m.inFeatures * m.outFeatures), 0);
  const largestTensorShare =
    trainable > 0
      ? Math.min(
          1,
          (scenario.method === 'full' ? Math.max(largestLinear, params.embeddingParams) : largestLinear) /
            trainable,
        )
      : 0;
  const G = inBackward ? placed.gpu.gradients * largestTensorShare : placed.gpu.gradients;
  const stepTemp = inBackward ? stepTempBytes * largestTensorShare : stepTempBytes;

  // Working set of sharded weights: the current and the prefetched unit gathered in compute precision
  // (DeepSpeed's "4 × largest layer"; FSDP unshards one unit and prefetches the next).
  const gatheredLayerParams = params.largestLayerParams;
  const weightsAreSharded = strategy === 'zero3' || strategy === 'fsdp';
  const layerBytesQuant = quantized
    ? quantizedBytesPerParam(scenario.quantization) - unshardedQuantBytesPerParam(scenario)
    : plan.computeBytes;
  const gatheredBytes =
    weightsAreSharded && (gpus > 1 || scenario.offload.params !== 'none')
      ? 2 * gatheredLayerParams * layerBytesQuant
      : 0;
  const gatheredGradBytes =
    weightsAreSharded && gpus > 1 && (scenario.method === 'full' || scenario.method === 'freeze')
      ? (strategy === 'fsdp' ? 2 : 1) * gatheredLayerParams * plan.computeBytes
      : 0;

  // FSDP's root unit holds what no wrapped block does: the embeddings and the output head (and the
  // final norm). FSDP keeps the root gathered from the start of forward to the end of backward, and
  // builds the root's whole gradient before one reduce-scatter at the very end (PyTorch FSDP
  // _runtime_utils: the root is not resharded after forward; FSDP2 fully_shard documents the same
  // heuristic). parallelism.wrapEmbeddings makes them ordinary units (torchtune custom_sharded_layers).
  const rootParams =
    strategy === 'fsdp' && gpus > 1 && !scenario.parallelism.wrapEmbeddings
      ? params.embeddingParams + params.lmHeadParams
      : 0;
  const rootBytes = rootParams * plan.computeBytes;
  // Trained root parameters: all of it in a full fine-tune, else the modules_to_save copies.
  const savedCopies = (training.embeddingTrained ? 1 : 0) + (training.lmHeadTrained ? 1 : 0);
  const rootTrainedParams =
    scenario.method === 'full' ? rootParams : savedCopies * shape.vocabSize * shape.hiddenSize;
  const rootGradBytes = rootParams > 0 ? rootTrainedParams * plan.computeBytes : 0;
  // The root's gradient forms in two steps. The head's part comes first, at the start of backward; the
  // embeddings' at the very end, when FSDP joins the per-parameter gradients into one flat tensor: the
  // FlatParameter's split-view backward concatenates them (FSDP1, flat_param.py
  // _get_unflat_views_unaligned: torch.split + view), and FSDP2 copies them into its reduce-scatter
  // input (_fsdp_collectives.py foreach_reduce: torch._chunk_cat). Both exist for that moment.
  // The head's weight: its own matrix, or the embedding when they are tied.
  const headWeightParams = params.lmHeadParams > 0 ? params.lmHeadParams : params.embeddingParams;
  const rootHeadGradBytes =
    rootGradBytes === 0
      ? 0
      : scenario.method === 'full'
        ? headWeightParams * plan.computeBytes
        : training.lmHeadTrained
          ? shape.vocabSize * shape.hiddenSize * plan.computeBytes
          : 0;

  // Communication buffers inside torch's allocator. DeepSpeed's contiguous gradients (on by default)
  // reduce through a flat bucket of reduce_bucket_size elements in the model's dtype, whatever the
  // number of trained parameters: ZeRO-1/2 make one at the start of each backward, two with
  // overlap_comm (stage_1_and_2.py, backward: "Use double buffers"); ZeRO-3 one, when it sets up its
  // optimizer (stage3.py, _setup_for_real_optimizer: __ipg_bucket_flat_buffer).
  let bucketBytes = 0;
  if (strategy === 'ddp' && gpus > 1) bucketBytes = gradientBytes; // DDP buckets copy every gradient (gradient_as_bucket_view=False)
  if ((strategy === 'zero1' || strategy === 'zero2' || strategy === 'zero3') && trainable > 0) {
    const buckets = strategy !== 'zero3' && scenario.parallelism.overlapComm ? 2 : 1;
    bucketBytes = buckets * reduceBucketElements(scenario, shape) * plan.computeBytes;
  }

  // Autocast keeps a 16-bit copy of every fp32 weight it multiplies, saved for backward. It caches the
  // cast only for leaves that require grad (autocast_mode.cpp, cached_cast), so a frozen head computed
  // chunk by chunk is cast again, and saved again, for every chunk.
  const headParams = shape.vocabSize * shape.hiddenSize;
  const frozenHead = scenario.method !== 'full' && !training.lmHeadTrained;
  const headCopies = scenario.loss === 'chunked' && frozenHead ? LOSS_CHUNKS : 1;
  // A frozen weight's copy is not cached, so under full checkpointing it lives only while its layer
  // runs (forward, or the recomputation in backward): one layer's copies at a time. Trained weights stay
  // in the cache until autocast exits. Measured on the H200: Llama-3.1-8B LoRA on an fp32 base with
  // checkpointing and a chunked loss peaks 12 GiB below all copies kept (row h200c-011).
  const perLayerLinear = params.linearParams / shape.numLayers;
  const layerCastParams =
    scenario.gradientCheckpointing === 'full'
      ? Math.min(shape.numLayers, training.fullyTrainedLayers + 1) * perLayerLinear
      : params.linearParams;
  const castParams = plan.autocastCopies
    ? weightsAreSharded && gpus > 1
      ? 0
      : layerCastParams + headParams * headCopies
    : 0;
  const castBytes = quantized ? 0 : castParams * 2;
  // QLoRA dequantizes one weight at a time. bitsandbytes returns it in the dtype it was quantized
  // from, then Linear4bit casts it to the compute dtype: both copies exist for a moment when they
  // differ (bitsandbytes nn/modules.py Linear4bit.forward, autograd MatMul4Bit). GPTQ kernels work
  // from the packed weight; one 16-bit temporary is kept as a bound.
  const largestQuantized = Math.max(
    largestLinear,
    quantizedHeadParams > 0 ? shape.vocabSize * shape.hiddenSize : 0,
  );
  const dequantBytes = quantized ? largestQuantized * dequantBytesPerElement(scenario) : 0;

  const act = activationPlan(scenario, shape, plan, training);
  // Accumulating micro-batches keeps the gradients alive through the next forward. FSDP accumulates
  // them unsharded inside no_sync() (FSDP docs: "FSDP will accumulate the full model gradients (instead
  // of gradient shards) until the eventual sync"), which Accelerate and Lightning use between syncs;
  // parallelism.syncEachMicroBatch says the run reduce-scatters every micro-batch instead.
  const accumulating = scenario.gradAccumSteps > 1;
  const unshardedAccumulation =
    accumulating &&
    (strategy === 'fsdp' || strategy === 'fsdp-grad-op') &&
    gpus > 1 &&
    !scenario.parallelism.syncEachMicroBatch &&
    !inBackward;
  const gradsDuringForward = accumulating ? (unshardedAccumulation ? Math.max(G, gradientBytes) : G) : 0;
  // Each phase's high point as the terms it holds, in the order PHASE_TERM_NAMES names them; the phase's
  // figure is their sum. Loading quantizes one 16-bit weight at a time: that weight and its cast. The end
  // of forward holds what backward needs; the previous step's kept inputs come on top until the loop
  // replaces its outputs, which happens before this backward starts.
  // The cuBLAS workspaces come with the first matmul and stay: not at load, in every phase after it.
  const workspaceBytes = cublasWorkspaceBytes(input.gpu);
  const persistentValues = [W, O, bucketBytes, gatheredBytes, workspaceBytes];
  const forwardEndValues = [
    ...persistentValues,
    rootBytes,
    gradsDuringForward,
    act.savedBytes,
    act.lossResidentBytes,
    castBytes,
    dequantBytes,
  ];
  // Backward's first weight gradient is the output head's, made while the logits' gradient (one chunk's,
  // with a chunked or fused loss) is alive. FSDP's root gradient already counts it; accumulated
  // gradients already hold it; a sharded unit's gathered gradient is the head's at that moment.
  const headTrains = scenario.method === 'full' || training.lmHeadTrained;
  const headGradBytes =
    headTrains && rootHeadGradBytes === 0 && gradsDuringForward === 0
      ? Math.max(
          0,
          (scenario.method === 'full'
            ? headWeightParams * plan.gradientBytes
            : headParams * adapterBytes.gradient) - gatheredGradBytes,
        )
      : 0;
  const logitsGradBytes =
    scenario.loss === 'fused'
      ? act.lossBackwardBytes
      : (plan.computeBytes * shape.vocabSize * scenario.microBatchSize * scenario.seqLen) /
        (scenario.loss === 'chunked' ? LOSS_CHUNKS : 1);
  const backwardTransient = Math.max(
    act.backwardTransientBytes,
    headGradBytes > 0 ? logitsGradBytes + headGradBytes : 0,
  );
  const compositions: Readonly<Record<PhaseShape, readonly number[]>> = {
    load: [W, quantized ? largestQuantized * 4 : 0],
    forward: [...forwardEndValues, act.previousStepBytes],
    'backward-start': [...forwardEndValues, backwardTransient, gatheredGradBytes, rootHeadGradBytes],
    'backward-end': [
      ...persistentValues,
      rootBytes,
      Math.max(G, gradsDuringForward),
      gatheredGradBytes,
      2 * rootGradBytes,
      dequantBytes,
      inBackward ? stepTemp : 0,
    ],
    'optimizer-step': [W, G, O, bucketBytes, workspaceBytes, stepTemp],
    // In backward, the step is already done: no separate optimizer phase holds the gradients.
    'optimizer-in-backward': persistentValues,
  };
  const persistent = sum(persistentValues);
  const backwardStart = sum(compositions['backward-start']);
  const backwardEnd = sum(compositions['backward-end']);
  const shapes: Record<Phase, PhaseShape> = {
    load: 'load',
    forward: 'forward',
    backward: backwardStart >= backwardEnd ? 'backward-start' : 'backward-end',
    'optimizer-step': inBackward ? 'optimizer-in-backward' : 'optimizer-step',
  };
  const phases: Record<Phase, number> = {
    load: sum(compositions.load),
    forward: sum(compositions.forward),
    backward: Math.max(backwardStart, backwardEnd),
    'optimizer-step': sum(compositions[shapes['optimizer-step']]),
  };
  // The same sums term by term, only when asked (kept off the hot path of searches).
  const phaseTerms: Record<Phase, readonly TermBytes[]> | null = keepTerms
    ? {
        load: namedTerms('load', compositions.load),
        forward: namedTerms('forward', compositions.forward),
        backward: namedTerms(shapes.backward, compositions[shapes.backward]),
        'optimizer-step': namedTerms(shapes['optimizer-step'], compositions[shapes['optimizer-step']]),
      }
    : null;
  let peakPhase: Phase = 'load';
  for (const phase of PHASES) if (phases[phase] > phases[peakPhase]) peakPhase = phase;
  const allocated = phases[peakPhase];

  // Reserved: the allocator's reserve grows with the bytes that churn (activations, temporaries);
  // weights and optimizer states are allocated once and pack well. Loading holds only the weights
  // besides its quantization transient: the states, buckets and workspaces come later.
  const churn = Math.max(
    0,
    peakPhase === 'load'
      ? allocated - W
      : allocated - persistent - (peakPhase === 'optimizer-step' ? G : gradsDuringForward),
  );
  const reserved = allocated + ALLOCATOR_BASE_RESERVE_BYTES + fragmentationShare(scenario) * churn;
  const contextBytes = cudaContextBytes(input.gpu);
  const nonTorch = contextBytes + (gpus > 1 ? NCCL_BUFFER_BYTES : 0) + pagedOptimizerBytes;
  const device = reserved + nonTorch;

  // Gradients present at each phase's high point: backward peaks either at its start (before any
  // gradient) or at its end (all of them).
  const gradientsAt: Readonly<Record<Phase, number>> = {
    load: 0,
    forward: gradsDuringForward,
    backward:
      (backwardEnd >= backwardStart
        ? Math.max(G, gradsDuringForward) + 2 * rootGradBytes
        : gradsDuringForward + rootHeadGradBytes) + gatheredGradBytes,
    'optimizer-step': G,
  };
  const atPeak = {
    weights:
      W +
      gatheredBytes +
      (peakPhase === 'forward' || peakPhase === 'backward' ? castBytes + dequantBytes + rootBytes : 0),
    gradients: gradientsAt[peakPhase],
    optimizer:
      peakPhase === 'load'
        ? 0
        : O +
          (peakPhase === 'optimizer-step' ||
          (inBackward && peakPhase === 'backward' && backwardEnd >= backwardStart)
            ? stepTemp
            : 0),
  };
  // The cuBLAS workspaces are runtime buffers that torch happens to allocate.
  const workspacesAtPeak = peakPhase === 'load' ? 0 : workspaceBytes;
  const activationsAtPeak = Math.max(
    0,
    allocated - atPeak.weights - atPeak.gradients - atPeak.optimizer - bucketBytes - workspacesAtPeak,
  );
  const components: Components = {
    weights: atPeak.weights,
    gradients: atPeak.gradients,
    optimizer: atPeak.optimizer + pagedOptimizerBytes,
    activations: activationsAtPeak,
    runtime:
      bucketBytes +
      workspacesAtPeak +
      (reserved - allocated) +
      contextBytes +
      (gpus > 1 ? NCCL_BUFFER_BYTES : 0),
  };

  // Host memory per node: each of the node's GPUs (at most GPUS_PER_NODE) brings its own share.
  const hostStates = placed.host.weights + placed.host.gradients + placed.host.optimizer;
  const nvmeStates = placed.nvme.weights + placed.nvme.gradients + placed.nvme.optimizer;
  const perNode = Math.min(gpus, GPUS_PER_NODE);
  const host =
    hostStates + nvmeStates + act.offloadedBytes > 0
      ? {
          cpuBytes:
            perNode *
            (hostStates * HOST_BUFFER_FACTOR + (nvmeStates > 0 ? gatheredBytes * 2 : 0) + act.offloadedBytes),
          nvmeBytes: nvmeStates * perNode,
        }
      : null;

  if (opt.paged) notes.push({ code: 'paged-optimizer', params: {} });
  if (exact !== null && exact !== params.totalParams)
    notes.push({ code: 'exact-params', params: { fromWeights: exact, fromConfig: params.totalParams } });
  if (unshardedAccumulation && gradsDuringForward > G)
    notes.push({ code: 'fsdp-no-sync', params: { bytes: gradsDuringForward } });
  if (rootBytes >= 2 ** 30) notes.push({ code: 'fsdp-root', params: { bytes: rootBytes + rootGradBytes } });
  const context = shape.contextLength;
  if (shape.learnedPositions > 0 && scenario.seqLen > shape.learnedPositions)
    notes.push({
      code: 'past-learned-positions',
      params: { seqLen: scenario.seqLen, positions: shape.learnedPositions },
    });
  else if (context !== undefined && scenario.seqLen > context)
    notes.push({ code: 'past-context', params: { seqLen: scenario.seqLen, context } });
  if (scenario.attention === 'eager' && scenario.seqLen >= 4096)
    notes.push({ code: 'eager-attention', params: {} });
  // Without checkpointing every layer keeps the math path's softmax; with full checkpointing, one layer.
  const mathAttentionBytes =
    scenario.gradientCheckpointing === 'none'
      ? sdpaMathPathBytesPerToken(scenario, shape, plan.computeBytes) *
        scenario.microBatchSize *
        scenario.seqLen *
        training.layersWithGrad
      : 0;
  if (mathAttentionBytes >= 2 ** 30)
    notes.push({ code: 'fp32-math-attention', params: { bytes: mathAttentionBytes } });
  if (scenario.torchCompile && scenario.loss === 'standard')
    notes.push({ code: 'compile-standard-loss', params: {} });
  if (scenario.torchCompile && scenario.gradientCheckpointing === 'none')
    notes.push({ code: 'compile-no-checkpointing', params: {} });
  // The bucket is the config's business: say what the default costs when the scenario does not name one.
  if (bucketBytes > 0 && strategy.startsWith('zero') && scenario.parallelism.reduceBucketSize === undefined) {
    const autoBytes = bucketBytes * (autoReduceBucketElements(shape) / ZERO_REDUCE_BUCKET_ELEMENTS);
    if (autoBytes < bucketBytes)
      notes.push({
        code: 'zero-default-bucket',
        params: { bytes: Math.round(bucketBytes), autoBytes: Math.round(autoBytes) },
      });
  }

  const result: Estimate = {
    perGpu: true,
    peak: {
      allocatedBytes: Math.round(allocated),
      reservedBytes: Math.round(reserved),
      deviceBytes: Math.round(device),
    },
    components: {
      weights: Math.round(components.weights),
      gradients: Math.round(components.gradients),
      optimizer: Math.round(components.optimizer),
      activations: Math.round(components.activations),
      runtime: Math.round(components.runtime),
    },
    peakPhase,
    phases: {
      load: Math.round(phases.load),
      forward: Math.round(phases.forward),
      backward: Math.round(phases.backward),
      'optimizer-step': Math.round(phases['optimizer-step']),
    },
    host: host ? { cpuBytes: Math.round(host.cpuBytes), nvmeBytes: Math.round(host.nvmeBytes) } : null,
    params: { total: totalParams, trainable: Math.round(trainable), exactFromWeights: exact !== null },
    // Rounded field by field: a generic loop over the keys dominated the profile (bench:speed).
    breakdown: {
      weightsBytes: Math.round(W),
      gradientsBytes: Math.round(G),
      optimizerBytes: Math.round(O),
      pagedOptimizerBytes: Math.round(pagedOptimizerBytes),
      activationsSavedBytes: Math.round(act.savedBytes),
      activationsOffloadedBytes: Math.round(act.offloadedBytes),
      previousStepBytes: Math.round(act.previousStepBytes),
      activationsPerLayerPerTokenBytes: Math.round(act.perLayerBytes),
      lossResidentBytes: Math.round(act.lossResidentBytes),
      backwardTransientBytes: Math.round(backwardTransient),
      autocastCopyBytes: Math.round(castBytes),
      dequantTransientBytes: Math.round(dequantBytes),
      gatheredWeightsBytes: Math.round(gatheredBytes),
      fsdpRootUnitBytes: Math.round(rootBytes),
      fsdpRootGradientBytes: Math.round(rootGradBytes),
      commBufferBytes: Math.round(bucketBytes),
      optimizerTempBytes: Math.round(stepTemp),
      cublasWorkspaceBytes: Math.round(workspaceBytes),
      // The reserve model: the bytes that churn at the peak, and the share of them the allocator keeps.
      churnBytes: Math.round(churn),
      allocatorFragmentationShare: fragmentationShare(scenario),
      cudaContextBytes: Math.round(contextBytes),
      ncclBytes: Math.round(gpus > 1 ? NCCL_BUFFER_BYTES : 0),
    },
    notes,
  };
  if (!input.gpu) return withTerms(result, phaseTerms);
  const fits = fitVerdict(result, memoryTarget(input.gpu, input.marginFraction));
  // Paged states that do not fit the GPU live in host RAM, each of the node's GPUs its own.
  const spilled = fits.pagedToHostBytes * perNode;
  const withSpill =
    spilled > 0
      ? { cpuBytes: (result.host?.cpuBytes ?? 0) + spilled, nvmeBytes: result.host?.nvmeBytes ?? 0 }
      : result.host;
  return withTerms({ ...result, host: withSpill, fits }, phaseTerms);
}

/** The estimate with its terms, when they were asked for (kept off the hot path of searches). */
function withTerms(e: Estimate, phaseTerms: Record<Phase, readonly TermBytes[]> | null): Estimate {
  return phaseTerms ? { ...e, peakTerms: phaseTerms[e.peakPhase], phaseTerms } : e;
}

const DTYPE_BYTES = { fp16: 2, bf16: 2, fp32: 4 } as const;

/** Bytes per element of a dequantized weight at its peak: the dequantized copy, and its cast if any. */
function dequantBytesPerElement(scenario: Scenario): number {
  if (!usesBitsandbytes(scenario)) return 2;
  const compute = scenario.precision.startsWith('bf16')
    ? 'bf16'
    : scenario.precision.startsWith('fp16')
      ? 'fp16'
      : 'fp32';
  // Hugging Face loads a bitsandbytes model in float16 when no torch_dtype is given (-mixed, fp32).
  const from = scenario.quantizedFrom ?? (scenario.precision === 'bf16-true' ? 'bf16' : 'fp16');
  return DTYPE_BYTES[from] + (from === compute ? 0 : DTYPE_BYTES[compute]);
}
