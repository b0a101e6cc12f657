/**
 * The precision plan: bytes per weight, gradient, optimizer state and activation element for the
 * scenario's precision, method and strategy; and the bytes of quantized weights.
 */
import { type Scenario, usesBitsandbytes } from '../scenario.js';
import { STRATEGY_TRAITS } from '../sharding.js';

export interface PrecisionPlan {
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

const FP32: PrecisionPlan = {
  weightBytes: 4,
  computeBytes: 4,
  trainableBytes: 4,
  gradientBytes: 4,
  stateBytes: 4,
  masterBytes: 0,
  autocastCopies: false,
};
const TRUE_16: PrecisionPlan = {
  weightBytes: 2,
  computeBytes: 2,
  trainableBytes: 2,
  gradientBytes: 2,
  stateBytes: 2,
  masterBytes: 0,
  autocastCopies: false,
};
// Mixed. DeepSpeed ZeRO keeps the model in 16 bits and the fp32 master weights plus an fp32 gradient
// partition inside the optimizer (2 + 2 + 16 B/param with Adam, stage_1_and_2.py); AMP and FSDP mixed
// precision keep the parameters themselves in fp32 and compute in 16 bits.
const MIXED_WITH_MASTER: PrecisionPlan = {
  weightBytes: 2,
  computeBytes: 2,
  trainableBytes: 2,
  gradientBytes: 2,
  stateBytes: 4,
  masterBytes: 8,
  autocastCopies: false,
};
const MIXED: PrecisionPlan = {
  weightBytes: 4,
  computeBytes: 2,
  trainableBytes: 4,
  gradientBytes: 4,
  stateBytes: 4,
  masterBytes: 0,
  autocastCopies: true,
};

export function precisionPlan(
  scenario: Pick<Scenario, 'precision' | 'method' | 'parallelism'>,
): PrecisionPlan {
  const p = scenario.precision;
  if (p === 'fp32') return FP32;
  if (p.endsWith('-true')) return TRUE_16;
  const full = scenario.method === 'full' || scenario.method === 'freeze';
  return full && STRATEGY_TRAITS[scenario.parallelism.strategy].fp32MasterInOptimizer
    ? MIXED_WITH_MASTER
    : MIXED;
}

/** bitsandbytes blockwise quantization block for NF4/FP4 weights (bitsandbytes functional.quantize_4bit blocksize=64). */
const NF4_BLOCK = 64;
/** Second-level block for double quantization of the absmax constants (QLoRA paper §3: 256). */
const NF4_DQ_BLOCK = 256;
/** GPTQ group size of the common 4-bit checkpoints (auto-gptq default group_size 128). */
const GPTQ_GROUP = 128;

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

/**
 * Whether prepare_model_for_kbit_training changes this scenario: a bitsandbytes base whose other
 * parameters are stored in 16 bits (PEFT src/peft/utils/other.py skips GPTQ, AQLM, EETQ, HQQ and
 * torchao bases, and Params4bit and int8 tensors are not fp16/bf16). load.ts has its load transient.
 */
export function kbitUpcasts(
  scenario: Pick<Scenario, 'prepareKbitUpcast' | 'quantization' | 'quantizer'>,
  plan: PrecisionPlan,
): boolean {
  return scenario.prepareKbitUpcast !== undefined && usesBitsandbytes(scenario) && plan.weightBytes < 4;
}

const DTYPE_BYTES = { fp16: 2, bf16: 2, fp32: 4 } as const;

/** Bytes per element of a dequantized weight at its peak: the dequantized copy, and its cast if any. */
export function dequantBytesPerElement(scenario: Scenario): number {
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
