/**
 * Every word a finding shows, in one catalog keyed by code. English now; a Simplified Chinese catalog
 * (issue 6, `--lang zh`) is another object of the same `MessageCatalog` type, which TypeScript checks
 * for completeness. Figures arrive already formatted; only words live here.
 */
import type { OomFamily, OomPhase, PhaseBasis, PhaseReason } from '../oom/index.js';
import type { FindingCode, FindingGroup, Severity } from './finding.js';

/** The parameters each finding's title and action take (formatted figures and small enums). */
export interface FindingParams {
  'no-oom-message': Record<string, never>;
  'not-an-oom': {
    readonly error: string;
    readonly kind: 'bitsandbytes' | 'cuda' | 'resource' | 'signal' | 'other';
  };
  'other-processes': { readonly count: number; readonly bytes: string; readonly gpu: string };
  'own-process-in-container': { readonly pid: string; readonly bytes: string };
  'leftover-process': Record<string, never>;
  'memory-outside-process': { readonly bytes: string };
  'free-exceeds-request': { readonly free: string; readonly requested: string };
  'numberless-oom': { readonly family: 'cuda-runtime' | 'nccl' | 'bitsandbytes' };
  'framework-preallocation': { readonly framework: 'xla' | 'tensorflow' };
  'request-exceeds-card': { readonly requested: string; readonly total: string; readonly unbounded: boolean };
  'allocated-exceeds-card': { readonly allocated: string; readonly total: string };
  'host-memory': { readonly kind: 'dataloader' | 'shared-memory' | 'loading' | 'kill' };
  'second-model-copy': Record<string, never>;
  'weights-at-load': Record<string, never>;
  activations: { readonly phase: 'forward' | 'backward' };
  'optimizer-states': Record<string, never>;
  'rank-imbalance': Record<string, never>;
  'evaluation-memory': Record<string, never>;
  'checkpoint-save': Record<string, never>;
  'mid-run': Record<string, never>;
  'phase-unknown': Record<string, never>;
  leak: { readonly where: string };
  'eval-growth': Record<string, never>;
  fragmentation: { readonly cached: string | null; readonly legacy: boolean };
  'stable-full': Record<string, never>;
  'alloc-retries': { readonly count: number };
}

/** Labels of the evidence lines. */
export type EvidenceLabel =
  | 'message'
  | 'requested'
  | 'card-total'
  | 'card-free'
  | 'card-used'
  | 'torch-allocated'
  | 'reserved-unallocated'
  | 'reserved-total'
  | 'this-process'
  | 'process'
  | 'processes-total'
  | 'unaccounted'
  | 'allowed'
  | 'cuda-context'
  | 'free-plus-cache'
  | 'log'
  | 'phase'
  | 'estimate-peak'
  | 'estimate-part'
  | 'rank'
  | 'allocated'
  | 'peak-allocated'
  | 'reserved'
  | 'growth-per-step'
  | 'rising-steps'
  | 'projected-full'
  | 'inactive-split'
  | 'retries'
  | 'rank-peak';

/** Changes the estimator can price. */
export type RemedyCode =
  | 'micro-batch'
  | 'gradient-checkpointing'
  | 'fused-loss'
  | 'sdpa'
  | 'shorter-seq'
  | 'bf16-true'
  | 'lora'
  | 'qlora'
  | 'zero3'
  | 'adamw-8bit'
  | 'zero2'
  | 'offload-optimizer';

export interface RemedyParams {
  readonly from: string;
  readonly to: string;
}

type Texts = {
  readonly [C in FindingCode]: {
    readonly title: (p: FindingParams[C]) => string;
    readonly action: (p: FindingParams[C]) => string;
  };
};

