/**
 * Every word a finding shows, in one catalog keyed by code: English (EN) and Simplified Chinese (ZH),
 * two objects of the same `MessageCatalog` type, which TypeScript checks for completeness. The CLI
 * (`--lang`), the JSON and the dashboard take their words from here. Figures arrive already formatted;
 * only words live here.
 */
import type { OomFamily, OomPhase, PhaseBasis, PhaseReason } from '../oom/index.js';
import type { FindingCode, FindingGroup, Severity } from './finding.js';
import { EN_PHASE_REASONS, ZH_PHASE_REASONS } from './phase-words.js';

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
  /** The installed bitsandbytes, as the probe recorded it; null when only the scenario says it is old. */
  'old-bitsandbytes': { readonly version: string | null };
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
  | 'estimate-error'
  | 'kept-inputs'
  | 'rank'
  | 'allocated'
  | 'peak-allocated'
  | 'reserved'
  | 'growth-per-step'
  | 'rising-steps'
  | 'projected-full'
  | 'inactive-split'
  | 'retries'
  | 'rank-peak'
  | 'smi-used'
  | 'this-run';

/** Changes the estimator can price. */
export type RemedyCode =
  | 'bitsandbytes-upgrade'
  | 'micro-batch'
  | 'gradient-checkpointing'
  | 'fused-loss'
  | 'compile-loss'
  | 'fused-optimizer'
  | 'offload-activations'
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
    /**
     * An estimate against a measured peak, error = (estimate − measured) / measured (estimate-error.ts):
     * "estimate 12.0 % under the measured peak" (too low), "… over …" (too high), or a match.
     */
    readonly estimateError: (side: 'under' | 'over' | 'match', percent: string) => string;
    /** The error with both figures: "estimate 12.0 % under the measured peak (8.80 GiB estimated, 10.00 GiB measured)". */
    readonly estimateAgainst: (error: string, estimated: string, measured: string) => string;
    readonly remedyFits: (saved: string, spare: string) => string;
    readonly remedyShort: (saved: string, short: string) => string;
    readonly remedySaves: (saved: string) => string;
    readonly atStep: (bytes: string, step: string) => string;
    readonly ofSteps: (rising: string, total: string) => string;
    readonly stepOnRank: (rank: string, device: string) => string;
    readonly noFindings: string;
    readonly tryFlags: string;
    /** Two clauses of one value: "31.95 GiB / 23.65 GiB, 8.30 GiB short". */
    readonly clause: (a: string, b: string) => string;
    /** A label before its value: "requested: " / "请求：". */
    readonly labelled: (label: string) => string;
    /** The phase as evidence: "backward (from the traceback)". */
    readonly phaseValue: (phase: string, how: string) => string;
    /** How the phase was read, with the reason: "from the allocator’s figures: …". */
    readonly basisReason: (basis: string, reason: string) => string;
    /** A rank's figure: "9.00 GiB on rank 0". */
    readonly onRank: (rank: string, value: string) => string;
    /** A recorded run's heading: "run 3 "leak" · ok · 20 steps" (the status is the ledger's word). */
    readonly runHead: (id: string, name: string | null, status: string, steps: string) => string;
    /** A process as evidence: "pid 4242 python3: 2.50 GiB". */
    readonly process: (pid: string, name: string | null, bytes: string) => string;
    readonly shareOfCard: (bytes: string, percent: string) => string;
    readonly shareOfReserved: (bytes: string, percent: string) => string;
    /** "22.90 GiB of 23.65 GiB (97 %)". */
    readonly partOfWhole: (part: string, whole: string, percent: string) => string;
    readonly logLine: (line: string) => string;
    readonly moreThanExabyte: string;
    /** The parts of memory a phase points at. */
    readonly parts: Readonly<Record<'weights' | 'activations' | 'optimizer', string>>;
    /** PyTorch ≤ 1.4's "cached" figure. */
    readonly cachedLegacy: (bytes: string) => string;
    readonly reservedMinusAllocated: (cache: string, reserved: string, allocated: string) => string;
    readonly rank: (rank: string) => string;
    /** Memory no listed process accounts for, over nvidia-smi samples. */
    readonly unaccountedSamples: (bytes: string, percent: string, samples: string) => string;
    /** The renderer's heading: "phase: backward (from the traceback)". */
    readonly phaseHead: (phase: string, basis: string | null) => string;
    /** The renderer's one-line summary of the message's figures. */
    readonly figures: Readonly<
      Record<
        | 'requested'
        | 'total'
        | 'free'
        | 'allocated'
        | 'reservedUnallocated'
        | 'reservedTotal'
        | 'thisProcess',
        string
      >
    >;
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
    'old-bitsandbytes': {
      title: (p) =>
        `${p.version ? `bitsandbytes ${p.version}` : 'A bitsandbytes before 0.43.2'} keeps every 4-bit layer’s input`,
      action: () =>
        'pip install -U "bitsandbytes>=0.43.2": since 0.43.2 (PR #1270) a 4-bit layer keeps only its packed weight, so the same training needs less memory. Before it, each layer’s input stays on the autograd context until the graph is freed, and into the next forward when the loop still holds the last step’s outputs.',
    },
    'weights-at-load': {
      title: () => 'It failed while loading the model: the weights do not fit',
      action: () =>
        'Shrink the weights: 16-bit weights (bf16) instead of fp32, a 4-bit base with LoRA (QLoRA), or shard them across GPUs (ZeRO-3, FSDP). Under ZeRO-3, let DeepSpeed place the weights (from_pretrained with the DeepSpeed config active) rather than moving the whole model to each GPU first.',
    },
    activations: {
      title: (p) => `It failed in the ${p.phase} pass: the activations do not fit`,
      action: () =>
        'Activations grow with micro-batch × sequence length: a smaller micro-batch with more gradient accumulation (same effective batch), gradient checkpointing, a chunked or fused cross-entropy (the logits of a large vocabulary are the spike), activation offload to CPU memory, shorter sequences. Allocator settings do not help a card that is genuinely full.',
    },
    'optimizer-states': {
      title: () => 'It failed in the optimizer step: the optimizer states do not fit',
      action: () =>
        'AdamW creates its two states at the first step (8 bytes per trained parameter in fp32), and the foreach kernels add a state-sized temporary: an 8-bit optimizer (bitsandbytes AdamW8bit), ZeRO-1/2 or FSDP to shard the states, optimizer offload to CPU, or LoRA so only adapters have states. The fused kernel (fused=True; Hugging Face optim adamw_torch_fused) drops the temporary.',
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
          : 'Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so freed memory can be reused for other sizes (on an H200 it cut the reserve above allocated from 6.0 to 0.9 GiB, median of 12 training runs). Variable-length batches cause it: bucket by length or pad to a few fixed lengths.',
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
    'estimate-error': 'estimate against this run (torch allocated)',
    'kept-inputs': 'inputs the 4-bit layers keep (estimate)',
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
    'smi-used': 'nvidia-smi memory.used',
    'this-run': 'this run’s processes (nvidia-smi)',
  },
  remedies: {
    'bitsandbytes-upgrade': () =>
      'bitsandbytes 0.43.2 or later (pip install -U bitsandbytes): 4-bit layers stop keeping their inputs',
    'micro-batch': (p) => `micro-batch ${p.from} → ${p.to} with more accumulation`,
    'gradient-checkpointing': (p) => `gradient checkpointing (${p.from} → ${p.to})`,
    'fused-loss': () => 'fused cross-entropy (Liger / Cut Cross-Entropy)',
    'compile-loss': () => 'torch.compile over the chunked loss (no fp32 copy of the logits)',
    'fused-optimizer': () => "torch's fused optimizer kernel (fused=True; HF optim adamw_torch_fused)",
    'offload-activations': () => 'saved activations offloaded to CPU memory (activation offloading)',
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
    smi: 'from the nvidia-smi output',
    numbers: 'from the allocator’s figures',
    steps: 'from the recorded steps',
    none: 'nothing in the text says',
  },
  phaseReasons: EN_PHASE_REASONS,

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
    estimateError: (side, percent) =>
      side === 'match'
        ? 'estimate matches the measured peak'
        : `estimate ${percent} ${side} the measured peak`,
    estimateAgainst: (error, estimated, measured) =>
      `${error} (${estimated} estimated, ${measured} measured)`,
    remedyFits: (saved, spare) => `−${saved}, fits with ${spare} to spare`,
    remedyShort: (saved, short) => `−${saved}, still ${short} short`,
    remedySaves: (saved) => `−${saved}`,
    atStep: (bytes, step) => `${bytes} at step ${step}`,
    ofSteps: (rising, total) => `${rising} of ${total}`,
    stepOnRank: (rank, device) => `rank ${rank}, GPU ${device}`,
    noFindings: 'Nothing to report.',
    tryFlags: 'try',
    clause: (a, b) => `${a}, ${b}`,
    labelled: (label) => `${label}: `,
    phaseValue: (phase, how) => `${phase} (${how})`,
    basisReason: (basis, reason) => `${basis}: ${reason}`,
    onRank: (rank, value) => `${value} on rank ${rank}`,
    runHead: (id, name, status, steps) =>
      `run ${id}${name ? ` "${name}"` : ''} · ${status} · ${steps} step${steps === '1' ? '' : 's'}`,
    process: (pid, name, bytes) => `pid ${pid}${name ? ` ${name}` : ''}: ${bytes}`,
    shareOfCard: (bytes, percent) => `${bytes} (${percent} of the card)`,
    shareOfReserved: (bytes, percent) => `${bytes} (${percent} of reserved)`,
    partOfWhole: (part, whole, percent) => `${part} of ${whole} (${percent})`,
    logLine: (line) => `line ${line}`,
    moreThanExabyte: 'more than 1 EB',
    parts: { weights: 'weights', activations: 'activations', optimizer: 'optimizer' },
    cachedLegacy: (bytes) => `${bytes} ("cached")`,
    reservedMinusAllocated: (cache, reserved, allocated) =>
      `${cache} (${reserved} reserved − ${allocated} allocated)`,
    rank: (rank) => `rank ${rank}`,
    unaccountedSamples: (bytes, percent, samples) =>
      `${bytes} (${percent} of the card; the median of ${samples} nvidia-smi samples)`,
    phaseHead: (phase, basis) => `phase: ${phase}${basis ? ` (${basis})` : ''}`,
    figures: {
      requested: 'requested',
      total: 'total',
      free: 'free',
      allocated: 'allocated by PyTorch',
      reservedUnallocated: 'reserved-unallocated',
      reservedTotal: 'reserved in total',
      thisProcess: 'this process',
    },
  },
};

