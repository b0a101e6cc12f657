/**
 * What to do about each diagnosis finding (src/core/diagnose/finding.ts), in English and Simplified
 * Chinese; findings.ts holds the titles and the params' examples.
 */
import type { FindingParams } from '../core/diagnose/finding.js';
import { defineDomain, type Words } from './catalog.js';
import { FINDING_EXAMPLES } from './findings.js';

const EN: Words<FindingParams> = {
  'no-oom-message': () =>
    'The findings below come from the traceback and the log alone. Paste the whole error, from "Traceback" to the end of the message, to get the figures.',
  'not-an-oom': (p) => {
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
  'other-processes': () =>
    'Free the card before changing the training setup: list them with `nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv`, stop the ones that should not be there, or run on another GPU (CUDA_VISIBLE_DEVICES).',
  'own-process-in-container': (p, f) =>
    `NVML reports host PIDs, so inside a container's PID namespace PyTorch prints its own process as "Process N" rather than "this process" (pytorch #152135). Its ${f.bytes(p.bytes)} account for the card's used memory: there is no other program to hunt for; read the figures below.`,
  'leftover-process': () =>
    'Find it with `nvidia-smi --query-compute-apps=pid,used_memory --format=csv`; a scheduler that puts two jobs on one GPU needs exclusive GPU allocation. If `kill` says "no such process", it lives in another PID namespace: `fuser -v /dev/nvidia*` on the host shows it. A stopped job (state T in ps) keeps its memory until it is killed; data-loader children of a killed job can keep it too.',
  'memory-outside-process': () =>
    'Something outside this process holds it: another container or VM on the same card, the display server, or a process NVML cannot list (Windows WDDM, restricted containers). Compare nvidia-smi on the host with what this job uses.',
  'free-exceeds-request': () =>
    'The allocation failed for a reason other than the total free memory: device memory split up by other allocations, Windows WDDM, or memory that changed between the failed cudaMalloc and the report. The message does not contradict itself.',
  'numberless-oom': (p) =>
    p.family === 'nccl'
      ? 'The card was already full when NCCL allocated its buffers for a collective. Rerun with NCCL_DEBUG=INFO to see the failing allocation; leave room for NCCL (about 0.4 GiB per process) or lower NCCL_BUFFSIZE, and check that every rank uses its own GPU.'
      : p.family === 'bitsandbytes'
        ? 'bitsandbytes could not allocate in its C code (paged optimizer states, quantization buffers): the card is full. Use the setup findings below to make room.'
        : 'Check the system layer first: other processes on the card (nvidia-smi), ranks creating CUDA contexts on GPU 0 (call torch.cuda.set_device(local_rank) before init_process_group), then rerun with CUDA_LAUNCH_BLOCKING=1 so the error is raised where it happens, usually with the allocator’s figures.',
  'framework-preallocation': (p) =>
    p.framework === 'xla'
      ? 'JAX/XLA reserves 75 % of the card at start (XLA_PYTHON_CLIENT_MEM_FRACTION), so nvidia-smi’s "used" says nothing about need. Set XLA_PYTHON_CLIENT_PREALLOCATE=false to see real use, or raise XLA_PYTHON_CLIENT_MEM_FRACTION when this process is alone on the card; the BufferAssignment dump lists the largest buffers.'
      : 'Call tf.config.experimental.set_memory_growth(gpu, True) so the card can be shared and nvidia-smi shows real use; the allocator summary that follows the message lists what held memory.',
  'request-exceeds-card': (p) =>
    p.unbounded
      ? 'No setting fixes this: the size was computed from garbage, usually after an earlier failure (a collective timeout, a rank that died, a corrupted broadcast). Look above in the log for the first error and fix that.'
      : 'No card holds this tensor. Find it: an input far larger than intended (a whole dataset in one batch, a full-resolution image, a sequence without max_length), a wrong reshape or broadcast, fp32 logits of a large vocabulary over many tokens. Cap input sizes.',
  'allocated-exceeds-card': () =>
    'Only possible when Windows (WDDM) lets the card spill into system memory ("shared GPU memory"): the figures are unreliable and the run was already swapping. Treat the card as full.',
  'host-memory': (p) => {
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
  'second-model-copy': () =>
    'Evaluate the model you train (trainer.evaluate, or model.eval() under torch.no_grad()) instead of loading it again. When a second model is needed (reference, EMA, teacher), put it on another GPU, spread it with device_map="auto", or load it in 8 or 4 bits.',
  'old-bitsandbytes': () =>
    'pip install -U "bitsandbytes>=0.43.2": since 0.43.2 (PR #1270) a 4-bit layer keeps only its packed weight, so the same training needs less memory. Before it, each layer’s input stays on the autograd context until the graph is freed, and into the next forward when the loop still holds the last step’s outputs.',
  'weights-at-load': () =>
    'Shrink the weights: 16-bit weights (bf16) instead of fp32, a 4-bit base with LoRA (QLoRA), or shard them across GPUs (ZeRO-3, FSDP). Under ZeRO-3, let DeepSpeed place the weights (from_pretrained with the DeepSpeed config active) rather than moving the whole model to each GPU first.',
  activations: () =>
    'Activations grow with micro-batch × sequence length: a smaller micro-batch with more gradient accumulation (same effective batch), gradient checkpointing, a chunked or fused cross-entropy (the logits of a large vocabulary are the spike), activation offload to CPU memory, shorter sequences. Allocator settings do not help a card that is genuinely full.',
  'optimizer-states': () =>
    'AdamW creates its two states at the first step (8 bytes per trained parameter in fp32), and the foreach kernels add a state-sized temporary: an 8-bit optimizer (bitsandbytes AdamW8bit), ZeRO-1/2 or FSDP to shard the states, optimizer offload to CPU, or LoRA so only adapters have states. The fused kernel (fused=True; Hugging Face optim adamw_torch_fused) drops the temporary.',
  'rank-imbalance': (p) =>
    (p.reason === null
      ? ''
      : (
          {
            'uneven-shards':
              'Give every rank the same share: check what is placed by rank (a rank-dependent device_map, a layer kept whole on one rank, an uneven pipeline or tensor-parallel split, parameters left out of FSDP/ZeRO wrapping) and shard it evenly. ',
            'eval-on-rank':
              'Run evaluation on every rank with a distributed sampler (Trainer does), or, when it must stay on one rank, under torch.no_grad() with a smaller evaluation batch and its outputs moved to the CPU. ',
            'length-split':
              'Balance the tokens per rank, not the samples: group by length across ranks (Trainer: group_by_length; a length-grouped distributed sampler), pack sequences to a fixed length, or cap max_length; the longest batch sets every rank’s budget. ',
            'extra-contexts':
              'Call torch.cuda.set_device(local_rank) first thing in every rank, before init_process_group, any .cuda() or torch.cuda call, and load checkpoints with map_location pointing at the rank’s own device. ',
          } as const
        )[p.reason]) +
    'Rank 0 often carries the CUDA contexts of the other ranks (call torch.cuda.set_device(local_rank) before init_process_group and create tensors on the rank’s own device), DataParallel gathers every output on GPU 0 (use DistributedDataParallel), and device_map="auto" fills GPU 0 first (pass max_memory to leave room for activations).',
  'evaluation-memory': () =>
    'Evaluation should need less than training: run it under torch.no_grad() or torch.inference_mode() (model.eval() alone keeps the graph), move predictions to the CPU as you go (Trainer: eval_accumulation_steps, or preprocess_logits_for_metrics to keep only the argmax), lower the evaluation batch size, and budget generate()’s KV cache for the longest output.',
  'checkpoint-save': () =>
    'Gathering a full state dict puts the whole model on one GPU: with FSDP use FullStateDictConfig(offload_to_cpu=True, rank0_only=True) or SHARDED_STATE_DICT; with DeepSpeed ZeRO-3 save the sharded checkpoint and convert it offline (zero_to_fp32.py) instead of stage3_gather_16bit_weights_on_model_save.',
  'mid-run': () =>
    'The setup fit for many steps, so something changed: a longer batch (enforce max_length; bucket by length), memory growing step after step (a leak: a loss or outputs kept with their graph — accumulate loss.item()), or fragmentation (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True). A step-by-step memory record tells these apart.',
  'phase-unknown': () =>
    'Paste the whole traceback (its frames show load, forward, backward or the optimizer step), and give the setup (--scenario or the scenario flags) to see what each part of memory needs.',
  leak: () =>
    'A reference is kept alive across steps: total_loss += loss (use loss.item() or loss.detach()), outputs or logits appended to a list for logging, hidden states stored on self, models of earlier trials in a hyper-parameter search never deleted. torch.cuda.memory._record_memory_history() and a snapshot show which tensors grow.',
  'eval-growth': () =>
    'Evaluation without torch.no_grad() keeps each batch’s graph, and predictions gathered on the GPU grow with the dataset: wrap evaluation in torch.no_grad() or inference_mode(), and move predictions to the CPU each batch (Trainer: eval_accumulation_steps).',
  fragmentation: (p) =>
    p.legacy
      ? 'Set PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128 so large cached blocks are not split (this PyTorch predates expandable_segments, added in 2.1; upgrading and setting expandable_segments:True is the better fix). Variable-length batches cause it: bucket by length or pad to a few fixed lengths.'
      : 'Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so freed memory can be reused for other sizes (on an H200 it cut the reserve above allocated from 6.0 to 0.9 GiB, median of 12 training runs). Variable-length batches cause it: bucket by length or pad to a few fixed lengths.',
  'stable-full': () =>
    'PyTorch’s caching allocator keeps freed blocks for reuse, so nvidia-smi shows what it reserved, not what tensors use, and memory is flat from step to step. Do not call torch.cuda.empty_cache() in the training loop: it only slows the run.',
  'alloc-retries': () =>
    'Each retry means cudaMalloc failed and PyTorch freed its whole cache to try again: the run is at the edge of the card and slower for it. An out-of-memory error is near: act on the findings above now.',
};

const ZH: Words<FindingParams> = {
  'no-oom-message': () =>
    '下面的结论只来自 traceback 和日志。请粘贴完整的报错（从 "Traceback" 一直到报错信息结尾），才能得到具体数字。',
  'not-an-oom': (p) => {
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
  'other-processes': () =>
    '先释放这张卡，再调整训练配置：用 `nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv` 列出这些进程，停掉不该在这里的进程，或换一张 GPU 运行（CUDA_VISIBLE_DEVICES）。',
  'own-process-in-container': (p, f) =>
    `NVML 报告的是宿主机上的 PID，因此在容器的 PID 命名空间中，PyTorch 会把自身进程显示为 “Process N”，而不是 “this process”（pytorch #152135）。它占用的 ${f.bytes(p.bytes)} 正好对应这张卡的已用显存：没有别的程序需要排查，请看下面的数字。`,
  'leftover-process': () =>
    '用 `nvidia-smi --query-compute-apps=pid,used_memory --format=csv` 找到它；如果调度器会把两个作业放到同一张 GPU 上，需要申请独占 GPU。如果 `kill` 提示 “no such process”，说明它在另一个 PID 命名空间中：在宿主机上运行 `fuser -v /dev/nvidia*` 可以看到它。被暂停的作业（ps 中状态为 T）在被杀掉之前一直占着显存；被杀掉的作业留下的 DataLoader 子进程也可能继续占用。',
  'memory-outside-process': () =>
    '这部分显存被本进程以外的东西占用：同一张卡上的另一个容器或虚拟机、显示服务，或 NVML 无法列出的进程（Windows WDDM、受限的容器）。请对比宿主机上的 nvidia-smi 与本作业实际使用的显存。',
  'free-exceeds-request': () =>
    '分配失败的原因不是总空闲显存不够：显存被其他分配切碎、Windows WDDM，或在 cudaMalloc 失败与生成报告之间显存发生了变化。这条报错本身并不矛盾。',
  'numberless-oom': (p) =>
    p.family === 'nccl'
      ? 'NCCL 为集合通信分配缓冲区时，显卡已经满了。设置 NCCL_DEBUG=INFO 重新运行，查看失败的那次分配；为 NCCL 留出空间（每个进程约 0.4 GiB）或调小 NCCL_BUFFSIZE，并确认每个 rank 使用各自的 GPU。'
      : p.family === 'bitsandbytes'
        ? 'bitsandbytes 在其 C 代码中无法分配显存（分页优化器状态、量化缓冲区）：显卡已满。请按下面的配置建议腾出空间。'
        : '先检查系统层面：卡上的其他进程（nvidia-smi）、在 GPU 0 上创建 CUDA 上下文的各个 rank（在 init_process_group 之前调用 torch.cuda.set_device(local_rank)）；然后设置 CUDA_LAUNCH_BLOCKING=1 重新运行，让错误在发生的位置抛出，这样通常会带上分配器的具体数字。',
  'framework-preallocation': (p) =>
    p.framework === 'xla'
      ? 'JAX/XLA 启动时会预留显卡 75 % 的显存（XLA_PYTHON_CLIENT_MEM_FRACTION），因此 nvidia-smi 中的 “used” 无法反映真实需求。设置 XLA_PYTHON_CLIENT_PREALLOCATE=false 查看真实用量；如果本进程独占这张卡，可以调高 XLA_PYTHON_CLIENT_MEM_FRACTION；BufferAssignment 的输出列出了最大的缓冲区。'
      : '调用 tf.config.experimental.set_memory_growth(gpu, True)，这样显卡可以共享，nvidia-smi 也会显示真实用量；报错后面的分配器摘要列出了占用显存的内容。',
  'request-exceeds-card': (p) =>
    p.unbounded
      ? '任何设置都解决不了：这个大小是由错误的数据算出来的，通常发生在更早的一次失败之后（集合通信超时、某个 rank 已退出、广播的数据损坏）。请在日志上方找到第一条错误并修复它。'
      : '没有任何显卡能放下这个张量。请找到它：远大于预期的输入（整个数据集放进一个 batch、全分辨率图像、没有设置 max_length 的序列）、错误的 reshape 或广播、大词表在大量 token 上的 fp32 logits。请限制输入的大小。',
  'allocated-exceeds-card': () =>
    '只有在 Windows（WDDM）允许显卡溢出到系统内存（“共享 GPU 内存”）时才会出现：这些数字不可靠，而且运行时已经在换页。请按显卡已满处理。',
  'host-memory': (p) => {
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
  'second-model-copy': () =>
    '直接评估正在训练的模型（trainer.evaluate，或在 torch.no_grad() 下调用 model.eval()），不要再加载一次。如果确实需要第二个模型（参考模型、EMA、教师模型），把它放到另一张 GPU 上、用 device_map="auto" 分散，或以 8 位或 4 位加载。',
  'old-bitsandbytes': () =>
    'pip install -U "bitsandbytes>=0.43.2"：从 0.43.2（PR #1270）起，4 位层只保留打包后的权重，同样的训练占用更少显存。在此之前，每层的输入挂在 autograd 上下文上，直到计算图被释放；如果训练循环仍持有上一步的输出，还会一直保留到下一次前向传播。',
  'weights-at-load': () =>
    '缩小权重：用 16 位权重（bf16）代替 fp32，使用 4 位基座加 LoRA（QLoRA），或把权重分片到多张 GPU 上（ZeRO-3、FSDP）。使用 ZeRO-3 时，让 DeepSpeed 负责放置权重（在 DeepSpeed 配置生效的情况下调用 from_pretrained），不要先把整个模型搬到每张 GPU 上。',
  activations: () =>
    '激活值随 micro-batch × 序列长度增长：减小 micro-batch 并增加梯度累积步数（有效 batch 不变）、开启梯度检查点、使用分块或融合的交叉熵（大词表的 logits 是峰值所在）、把激活卸载到 CPU 内存、缩短序列。对真正已满的显卡，调整分配器设置没有帮助。',
  'optimizer-states': () =>
    'AdamW 在第一步创建两个状态（每个训练参数 8 字节，fp32），foreach kernel 还会额外产生一个与状态同样大的临时张量：使用 8 位优化器（bitsandbytes AdamW8bit）、用 ZeRO-1/2 或 FSDP 对状态分片、把优化器状态卸载到 CPU，或使用 LoRA 只让适配器拥有状态。使用融合内核（fused=True；Hugging Face 的 optim adamw_torch_fused）可以去掉这个临时张量。',
  'rank-imbalance': (p) =>
    (p.reason === null
      ? ''
      : (
          {
            'uneven-shards':
              '让每个 rank 分到同样多的份额：检查按 rank 放置的部分（依赖 rank 的 device_map、整层留在某个 rank 上、不均匀的流水线或张量并行切分、未被 FSDP/ZeRO 包裹的参数），把它们均匀分片。',
            'eval-on-rank':
              '用分布式 sampler 在所有 rank 上运行评估（Trainer 默认如此）；如果必须只在一个 rank 上评估，请在 torch.no_grad() 下运行、减小评估 batch，并把输出移到 CPU。',
            'length-split':
              '按 token 而不是按样本平衡各 rank：跨 rank 按长度分组（Trainer：group_by_length；按长度分组的分布式 sampler）、把序列打包到固定长度，或限制 max_length；最长的 batch 决定每个 rank 的显存预算。',
            'extra-contexts':
              '在每个 rank 一开始就调用 torch.cuda.set_device(local_rank)，要早于 init_process_group、任何 .cuda() 或 torch.cuda 调用；加载检查点时用 map_location 指向本 rank 自己的设备。',
          } as const
        )[p.reason]) +
    'rank 0 经常承担其他 rank 的 CUDA 上下文（在 init_process_group 之前调用 torch.cuda.set_device(local_rank)，并在各 rank 自己的设备上创建张量）；DataParallel 会把所有输出汇集到 GPU 0（请改用 DistributedDataParallel）；device_map="auto" 会先填满 GPU 0（传入 max_memory 为激活值留出空间）。',
  'evaluation-memory': () =>
    '评估需要的显存应当比训练少：在 torch.no_grad() 或 torch.inference_mode() 下运行（仅调用 model.eval() 仍会保留计算图），边评估边把预测结果移到 CPU（Trainer：eval_accumulation_steps，或用 preprocess_logits_for_metrics 只保留 argmax），减小评估的 batch size，并按最长的输出为 generate() 的 KV cache 预留显存。',
  'checkpoint-save': () =>
    '汇总完整的 state dict 会把整个模型放到一张 GPU 上：FSDP 请使用 FullStateDictConfig(offload_to_cpu=True, rank0_only=True) 或 SHARDED_STATE_DICT；DeepSpeed ZeRO-3 请保存分片的检查点并离线转换（zero_to_fp32.py），不要使用 stage3_gather_16bit_weights_on_model_save。',
  'mid-run': () =>
    '这个配置已经正常跑了很多步，说明有东西变了：某个更长的 batch（强制 max_length；按长度分桶）、显存逐步增长（泄漏：loss 或输出连同计算图一起被保留——请累加 loss.item()），或碎片化（PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True）。逐步的显存记录可以区分这几种情况。',
  'phase-unknown': () =>
    '请粘贴完整的 traceback（其中的调用栈会显示是加载、前向、反向还是优化器步骤），并提供训练配置（--scenario 或配置参数），以查看每部分显存的需求。',
  leak: () =>
    '有引用跨步骤一直存活：total_loss += loss（请用 loss.item() 或 loss.detach()）、为记录日志把输出或 logits 追加到列表、把隐藏状态保存在 self 上、超参数搜索中之前试验的模型没有删除。torch.cuda.memory._record_memory_history() 加上一次快照可以看出是哪些张量在增长。',
  'eval-growth': () =>
    '没有 torch.no_grad() 的评估会保留每个 batch 的计算图，而汇集在 GPU 上的预测结果会随数据集增大：把评估放在 torch.no_grad() 或 inference_mode() 中，并在每个 batch 之后把预测移到 CPU（Trainer：eval_accumulation_steps）。',
  fragmentation: (p) =>
    p.legacy
      ? '设置 PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128，避免大的缓存块被切分（该 PyTorch 版本早于 2.1 引入的 expandable_segments；升级并设置 expandable_segments:True 是更好的办法）。变长的 batch 会造成碎片化：按长度分桶，或填充到少数几个固定长度。'
      : '设置 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True，让释放的显存可以被其他大小的分配复用（在 H200 上，12 次训练的中位数：已分配之外的预留从 6.0 GiB 降到 0.9 GiB）。变长的 batch 会造成碎片化：按长度分桶，或填充到少数几个固定长度。',
  'stable-full': () =>
    'PyTorch 的缓存分配器会保留已释放的块以便复用，因此 nvidia-smi 显示的是它预留的显存，而不是张量实际使用的显存，而且每一步的显存都保持平稳。不要在训练循环中调用 torch.cuda.empty_cache()：它只会拖慢训练。',
  'alloc-retries': () =>
    '每次重试都意味着 cudaMalloc 失败，PyTorch 释放了全部缓存后再次尝试：运行已处于显卡容量的边缘，并因此变慢。显存不足的报错即将出现：请现在就按上面的建议处理。',
};

export const FINDING_ACTIONS = defineDomain<FindingParams>({
  name: 'finding-actions',
  words: { en: EN, zh: ZH },
  examples: FINDING_EXAMPLES,
});