export interface MessageCatalog {
  readonly lang: string;
  readonly findings: Texts;
  readonly labels: Readonly<Record<EvidenceLabel, string>>;
  readonly remedies: Readonly<Record<RemedyCode, (p: RemedyParams) => string>>;
  readonly groups: Readonly<Record<FindingGroup, string>>;
  readonly severities: Readonly<Record<Severity, string>>;
  readonly phases: Readonly<Record<OomPhase, string>>;
  readonly bases: Readonly<Record<PhaseBasis, string>>;
  readonly phaseReasons: Readonly<Record<PhaseReason, string>>;
  readonly families: Readonly<Record<OomFamily, string>>;
  /** Small phrases the renderers compose. */
  readonly words: {
    readonly gpu: (index: string) => string;
    readonly share: (part: string, percent: string) => string;
    readonly estimateFits: (spare: string) => string;
    readonly estimateShort: (short: string) => string;
    readonly remedyFits: (saved: string, spare: string) => string;
    readonly remedyShort: (saved: string, short: string) => string;
    readonly remedySaves: (saved: string) => string;
    readonly atStep: (bytes: string, step: string) => string;
    readonly ofSteps: (rising: string, total: string) => string;
    readonly stepOnRank: (rank: string, device: string) => string;
    readonly noFindings: string;
    readonly tryFlags: string;
  };
}

