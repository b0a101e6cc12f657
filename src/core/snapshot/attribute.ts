/**
 * Which of the estimate's five parts an allocation belongs to, read from the stack torch recorded when
 * it was made (and, for backward, from the stack that freed it), and where it was made (its site).
 * Each rule says why. The parts are the estimate's (estimate.ts `Components`), so a snapshot's live
 * bytes set beside an estimate part by part.
 *
 * Frames are innermost first, as torch records them (torch/csrc/profiler/combined_traceback.cpp). The
 * patterns name functions of torch 2.x, transformers, accelerate, peft and bitsandbytes; a frame
 * filter like MemoryViz's (torch/utils/viz/MemoryViz.js `frameFilter`) is not needed here because no
 * rule looks at interpreter frames.
 */
import { type Components, CUBLAS_WORKSPACE_BYTES } from '../estimate.js';
import type { SnapshotFrame, StackTable } from './snapshot.js';

export type SnapshotPart = keyof Components;

/** The five parts in the estimate's order (render-estimate.ts, StackedBar.tsx draw them so). */
export const SNAPSHOT_PARTS: readonly SnapshotPart[] = Object.keys({
  weights: 0,
  gradients: 0,
  optimizer: 0,
  activations: 0,
  runtime: 0,
} satisfies Record<SnapshotPart, 0>) as SnapshotPart[];

/** Why an allocation was given its part (or none). */
export type AttributionRule =
  | 'library-workspace'
  | 'cublas-workspace-size'
  | 'communication'
  | 'optimizer-step'
  | 'weights-load'
  | 'adapter-weights'
  | 'dequantized-weight'
  | 'autocast-weight-copy'
  | 'fsdp-gathered-weights'
  | 'fsdp-reduced-gradients'
  | 'accumulate-grad'
  | 'backward-kept'
  | 'backward-transient'
  | 'freed-by-zero-grad'
  | 'forward'
  | 'no-stack'
  | 'before-recording'
  | 'unknown-stack';

/** Every rule and the part it gives (null: the bytes stay unattributed). */
export const RULE_PART: Readonly<Record<AttributionRule, SnapshotPart | null>> = {
  'library-workspace': 'runtime',
  'cublas-workspace-size': 'runtime',
  communication: 'runtime',
  'optimizer-step': 'optimizer',
  'weights-load': 'weights',
  'adapter-weights': 'weights',
  'dequantized-weight': 'weights',
  'autocast-weight-copy': 'weights',
  'fsdp-gathered-weights': 'weights',
  'fsdp-reduced-gradients': 'gradients',
  'accumulate-grad': 'gradients',
  'backward-kept': 'gradients',
  'backward-transient': 'activations',
  'freed-by-zero-grad': 'gradients',
  forward: 'activations',
  'no-stack': null,
  'before-recording': null,
  'unknown-stack': null,
};

/** What a stack says on its own; `backward` is settled by the stack that freed the allocation. */
export type StackClass = AttributionRule | 'backward';

/** True for a frame of Python code (a .py file, or <string>/<stdin>-style code). */
export function isPythonFrame(frame: SnapshotFrame): boolean {
  const f = frame.filename;
  return f.endsWith('.py') || (f.startsWith('<') && f.endsWith('>') && f !== '<unknown>');
}

const has = (f: SnapshotFrame, part: string) => f.filename.includes(part);

// cuBLAS/cuBLASLt and cuDNN keep scratch buffers: at::cuda::getCUDABlasLtWorkspace,
// getCurrentCUDABlasHandle (aten/src/ATen/cuda/CublasHandlePool.cpp), cuDNN's Workspace (Conv_v7.cpp).
const WORKSPACE = /workspace|cublas|CUDABlasHandle/i;
// NCCL, c10d process groups and DDP's Reducer buckets (torch/csrc/distributed/c10d/reducer.cpp).
const COMMUNICATION = /nccl|c10d::|ProcessGroup|Reducer::/;
// Optimizer code: torch.optim (states are created in each optimizer's _init_group on the first step),
// bitsandbytes' 8-bit and paged optimizers, DeepSpeed's fused Adam/Lion, apex, torchao, transformers'.
const OPTIMIZER_FILES = [
  'torch/optim/',
  'bitsandbytes/optim/',
  'deepspeed/ops/',
  'apex/optimizers/',
  'torchao/optim/',
  'transformers/optimization.py',
  'lion_pytorch',
  'galore_torch',
];
// Loading and placing weights: transformers' from_pretrained and its state-dict loaders, accelerate's
// set_module_tensor_to_device / dispatch, safetensors, nn.Module.to/.cuda/_apply, module constructors.
const LOAD_FUNCTIONS = new Set([
  'from_pretrained',
  'load_state_dict',
  '_load_state_dict_into_meta_model',
  '_load_state_dict_into_model',
  '_load_pretrained_model',
  'load_checkpoint_in_model',
  'load_checkpoint_and_dispatch',
  'set_module_tensor_to_device',
  'set_module_quantized_tensor_to_device',
  'dispatch_model',
  'load_file',
  'reset_parameters',
  'to_empty',
  '_materialize',
]);
const MODULE_FILE = 'torch/nn/modules/module.py';
// peft creates adapter weights in update_layer / _create_and_replace (peft/tuners/lora/layer.py, model.py).
const ADAPTER_FUNCTIONS = new Set([
  'update_layer',
  '_create_and_replace',
  'inject_adapter',
  '_create_new_module',
  'reset_lora_parameters',
]);
// The autograd engine and its generated nodes (torch/csrc/autograd/engine.cpp, generated/Functions.cpp),
// and the Python entry points of backward (torch/_tensor.py, torch/autograd/__init__.py, accelerate).
const BACKWARD_CPP =
  /torch::autograd::Engine::|autograd::generated::\w*Backward\w*::apply|torch::autograd::Node::operator/;
