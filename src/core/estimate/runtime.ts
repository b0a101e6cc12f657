/**
 * Runtime: what a training process holds besides the model and its activations. The CUDA context lives
 * outside torch; the cuBLAS workspaces are allocated through torch's caching allocator; NCCL's buffers
 * come with a second GPU. docs/memory-model.md gives the reasoning; each constant carries its source.
 */
import type { GpuSpec } from '../catalog/gpu-spec.js';
import { MIB } from '../units.js';

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

/** The runtime's pieces on one GPU of the scenario. */
export interface RuntimeBytes {
  /** The CUDA context, outside torch. */
  readonly contextBytes: number;
  /** The cuBLAS workspaces, inside torch allocated from the first matmul on. */
  readonly workspaceBytes: number;
  /** NCCL's buffers, outside torch, when more than one GPU is used. */
  readonly ncclBytes: number;
}

/** The runtime step: the context, the workspaces and NCCL for this GPU and GPU count. */
export function runtimeBytes(gpu: GpuSpec | null | undefined, gpus: number): RuntimeBytes {
  return {
    contextBytes: cudaContextBytes(gpu),
    workspaceBytes: cublasWorkspaceBytes(gpu),
    ncclBytes: gpus > 1 ? NCCL_BUFFER_BYTES : 0,
  };
}