export const EN: MessageCatalog = {
  lang: 'en',
  findings: {
    'no-oom-message': {
      title: () => 'No out-of-memory message in this text',
      action: () =>
        'The findings below come from the traceback and the log alone. Paste the whole error, from "Traceback" to the end of the message, to get the figures.',
    },
    'not-an-oom': {
      title: (p) => `Not an out-of-memory error: ${p.error}`,
      action: (p) => {
        switch (p.kind) {
          case 'bitsandbytes':
            return 'bitsandbytes reports a C-side error in the shape of its "out of memory" one. "operation not supported" means CUDA managed memory is unavailable here (WSL, some drivers and containers): use a non-paged optimizer (AdamW8bit instead of PagedAdamW).';
          case 'cuda':
            return 'A different CUDA error, not memory: rerun with CUDA_LAUNCH_BLOCKING=1 to find the kernel that fails (an index out of range is the usual cause of an illegal memory access or a device-side assert).';
          case 'resource':
            return 'RESOURCE_EXHAUSTED here is not about memory (gRPC message sizes and quotas use the same word): fix the limit it names.';
          case 'signal':
            return 'The worker died from a signal other than the OOM killer: look at the first error that worker printed.';
          case 'other':
            return 'Fix the error it names; memory settings will not change it.';
        }
      },
    },
    'other-processes': {
      title: (p) =>
        `${p.count} other process${p.count === 1 ? ' holds' : 'es hold'} ${p.bytes} on GPU ${p.gpu}`,
      action: () =>
        'Free the card before changing the training setup: list them with `nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv`, stop the ones that should not be there, or run on another GPU (CUDA_VISIBLE_DEVICES).',
    },
    'own-process-in-container': {
      title: (p) => `"Process ${p.pid}" is most likely this process, seen from a container`,
      action: (p) =>
        `NVML reports host PIDs, so inside a container's PID namespace PyTorch prints its own process as "Process N" rather than "this process" (pytorch #152135). Its ${p.bytes} account for the card's used memory: there is no other program to hunt for; read the figures below.`,
    },
    'leftover-process': {
      title: () => 'Another process holds memory on this GPU: a leftover of an earlier run, or another job',
      action: () =>
        'Find it with `nvidia-smi --query-compute-apps=pid,used_memory --format=csv`; a scheduler that puts two jobs on one GPU needs exclusive GPU allocation. If `kill` says "no such process", it lives in another PID namespace: `fuser -v /dev/nvidia*` on the host shows it. A stopped job (state T in ps) keeps its memory until it is killed; data-loader children of a killed job can keep it too.',
    },
    'memory-outside-process': {
      title: (p) => `${p.bytes} in use on the card that no listed process accounts for`,
      action: () =>
        'Something outside this process holds it: another container or VM on the same card, the display server, or a process NVML cannot list (Windows WDDM, restricted containers). Compare nvidia-smi on the host with what this job uses.',
    },
    'free-exceeds-request': {
      title: (p) => `The card reported ${p.free} free, more than the ${p.requested} requested`,
      action: () =>
        'The allocation failed for a reason other than the total free memory: device memory split up by other allocations, Windows WDDM, or memory that changed between the failed cudaMalloc and the report. The message does not contradict itself.',
    },
    'numberless-oom': {
      title: (p) =>
        p.family === 'nccl'
          ? 'NCCL ran out of GPU memory (no figures in the message)'
          : p.family === 'bitsandbytes'
            ? 'bitsandbytes ran out of GPU memory (no figures in the message)'
            : 'CUDA out of memory outside PyTorch’s allocator (no figures in the message)',
      action: (p) =>
        p.family === 'nccl'
          ? 'The card was already full when NCCL allocated its buffers for a collective. Rerun with NCCL_DEBUG=INFO to see the failing allocation; leave room for NCCL (about 0.4 GiB per process) or lower NCCL_BUFFSIZE, and check that every rank uses its own GPU.'
          : p.family === 'bitsandbytes'
            ? 'bitsandbytes could not allocate in its C code (paged optimizer states, quantization buffers): the card is full. Use the setup findings below to make room.'
            : 'Check the system layer first: other processes on the card (nvidia-smi), ranks creating CUDA contexts on GPU 0 (call torch.cuda.set_device(local_rank) before init_process_group), then rerun with CUDA_LAUNCH_BLOCKING=1 so the error is raised where it happens, usually with the allocator’s figures.',
    },
    'framework-preallocation': {
      title: (p) =>
        p.framework === 'xla'
          ? 'XLA preallocates most of the card'
          : 'TensorFlow takes the whole card by default',
      action: (p) =>
        p.framework === 'xla'
          ? 'JAX/XLA reserves 75 % of the card at start (XLA_PYTHON_CLIENT_MEM_FRACTION), so nvidia-smi’s "used" says nothing about need. Set XLA_PYTHON_CLIENT_PREALLOCATE=false to see real use, or raise XLA_PYTHON_CLIENT_MEM_FRACTION when this process is alone on the card; the BufferAssignment dump lists the largest buffers.'
          : 'Call tf.config.experimental.set_memory_growth(gpu, True) so the card can be shared and nvidia-smi shows real use; the allocator summary that follows the message lists what held memory.',
    },
    'request-exceeds-card': {
      title: (p) =>
        p.unbounded
          ? 'A request of more than 1 EB: a corrupted size, not memory pressure'
          : `One request of ${p.requested} on a ${p.total} card: a shape bug, not memory pressure`,
      action: (p) =>
        p.unbounded
          ? 'No setting fixes this: the size was computed from garbage, usually after an earlier failure (a collective timeout, a rank that died, a corrupted broadcast). Look above in the log for the first error and fix that.'
          : 'No card holds this tensor. Find it: an input far larger than intended (a whole dataset in one batch, a full-resolution image, a sequence without max_length), a wrong reshape or broadcast, fp32 logits of a large vocabulary over many tokens. Cap input sizes.',
    },
    'allocated-exceeds-card': {
      title: (p) => `PyTorch reports ${p.allocated} allocated on a ${p.total} card`,
      action: () =>
        'Only possible when Windows (WDDM) lets the card spill into system memory ("shared GPU memory"): the figures are unreliable and the run was already swapping. Treat the card as full.',
    },
    'host-memory': {
      title: () => 'Host memory (CPU RAM) ran out, not GPU memory',
      action: (p) => {
        switch (p.kind) {
          case 'dataloader':
            return 'The kernel’s OOM killer stopped DataLoader workers: use fewer num_workers, do not copy the dataset into each worker (memory-map it), and check the container’s RAM limit.';
          case 'shared-memory':
            return 'The DataLoader workers ran out of shared memory (/dev/shm): give the container more (`docker run --shm-size=16g`; on Kubernetes an emptyDir with medium: Memory) or use fewer workers.';
          case 'loading':
            return 'Loading the checkpoint filled host RAM: load with low_cpu_mem_usage=True or a device_map so shards go straight to the GPU, prefer safetensors (memory-mapped), or add RAM or swap.';
          case 'kill':
            return 'The kernel killed the process (OOM killer; exit code 137 or -9): check `dmesg | grep -i oom` and the container’s memory limit, and look for host-side copies (datasets in RAM, CPU offload, pinned buffers).';
        }
      },
    },
    'second-model-copy': {
      title: () => 'A second copy of the model on the same card',
      action: () =>
        'Evaluate the model you train (trainer.evaluate, or model.eval() under torch.no_grad()) instead of loading it again. When a second model is needed (reference, EMA, teacher), put it on another GPU, spread it with device_map="auto", or load it in 8 or 4 bits.',
    },
    'weights-at-load': {
      title: () => 'It failed while loading the model: the weights do not fit',
      action: () =>
        'Shrink the weights: 16-bit weights (bf16) instead of fp32, a 4-bit base with LoRA (QLoRA), or shard them across GPUs (ZeRO-3, FSDP). Under ZeRO-3, let DeepSpeed place the weights (from_pretrained with the DeepSpeed config active) rather than moving the whole model to each GPU first.',
    },
    activations: {
      title: (p) => `It failed in the ${p.phase} pass: the activations do not fit`,
      action: () =>
        'Activations grow with micro-batch × sequence length: a smaller micro-batch with more gradient accumulation (same effective batch), gradient checkpointing, a chunked or fused cross-entropy (the logits of a large vocabulary are the spike), shorter sequences. Allocator settings do not help a card that is genuinely full.',
    },
    'optimizer-states': {
      title: () => 'It failed in the optimizer step: the optimizer states do not fit',
      action: () =>
        'AdamW creates its two states at the first step (8 bytes per trained parameter in fp32), and the foreach kernels add a state-sized temporary: an 8-bit optimizer (bitsandbytes AdamW8bit), ZeRO-1/2 or FSDP to shard the states, optimizer offload to CPU, or LoRA so only adapters have states. foreach=False drops the temporary.',
    },
    'rank-imbalance': {
      title: () => 'One GPU holds more than the others',
      action: () =>
        'Rank 0 often carries the CUDA contexts of the other ranks (call torch.cuda.set_device(local_rank) before init_process_group and create tensors on the rank’s own device), DataParallel gathers every output on GPU 0 (use DistributedDataParallel), and device_map="auto" fills GPU 0 first (pass max_memory to leave room for activations).',
    },
    'evaluation-memory': {
      title: () => 'It failed during evaluation',
      action: () =>
        'Evaluation should need less than training: run it under torch.no_grad() or torch.inference_mode() (model.eval() alone keeps the graph), move predictions to the CPU as you go (Trainer: eval_accumulation_steps, or preprocess_logits_for_metrics to keep only the argmax), lower the evaluation batch size, and budget generate()’s KV cache for the longest output.',
    },
    'checkpoint-save': {
      title: () => 'It failed while saving a checkpoint',
      action: () =>
        'Gathering a full state dict puts the whole model on one GPU: with FSDP use FullStateDictConfig(offload_to_cpu=True, rank0_only=True) or SHARDED_STATE_DICT; with DeepSpeed ZeRO-3 save the sharded checkpoint and convert it offline (zero_to_fp32.py) instead of stage3_gather_16bit_weights_on_model_save.',
    },
    'mid-run': {
      title: () => 'It failed after the run had been going for a while',
      action: () =>
        'The setup fit for many steps, so something changed: a longer batch (enforce max_length; bucket by length), memory growing step after step (a leak: a loss or outputs kept with their graph — accumulate loss.item()), or fragmentation (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True). A step-by-step memory record tells these apart.',
    },
    'phase-unknown': {
      title: () => 'The text does not say where in the run it failed',
      action: () =>
        'Paste the whole traceback (its frames show load, forward, backward or the optimizer step), and give the setup (--scenario or the scenario flags) to see what each part of memory needs.',
    },
    leak: {
      title: (p) => `Allocated memory grows step after step (${p.where})`,
      action: () =>
        'A reference is kept alive across steps: total_loss += loss (use loss.item() or loss.detach()), outputs or logits appended to a list for logging, hidden states stored on self, models of earlier trials in a hyper-parameter search never deleted. torch.cuda.memory._record_memory_history() and a snapshot show which tensors grow.',
    },
    'eval-growth': {
      title: () => 'Memory grows from one evaluation batch to the next',
      action: () =>
        'Evaluation without torch.no_grad() keeps each batch’s graph, and predictions gathered on the GPU grow with the dataset: wrap evaluation in torch.no_grad() or inference_mode(), and move predictions to the CPU each batch (Trainer: eval_accumulation_steps).',
    },
    fragmentation: {
      title: (p) =>
        p.cached === null
          ? 'Reserved memory climbs while allocated memory stays flat: fragmentation'
          : `${p.cached} reserved by PyTorch but unusable: fragmentation`,
      action: (p) =>
        p.legacy
          ? 'Set PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128 so large cached blocks are not split (this PyTorch predates expandable_segments, added in 2.1; upgrading and setting expandable_segments:True is the better fix). Variable-length batches cause it: bucket by length or pad to a few fixed lengths.'
          : 'Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so freed memory can be reused for other sizes. Variable-length batches cause it: bucket by length or pad to a few fixed lengths.',
    },
    'stable-full': {
      title: () => 'The card looks full in nvidia-smi, and that is normal here',
      action: () =>
        'PyTorch’s caching allocator keeps freed blocks for reuse, so nvidia-smi shows what it reserved, not what tensors use, and memory is flat from step to step. Do not call torch.cuda.empty_cache() in the training loop: it only slows the run.',
    },
    'alloc-retries': {
      title: (p) => `The allocator had to flush its cache and retry ${p.count} times (num_alloc_retries)`,
      action: () =>
        'Each retry means cudaMalloc failed and PyTorch freed its whole cache to try again: the run is at the edge of the card and slower for it. An out-of-memory error is near: act on the findings above now.',
    },
  },
  labels: {
    message: 'message',
    requested: 'requested',
    'card-total': 'card total',
    'card-free': 'free on the card',
    'card-used': 'used on the card (total − free)',
    'torch-allocated': 'allocated by PyTorch',
    'reserved-unallocated': 'reserved by PyTorch, unallocated',
    'reserved-total': 'reserved by PyTorch in total',
    'this-process': 'this process (with non-PyTorch memory)',
    process: 'process',
    'processes-total': 'other processes in total',
    unaccounted: 'used by nothing listed',
    allowed: 'allowed (memory fraction)',
    'cuda-context': 'CUDA context (assumed)',
    'free-plus-cache': 'free + reserved-unallocated',
    log: 'log',
    phase: 'phase',
    'estimate-peak': 'estimate for this setup (nvidia-smi level)',
    'estimate-part': 'estimated at the peak',
    rank: 'rank',
    allocated: 'allocated',
    'peak-allocated': 'peak allocated',
    reserved: 'reserved',
    'growth-per-step': 'growth per step',
    'rising-steps': 'steps that grew',
    'projected-full': 'card full at about step',
    'inactive-split': 'inactive split blocks (cached, unusable)',
    retries: 'num_alloc_retries',
    'rank-peak': 'peak reserved',
  },
  remedies: {
    'micro-batch': (p) => `micro-batch ${p.from} → ${p.to} with more accumulation`,
    'gradient-checkpointing': (p) => `gradient checkpointing (${p.from} → ${p.to})`,
    'fused-loss': () => 'fused cross-entropy (Liger / Cut Cross-Entropy)',
    sdpa: () => 'sdpa attention instead of eager',
    'shorter-seq': (p) => `sequence length ${p.from} → ${p.to}`,
    'bf16-true': (p) => `16-bit weights (${p.from} → ${p.to})`,
    lora: () => 'LoRA on a frozen base',
    qlora: () => '4-bit base with LoRA (QLoRA)',
    zero3: (p) => `ZeRO-3 across ${p.to} GPUs`,
    'adamw-8bit': (p) => `8-bit optimizer (${p.from} → ${p.to})`,
    zero2: (p) => `ZeRO-2 across ${p.to} GPUs`,
    'offload-optimizer': () => 'optimizer states offloaded to CPU (ZeRO-Offload)',
  },
  groups: { environment: 'Environment', configuration: 'Configuration', code: 'Code' },
  severities: { error: 'error', warn: 'warning', info: 'note' },
  phases: {
    load: 'loading',
    forward: 'forward',
    backward: 'backward',
    'optimizer-step': 'optimizer step',
    evaluation: 'evaluation',
    'checkpoint-save': 'checkpoint save',
    'mid-run': 'mid-run',
    'multi-gpu-imbalance': 'multi-GPU imbalance',
    'other-process': 'another process',
    'host-memory': 'host memory',
    unknown: 'unknown',
  },
  bases: {
    message: 'from the message',
    traceback: 'from the traceback',
    processes: 'from the processes the allocator listed',
    log: 'from the log',
    numbers: 'from the allocator’s figures',
    none: 'nothing in the text says',
  },
  phaseReasons: {
    'fragmented-cache':
      'the cache held several times the request but could not use it, which builds up over many steps',
    'single-huge-request':
      'one request of a quarter of the card or more, larger than what was free: one giant activation',
    'nothing-cached': 'less than one 2 MiB segment cached: nothing had been freed yet',
    'card-full':
      'PyTorch tensors fill the card: the step reached its peak (saved activations plus the loss’s gradients)',
    'rank-contexts': 'small processes on the card: other ranks’ CUDA contexts',
    'foreign-process': 'another process holds memory on the card',
    'one-rank-failed': 'one rank failed while the others did not',
  },
  families: {
    'torch-v1': 'PyTorch caching allocator (1.x layout)',
    'torch-v2': 'PyTorch caching allocator (2.x layout)',
    'cuda-runtime': 'CUDA runtime',
    nccl: 'NCCL',
    xla: 'JAX/XLA',
    tensorflow: 'TensorFlow',
    bitsandbytes: 'bitsandbytes',
    'host-oom': 'host memory',
    'not-oom': 'not an out-of-memory error',
    none: 'no out-of-memory message',
  },
  words: {
    gpu: (index) => `GPU ${index}`,
    share: (part, percent) => `${part} (${percent} of the peak)`,
    estimateFits: (spare) => `fits with ${spare} to spare`,
    estimateShort: (short) => `${short} short`,
    remedyFits: (saved, spare) => `−${saved}, fits with ${spare} to spare`,
    remedyShort: (saved, short) => `−${saved}, still ${short} short`,
    remedySaves: (saved) => `−${saved}`,
    atStep: (bytes, step) => `${bytes} at step ${step}`,
    ofSteps: (rising, total) => `${rising} of ${total}`,
    stepOnRank: (rank, device) => `rank ${rank}, GPU ${device}`,
    noFindings: 'Nothing to report.',
    tryFlags: 'try',
  },
};

/** Catalogs by language code (issue 6 adds `zh`). */
export const CATALOGS: Readonly<Record<string, MessageCatalog>> = { en: EN };