const BACKWARD_FUNCTIONS = new Set(['backward', '_engine_run_backward', 'run_backward', 'grad']);

/**
 * What a frame says, as bits: each stack ORs its frames' bits (worked out once per distinct frame),
 * then the first rule in priority order wins (classifyFlags).
 */
const F = {
  workspace: 1 << 0,
  communication: 1 << 1,
  optimizer: 1 << 2,
  adapter: 1 << 3,
  load: 1 << 4,
  dequant: 1 << 5,
  autocast: 1 << 6,
  fsdpGather: 1 << 7,
  fsdpReduce: 1 << 8,
  accumulate: 1 << 9,
  backward: 1 << 10,
  forward: 1 << 11,
  zeroGrad: 1 << 12,
} as const;

/** The rule bits of one frame. */
export function frameFlags(f: SnapshotFrame): number {
  const n = f.name;
  if (isPythonFrame(f)) {
    if (n === 'zero_grad') return F.zeroGrad;
    if (OPTIMIZER_FILES.some((p) => has(f, p))) return F.optimizer;
    if (LOAD_FUNCTIONS.has(n) || has(f, 'safetensors/')) return F.load;
    if (has(f, MODULE_FILE) && (n === 'to' || n === 'cuda' || n === '_apply')) return F.load;
    if (has(f, 'torch/nn/modules/') && n === '__init__') return F.load;
    if (has(f, 'peft/') && ADAPTER_FUNCTIONS.has(n)) return F.adapter;
    if (has(f, 'bitsandbytes/functional.py') && n.startsWith('dequantize')) return F.dequant;
    if (has(f, 'bitsandbytes/') && (n === '_quantize' || n === 'quantize_4bit')) return F.load;
    if (has(f, 'distributed/fsdp') || has(f, '_composable/fsdp')) {
      if (/unshard|all_gather|alloc_storage/.test(n)) return F.fsdpGather;
      if (/reduce_scatter|post_backward/.test(n)) return F.fsdpReduce;
      return 0;
    }
    if (BACKWARD_FUNCTIONS.has(n) && (has(f, 'torch/') || has(f, 'accelerate/'))) return F.backward;
    if (n === 'forward' || (has(f, MODULE_FILE) && n.endsWith('call_impl'))) return F.forward;
    if (has(f, 'torch/nn/functional.py')) return F.forward;
    return 0;
  }
  if (WORKSPACE.test(n)) return F.workspace;
  if (COMMUNICATION.test(n)) return F.communication;
  if (n.includes('autocast::cached_cast')) return F.autocast;
  if (n.includes('AccumulateGrad')) return F.accumulate;
  if (BACKWARD_CPP.test(n)) return F.backward;
  return 0;
}

/** The rules in priority order: library scratch buffers and communication, the optimizer, weights
 * (adapters, loading, dequantized and autocast copies, FSDP all-gathers), gradients accumulated,
 * backward (settled later by its free), forward. */
const PRIORITY: readonly [number, StackClass][] = [
  [F.workspace, 'library-workspace'],
  [F.communication, 'communication'],
  [F.optimizer, 'optimizer-step'],
  [F.adapter, 'adapter-weights'],
  [F.load, 'weights-load'],
  [F.dequant, 'dequantized-weight'],
  [F.autocast, 'autocast-weight-copy'],
  [F.fsdpGather, 'fsdp-gathered-weights'],
  [F.fsdpReduce, 'fsdp-reduced-gradients'],
  [F.accumulate, 'accumulate-grad'],
  [F.backward, 'backward'],
  [F.forward, 'forward'],
];