/**
 * 简体中文. Technical terms follow common usage in Chinese ML writing (显存, 激活值, 梯度检查点,
 * 优化器状态, 碎片化, 卸载 for offload); names of APIs, flags and environment variables stay as written.
 */
export const ZH: MessageCatalog = {
  lang: 'zh',
  findings: {
    'no-oom-message': {
      title: () => '这段文本中没有显存不足（OOM）的报错信息',
      action: () =>
        '下面的结论只来自 traceback 和日志。请粘贴完整的报错（从 "Traceback" 一直到报错信息结尾），才能得到具体数字。',
    },
    'not-an-oom': {
      title: (p) => `不是显存不足错误：${p.error}`,
      action: (p) => {
        switch (p.kind) {
          case 'bitsandbytes':
            return 'bitsandbytes 在 C 代码中报告的错误，格式与它的 "out of memory" 报错相同。"operation not supported" 表示此环境不支持 CUDA 托管内存（WSL、部分驱动和容器）：请改用非分页优化器（用 AdamW8bit 代替 PagedAdamW）。';
          case 'cuda':
            return '这是另一种 CUDA 错误，与显存无关：设置 CUDA_LAUNCH_BLOCKING=1 重新运行，找到出错的 kernel（非法内存访问或 device-side assert 通常由索引越界引起）。';
          case 'resource':
            return '这里的 RESOURCE_EXHAUSTED 与显存无关（gRPC 的消息大小和配额限制也用这个词）：请调整它指出的那项限制。';
          case 'signal':
            return '该 worker 是被 OOM killer 以外的信号终止的：请查看这个 worker 打印的第一条错误。';
          case 'other':
            return '请修复它指出的错误；调整显存相关的设置不会改变它。';
        }
      },
    },
    'other-processes': {
      title: (p) => `GPU ${p.gpu} 上有 ${p.count} 个其他进程占用了 ${p.bytes}`,
      action: () =>
        '先释放这张卡，再调整训练配置：用 `nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv` 列出这些进程，停掉不该在这里的进程，或换一张 GPU 运行（CUDA_VISIBLE_DEVICES）。',
    },
    'own-process-in-container': {
      title: (p) => `“Process ${p.pid}”很可能就是本进程（从容器内看到的）`,
      action: (p) =>
        `NVML 报告的是宿主机上的 PID，因此在容器的 PID 命名空间中，PyTorch 会把自身进程显示为 “Process N”，而不是 “this process”（pytorch #152135）。它占用的 ${p.bytes} 正好对应这张卡的已用显存：没有别的程序需要排查，请看下面的数字。`,
    },
    'leftover-process': {
      title: () => '另一个进程占用了这张 GPU 的显存：之前运行残留的进程，或另一个作业',
      action: () =>
        '用 `nvidia-smi --query-compute-apps=pid,used_memory --format=csv` 找到它；如果调度器会把两个作业放到同一张 GPU 上，需要申请独占 GPU。如果 `kill` 提示 “no such process”，说明它在另一个 PID 命名空间中：在宿主机上运行 `fuser -v /dev/nvidia*` 可以看到它。被暂停的作业（ps 中状态为 T）在被杀掉之前一直占着显存；被杀掉的作业留下的 DataLoader 子进程也可能继续占用。',
    },
    'memory-outside-process': {
      title: (p) => `卡上有 ${p.bytes} 已被占用，但列出的进程都无法解释`,
      action: () =>
        '这部分显存被本进程以外的东西占用：同一张卡上的另一个容器或虚拟机、显示服务，或 NVML 无法列出的进程（Windows WDDM、受限的容器）。请对比宿主机上的 nvidia-smi 与本作业实际使用的显存。',
    },
    'free-exceeds-request': {
      title: (p) => `显卡报告的空闲显存（${p.free}）大于请求的 ${p.requested}`,
      action: () =>
        '分配失败的原因不是总空闲显存不够：显存被其他分配切碎、Windows WDDM，或在 cudaMalloc 失败与生成报告之间显存发生了变化。这条报错本身并不矛盾。',
    },
    'numberless-oom': {
      title: (p) =>
        p.family === 'nccl'
          ? 'NCCL 显存不足（报错中没有具体数字）'
          : p.family === 'bitsandbytes'
            ? 'bitsandbytes 显存不足（报错中没有具体数字）'
            : 'PyTorch 分配器之外的 CUDA 显存不足（报错中没有具体数字）',
      action: (p) =>
        p.family === 'nccl'
          ? 'NCCL 为集合通信分配缓冲区时，显卡已经满了。设置 NCCL_DEBUG=INFO 重新运行，查看失败的那次分配；为 NCCL 留出空间（每个进程约 0.4 GiB）或调小 NCCL_BUFFSIZE，并确认每个 rank 使用各自的 GPU。'
          : p.family === 'bitsandbytes'
            ? 'bitsandbytes 在其 C 代码中无法分配显存（分页优化器状态、量化缓冲区）：显卡已满。请按下面的配置建议腾出空间。'
            : '先检查系统层面：卡上的其他进程（nvidia-smi）、在 GPU 0 上创建 CUDA 上下文的各个 rank（在 init_process_group 之前调用 torch.cuda.set_device(local_rank)）；然后设置 CUDA_LAUNCH_BLOCKING=1 重新运行，让错误在发生的位置抛出，这样通常会带上分配器的具体数字。',
    },
    'framework-preallocation': {
      title: (p) =>
        p.framework === 'xla' ? 'XLA 预先占用了显卡的大部分显存' : 'TensorFlow 默认占用整张显卡',
      action: (p) =>
        p.framework === 'xla'
          ? 'JAX/XLA 启动时会预留显卡 75 % 的显存（XLA_PYTHON_CLIENT_MEM_FRACTION），因此 nvidia-smi 中的 “used” 无法反映真实需求。设置 XLA_PYTHON_CLIENT_PREALLOCATE=false 查看真实用量；如果本进程独占这张卡，可以调高 XLA_PYTHON_CLIENT_MEM_FRACTION；BufferAssignment 的输出列出了最大的缓冲区。'
          : '调用 tf.config.experimental.set_memory_growth(gpu, True)，这样显卡可以共享，nvidia-smi 也会显示真实用量；报错后面的分配器摘要列出了占用显存的内容。',
    },
    'request-exceeds-card': {
      title: (p) =>
        p.unbounded
          ? '单次请求超过 1 EB：这是损坏的大小，不是显存压力'
          : `在 ${p.total} 的显卡上单次请求 ${p.requested}：这是张量形状的错误，不是显存压力`,
      action: (p) =>
        p.unbounded
          ? '任何设置都解决不了：这个大小是由错误的数据算出来的，通常发生在更早的一次失败之后（集合通信超时、某个 rank 已退出、广播的数据损坏）。请在日志上方找到第一条错误并修复它。'
          : '没有任何显卡能放下这个张量。请找到它：远大于预期的输入（整个数据集放进一个 batch、全分辨率图像、没有设置 max_length 的序列）、错误的 reshape 或广播、大词表在大量 token 上的 fp32 logits。请限制输入的大小。',
    },
    'allocated-exceeds-card': {
      title: (p) => `PyTorch 报告在 ${p.total} 的显卡上已分配 ${p.allocated}`,
      action: () =>
        '只有在 Windows（WDDM）允许显卡溢出到系统内存（“共享 GPU 内存”）时才会出现：这些数字不可靠，而且运行时已经在换页。请按显卡已满处理。',
    },
    'host-memory': {
      title: () => '主机内存（CPU RAM）不足，不是显存不足',
      action: (p) => {
        switch (p.kind) {
          case 'dataloader':
            return '内核的 OOM killer 终止了 DataLoader 的 worker：减少 num_workers，不要把数据集复制到每个 worker 中（使用内存映射），并检查容器的内存上限。';
          case 'shared-memory':
            return 'DataLoader 的 worker 耗尽了共享内存（/dev/shm）：给容器分配更多共享内存（`docker run --shm-size=16g`；在 Kubernetes 上使用 medium: Memory 的 emptyDir），或减少 worker 的数量。';
          case 'loading':
            return '加载检查点占满了主机内存：用 low_cpu_mem_usage=True 或 device_map 加载，让分片直接进入 GPU；优先使用 safetensors（内存映射）；或者增加内存或 swap。';
          case 'kill':
            return '内核终止了该进程（OOM killer；退出码 137 或 -9）：查看 `dmesg | grep -i oom` 和容器的内存上限，并排查主机端的副本（放在内存中的数据集、CPU 卸载、锁页缓冲区）。';
        }
      },
    },
    'second-model-copy': {
      title: () => '同一张卡上有第二份模型副本',
      action: () =>
        '直接评估正在训练的模型（trainer.evaluate，或在 torch.no_grad() 下调用 model.eval()），不要再加载一次。如果确实需要第二个模型（参考模型、EMA、教师模型），把它放到另一张 GPU 上、用 device_map="auto" 分散，或以 8 位或 4 位加载。',
    },
    'old-bitsandbytes': {
      title: (p) =>
        `${p.version ? `bitsandbytes ${p.version}` : '0.43.2 之前的 bitsandbytes'} 让每个 4 位层都保留其输入`,
      action: () =>
        'pip install -U "bitsandbytes>=0.43.2"：从 0.43.2（PR #1270）起，4 位层只保留打包后的权重，同样的训练占用更少显存。在此之前，每层的输入挂在 autograd 上下文上，直到计算图被释放；如果训练循环仍持有上一步的输出，还会一直保留到下一次前向传播。',
    },
    'weights-at-load': {
      title: () => '在加载模型时失败：权重放不下',
      action: () =>
        '缩小权重：用 16 位权重（bf16）代替 fp32，使用 4 位基座加 LoRA（QLoRA），或把权重分片到多张 GPU 上（ZeRO-3、FSDP）。使用 ZeRO-3 时，让 DeepSpeed 负责放置权重（在 DeepSpeed 配置生效的情况下调用 from_pretrained），不要先把整个模型搬到每张 GPU 上。',
    },
    activations: {
      title: (p) => `在${p.phase === 'forward' ? '前向' : '反向'}传播中失败：激活值放不下`,
      action: () =>
        '激活值随 micro-batch × 序列长度增长：减小 micro-batch 并增加梯度累积步数（有效 batch 不变）、开启梯度检查点、使用分块或融合的交叉熵（大词表的 logits 是峰值所在）、把激活卸载到 CPU 内存、缩短序列。对真正已满的显卡，调整分配器设置没有帮助。',
    },
    'optimizer-states': {
      title: () => '在优化器步骤中失败：优化器状态放不下',
      action: () =>
        'AdamW 在第一步创建两个状态（每个训练参数 8 字节，fp32），foreach kernel 还会额外产生一个与状态同样大的临时张量：使用 8 位优化器（bitsandbytes AdamW8bit）、用 ZeRO-1/2 或 FSDP 对状态分片、把优化器状态卸载到 CPU，或使用 LoRA 只让适配器拥有状态。使用融合内核（fused=True；Hugging Face 的 optim adamw_torch_fused）可以去掉这个临时张量。',
    },
    'rank-imbalance': {
      title: () => '某一张 GPU 占用的显存比其他卡多',
      action: () =>
        'rank 0 经常承担其他 rank 的 CUDA 上下文（在 init_process_group 之前调用 torch.cuda.set_device(local_rank)，并在各 rank 自己的设备上创建张量）；DataParallel 会把所有输出汇集到 GPU 0（请改用 DistributedDataParallel）；device_map="auto" 会先填满 GPU 0（传入 max_memory 为激活值留出空间）。',
    },
    'evaluation-memory': {
      title: () => '在评估阶段失败',
      action: () =>
        '评估需要的显存应当比训练少：在 torch.no_grad() 或 torch.inference_mode() 下运行（仅调用 model.eval() 仍会保留计算图），边评估边把预测结果移到 CPU（Trainer：eval_accumulation_steps，或用 preprocess_logits_for_metrics 只保留 argmax），减小评估的 batch size，并按最长的输出为 generate() 的 KV cache 预留显存。',
    },
    'checkpoint-save': {
      title: () => '在保存检查点时失败',
      action: () =>
        '汇总完整的 state dict 会把整个模型放到一张 GPU 上：FSDP 请使用 FullStateDictConfig(offload_to_cpu=True, rank0_only=True) 或 SHARDED_STATE_DICT；DeepSpeed ZeRO-3 请保存分片的检查点并离线转换（zero_to_fp32.py），不要使用 stage3_gather_16bit_weights_on_model_save。',
    },
    'mid-run': {
      title: () => '运行一段时间之后才失败',
      action: () =>
        '这个配置已经正常跑了很多步，说明有东西变了：某个更长的 batch（强制 max_length；按长度分桶）、显存逐步增长（泄漏：loss 或输出连同计算图一起被保留——请累加 loss.item()），或碎片化（PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True）。逐步的显存记录可以区分这几种情况。',
    },
    'phase-unknown': {
      title: () => '文本中没有说明运行在哪个阶段失败',
      action: () =>
        '请粘贴完整的 traceback（其中的调用栈会显示是加载、前向、反向还是优化器步骤），并提供训练配置（--scenario 或配置参数），以查看每部分显存的需求。',
    },
    leak: {
      title: (p) => `已分配显存逐步增长（${p.where}）`,
      action: () =>
        '有引用跨步骤一直存活：total_loss += loss（请用 loss.item() 或 loss.detach()）、为记录日志把输出或 logits 追加到列表、把隐藏状态保存在 self 上、超参数搜索中之前试验的模型没有删除。torch.cuda.memory._record_memory_history() 加上一次快照可以看出是哪些张量在增长。',
    },
    'eval-growth': {
      title: () => '显存在评估的一个 batch 到下一个 batch 之间持续增长',
      action: () =>
        '没有 torch.no_grad() 的评估会保留每个 batch 的计算图，而汇集在 GPU 上的预测结果会随数据集增大：把评估放在 torch.no_grad() 或 inference_mode() 中，并在每个 batch 之后把预测移到 CPU（Trainer：eval_accumulation_steps）。',
    },
    fragmentation: {
      title: (p) =>
        p.cached === null
          ? '预留显存不断攀升而已分配显存保持不变：碎片化'
          : `${p.cached} 被 PyTorch 预留却无法使用：碎片化`,
      action: (p) =>
        p.legacy
          ? '设置 PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128，避免大的缓存块被切分（该 PyTorch 版本早于 2.1 引入的 expandable_segments；升级并设置 expandable_segments:True 是更好的办法）。变长的 batch 会造成碎片化：按长度分桶，或填充到少数几个固定长度。'
          : '设置 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True，让释放的显存可以被其他大小的分配复用（在 H200 上，12 次训练的中位数：已分配之外的预留从 6.0 GiB 降到 0.9 GiB）。变长的 batch 会造成碎片化：按长度分桶，或填充到少数几个固定长度。',
    },
    'stable-full': {
      title: () => '显卡在 nvidia-smi 中看起来已满，但这里属于正常现象',
      action: () =>
        'PyTorch 的缓存分配器会保留已释放的块以便复用，因此 nvidia-smi 显示的是它预留的显存，而不是张量实际使用的显存，而且每一步的显存都保持平稳。不要在训练循环中调用 torch.cuda.empty_cache()：它只会拖慢训练。',
    },
    'alloc-retries': {
      title: (p) => `分配器不得不清空缓存并重试了 ${p.count} 次（num_alloc_retries）`,
      action: () =>
        '每次重试都意味着 cudaMalloc 失败，PyTorch 释放了全部缓存后再次尝试：运行已处于显卡容量的边缘，并因此变慢。显存不足的报错即将出现：请现在就按上面的建议处理。',
    },
  },
  labels: {
    message: '报错信息',
    requested: '请求',
    'card-total': '显卡总量',
    'card-free': '显卡空闲',
    'card-used': '显卡已用（总量 − 空闲）',
    'torch-allocated': 'PyTorch 已分配',
    'reserved-unallocated': 'PyTorch 已预留未分配',
    'reserved-total': 'PyTorch 预留总量',
    'this-process': '本进程（含非 PyTorch 显存）',
    process: '进程',
    'processes-total': '其他进程合计',
    unaccounted: '列出的进程之外的占用',
    allowed: '允许上限（显存比例）',
    'cuda-context': 'CUDA 上下文（假定值）',
    'free-plus-cache': '空闲 + 已预留未分配',
    log: '日志',
    phase: '阶段',
    'estimate-peak': '该配置的估算（nvidia-smi 口径）',
    'estimate-part': '峰值时的估算',
    'estimate-error': '估算与本次运行的对比（torch 已分配）',
    'kept-inputs': '4 位层保留的输入（估算）',
    rank: 'rank',
    allocated: '已分配',
    'peak-allocated': '已分配峰值',
    reserved: '已预留',
    'growth-per-step': '每步增长',
    'rising-steps': '增长的步数',
    'projected-full': '预计占满显卡的步数（约）',
    'inactive-split': '非活动的切分块（已缓存、无法使用）',
    retries: 'num_alloc_retries',
    'rank-peak': '预留峰值',
    'smi-used': 'nvidia-smi memory.used',
    'this-run': '本次运行的进程（nvidia-smi）',
  },
  remedies: {
    'bitsandbytes-upgrade': () =>
      '升级到 bitsandbytes 0.43.2 或更高版本（pip install -U bitsandbytes）：4 位层不再保留输入',
    'micro-batch': (p) => `micro-batch ${p.from} → ${p.to}，并增加梯度累积`,
    'gradient-checkpointing': (p) => `梯度检查点（${p.from} → ${p.to}）`,
    'fused-loss': () => '融合交叉熵（Liger / Cut Cross-Entropy）',
    'compile-loss': () => '用 torch.compile 编译分块损失（不再保留 logits 的 fp32 副本）',
    'fused-optimizer': () => '使用 torch 的融合优化器内核（fused=True；HF optim adamw_torch_fused）',
    'offload-activations': () => '把保存的激活卸载到 CPU 内存（激活卸载）',
    sdpa: () => '用 sdpa 注意力代替 eager',
    'shorter-seq': (p) => `序列长度 ${p.from} → ${p.to}`,
    'bf16-true': (p) => `16 位权重（${p.from} → ${p.to}）`,
    lora: () => '在冻结的基座上训练 LoRA',
    qlora: () => '4 位基座加 LoRA（QLoRA）',
    zero3: (p) => `在 ${p.to} 张 GPU 上使用 ZeRO-3`,
    'adamw-8bit': (p) => `8 位优化器（${p.from} → ${p.to}）`,
    zero2: (p) => `在 ${p.to} 张 GPU 上使用 ZeRO-2`,
    'offload-optimizer': () => '把优化器状态卸载到 CPU（ZeRO-Offload）',
  },
  groups: { environment: '环境', configuration: '配置', code: '代码' },
  severities: { error: '错误', warn: '警告', info: '提示' },
  phases: {
    load: '加载',
    forward: '前向传播',
    backward: '反向传播',
    'optimizer-step': '优化器步骤',
    evaluation: '评估',
    'checkpoint-save': '保存检查点',
    'mid-run': '运行中途',
    'multi-gpu-imbalance': '多卡显存不均衡',
    'other-process': '其他进程',
    'host-memory': '主机内存',
    unknown: '未知',
  },
  bases: {
    message: '根据报错信息',
    traceback: '根据 traceback',
    processes: '根据分配器列出的进程',
    log: '根据日志',
    smi: '根据 nvidia-smi 的输出',
    numbers: '根据分配器的数字',
    steps: '根据记录的训练步',
    none: '文本中没有说明',
  },
  phaseReasons: ZH_PHASE_REASONS,

  families: {
    'torch-v1': 'PyTorch 缓存分配器（1.x 格式）',
    'torch-v2': 'PyTorch 缓存分配器（2.x 格式）',
    'cuda-runtime': 'CUDA 运行时',
    nccl: 'NCCL',
    xla: 'JAX/XLA',
    tensorflow: 'TensorFlow',
    bitsandbytes: 'bitsandbytes',
    'host-oom': '主机内存',
    'not-oom': '不是显存不足错误',
    none: '没有显存不足的报错信息',
  },
  words: {
    gpu: (index) => `GPU ${index}`,
    share: (part, percent) => `${part}（占峰值的 ${percent}）`,
    estimateFits: (spare) => `放得下，还剩 ${spare}`,
    estimateShort: (short) => `还差 ${short}`,
    estimateError: (side, percent) =>
      side === 'match' ? '估算与实测峰值一致' : `估算比实测峰值${side === 'under' ? '低' : '高'} ${percent}`,
    estimateAgainst: (error, estimated, measured) => `${error}（估算 ${estimated}，实测 ${measured}）`,
    remedyFits: (saved, spare) => `−${saved}，放得下，还剩 ${spare}`,
    remedyShort: (saved, short) => `−${saved}，仍差 ${short}`,
    remedySaves: (saved) => `−${saved}`,
    atStep: (bytes, step) => `第 ${step} 步 ${bytes}`,
    ofSteps: (rising, total) => `${total} 步中的 ${rising} 步`,
    stepOnRank: (rank, device) => `rank ${rank}，GPU ${device}`,
    noFindings: '没有需要报告的问题。',
    tryFlags: '试试',
    clause: (a, b) => `${a}，${b}`,
    labelled: (label) => `${label}：`,
    phaseValue: (phase, how) => `${phase}（${how}）`,
    basisReason: (basis, reason) => `${basis}，${reason}`,
    onRank: (rank, value) => `rank ${rank} 为 ${value}`,
    runHead: (id, name, status, steps) => `运行 ${id}${name ? `“${name}”` : ''} · ${status} · ${steps} 步`,
    process: (pid, name, bytes) => `pid ${pid}${name ? ` ${name}` : ''}：${bytes}`,
    shareOfCard: (bytes, percent) => `${bytes}（占显卡的 ${percent}）`,
    shareOfReserved: (bytes, percent) => `${bytes}（占已预留的 ${percent}）`,
    partOfWhole: (part, whole, percent) => `${part} / ${whole}（${percent}）`,
    logLine: (line) => `第 ${line} 行`,
    moreThanExabyte: '超过 1 EB',
    parts: { weights: '权重', activations: '激活值', optimizer: '优化器状态' },
    cachedLegacy: (bytes) => `${bytes}（“cached”）`,
    reservedMinusAllocated: (cache, reserved, allocated) =>
      `${cache}（已预留 ${reserved} − 已分配 ${allocated}）`,
    rank: (rank) => `rank ${rank}`,
    unaccountedSamples: (bytes, percent, samples) =>
      `${bytes}（占显卡的 ${percent}；${samples} 次 nvidia-smi 采样的中位数）`,
    phaseHead: (phase, basis) => `阶段：${phase}${basis ? `（${basis}）` : ''}`,
    figures: {
      requested: '请求',
      total: '总量',
      free: '空闲',
      allocated: 'PyTorch 已分配',
      reservedUnallocated: '已预留未分配',
      reservedTotal: '预留总量',
      thisProcess: '本进程',
    },
  },
};

/** A language the catalogs speak. */
export type Lang = 'en' | 'zh';

/** Catalogs by language code. */
export const CATALOGS: Readonly<Record<string, MessageCatalog>> = { en: EN, zh: ZH } satisfies Record<
  Lang,
  MessageCatalog
>;

/** The catalog of a language code ("zh", "zh-CN", "en_US.UTF-8"); English for anything else. */
export function catalogFor(lang: string | null | undefined): MessageCatalog {
  return /^zh/i.test(lang ?? '') ? ZH : EN;
}