/** The class of a stack from its frames' ORed bits. */
export function classifyFlags(flags: number, frames: number): StackClass {
  if (frames === 0) return 'no-stack';
  for (const [bit, cls] of PRIORITY) if (flags & bit) return cls;
  return 'unknown-stack';
}

/** What one stack says: the first matching rule, in PRIORITY's order; else unknown. */
export function classifyStack(frames: readonly SnapshotFrame[]): StackClass {
  let flags = 0;
  for (const f of frames) flags |= frameFlags(f);
  return classifyFlags(flags, frames.length);
}

/** Where an allocation was made: a Python frame, an autograd node (C++ only), or neither. */
export type SiteKind = 'python' | 'autograd' | 'cpp' | 'none';

const AUTOGRAD_NODE = /autograd::generated::(\w+)::apply/;

/** The frame that names a stack's site: the innermost Python frame (C++ frames fold into it). */
export function siteOf(frames: readonly SnapshotFrame[]): { kind: SiteKind; frame: SnapshotFrame | null } {
  if (frames.length === 0) return { kind: 'none', frame: null };
  for (const f of frames) if (isPythonFrame(f)) return { kind: 'python', frame: f };
  for (const f of frames) {
    const m = AUTOGRAD_NODE.exec(f.name);
    if (m) return { kind: 'autograd', frame: { name: m[1]!, filename: '', line: 0 } };
  }
  return { kind: 'cpp', frame: null };
}

/** A stack's class and site, worked out once per stack. */
export interface StackFacts {
  readonly cls: StackClass;
  /** An index into `sites` of StackFacts' table. */
  readonly site: number;
  /** True when the stack is inside backward (for the allocations it frees). */
  readonly inBackward: boolean;
  /** True when the stack is the optimizer's zero_grad (which frees gradients). */
  readonly zeroGrad: boolean;
}

export interface Site {
  readonly kind: SiteKind;
  readonly frame: SnapshotFrame | null;
}

/** Class and site of every stack of a table, with the sites numbered once. */
export function stackFacts(stacks: StackTable): { facts: StackFacts[]; sites: Site[] } {
  const sites: Site[] = [];
  const siteIds = new Map<string, number>();
  const siteId = (site: Site): number => {
    const key = `${site.kind}\u0000${site.frame?.filename}\u0000${site.frame?.line}\u0000${site.frame?.name}`;
    let id = siteIds.get(key);
    if (id === undefined) {
      id = sites.length;
      sites.push(site);
      siteIds.set(key, id);
    }
    return id;
  };
  const facts: StackFacts[] = [];
  const flagsOf = new Int32Array(stacks.frames.length).fill(-1);
  for (let s = 0; s < stacks.count; s++) {
    const ids = stacks.framesOf(s);
    let flags = 0;
    for (const id of ids) {
      if (flagsOf[id]! < 0) flagsOf[id] = frameFlags(stacks.frames[id]!);
      flags |= flagsOf[id]!;
    }
    const cls = classifyFlags(flags, ids.length);
    facts.push({
      cls,
      site: siteId(siteOf(Array.from(ids, (id) => stacks.frames[id]!))),
      inBackward: cls === 'backward' || cls === 'accumulate-grad' || cls === 'fsdp-reduced-gradients',
      zeroGrad: (flags & F.zeroGrad) !== 0,
    });
  }
  siteId({ kind: 'none', frame: null });
  return { facts, sites };
}

/** The site id of "no stack" in a stackFacts table. */
export function noStackSite(sites: readonly Site[]): number {
  return sites.findIndex((s) => s.kind === 'none');
}

/**
 * The rule for one allocation: its stack's class, with backward settled by its free (freed inside
 * backward: a transient; kept past it: a gradient) and frameless blocks of cuBLAS's default workspace
 * size (estimate.ts CUBLAS_WORKSPACE_BYTES) given to runtime.
 */
export function attributeAllocation(
  alloc: StackFacts | null,
  freedBy: StackFacts | null,
  size: number,
  beforeRecording: boolean,
): AttributionRule {
  if (alloc === null) {
    if (freedBy?.zeroGrad) return 'freed-by-zero-grad';
    if (size === CUBLAS_WORKSPACE_BYTES) return 'cublas-workspace-size';
    return beforeRecording ? 'before-recording' : 'no-stack';
  }
  if (alloc.cls === 'backward') return freedBy?.inBackward ? 'backward-transient' : 'backward-kept';
  return alloc.cls;
}
