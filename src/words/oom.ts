/**
 * The words of what the OOM reader finds (src/core/oom): each message family, each phase, what the
 * phase was read from (the basis) and why each phase rule placed it (the reason), in English and
 * Simplified Chinese. Word tables, not message domains: each is one word or clause per code, rendered
 * inside the diagnosis's own words (evidence.ts, diagnosis.ts); TypeScript holds each language to
 * every code, and src/words/diagnosis.test.ts checks the Chinese is Chinese.
 */
import type { OomFamily, OomPhase, PhaseBasis, PhaseReason } from '../core/oom/index.js';
import type { Lang } from './lang.js';

export interface OomTerms {
  /** The message families of data/docs/MONITORING.md §A7, plus a look-alike and none. */
  readonly families: Readonly<Record<OomFamily, string>>;
  readonly phases: Readonly<Record<OomPhase, string>>;
  /** What the phase was read from: "from the traceback". */
  readonly bases: Readonly<Record<PhaseBasis, string>>;
  /** Why a rule placed the failure; a reason follows its basis ("from the traceback: a frame of …"). */
  readonly reasons: Readonly<Record<PhaseReason, string>>;
}

/**
 * 简体中文: technical terms as Chinese ML writing uses them; names of APIs, tools and frameworks as
 * written.
 */
export const OOM_TERMS: Readonly<Record<Lang, OomTerms>> = {
  en: {
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
    reasons: {
      'host-kill': 'the operating system killed the process for host memory',
      'traced-frame': 'a function of this phase is on the stack',
      'traced-file': 'the stack runs through this phase’s code (autograd, generation, an evaluation loop)',
      'traced-code': 'the code it printed belongs to this phase',
      'traced-text': 'the warning names it',
      'named-function': 'a function on the stack is named for evaluation',
      'rollout-generation':
        'the generation runs inside a training step (an RL rollout): its forward passes, not an evaluation',
      'evaluation-script': 'the script the traceback starts in is named for evaluation',
      'foreign-process':
        'other processes hold a quarter of the card or more than this one, and without them the request would have fit',
      'memory-outside-processes':
        'the card’s used memory exceeds this process and every listed one by at least 1 GiB and 10 % of the card: processes NVML cannot list hold it',
      'memory-outside-torch':
        'no process is listed, and the card’s used memory exceeds what PyTorch holds by more than 4 GiB and a quarter of the card: another program holds it',
      'rank-contexts': 'small processes beside this one are other ranks’ CUDA contexts',
      'smi-leftover':
        'nvidia-smi lists a process whose PID is gone or that is stopped: a leftover holds memory',
      'smi-rank-contexts':
        'nvidia-smi lists same-sized small processes beside a larger one: other ranks’ contexts',
      'smi-gpu-uneven': 'nvidia-smi shows one GPU holding at least twice the memory of the job’s other GPUs',
      'smi-used-no-process':
        'nvidia-smi shows memory in use with no process listed: it belongs to processes this container cannot see',
      'smi-full-before-ours':
        'the error is CUDA’s own, with no PyTorch figures, and nvidia-smi shows the card already full with the other GPUs idle: another program held it before this one allocated',
      'smi-rows': 'nvidia-smi lists processes holding the card, and the report has no out-of-memory message',
      'log-progress': 'the progress or loading line before the failure',
      'log-steps': 'training steps were logged before the failure: the setup fit, then something changed',
      'log-engine': 'a serving engine’s log line: it runs forward passes only',
      words: 'the words around the error say so',
      'one-rank-failed': 'one rank failed while the others went on without an error',
      'request-unbounded':
        'a size of more than 1 EB is corrupted, not needed: ranks whose collectives fell out of step in a running job',
      'nothing-allocated': 'PyTorch held nothing yet: the first allocation, the model being loaded or moved',
      'fragmented-cache':
        'the cache held several times the request but could not use it, which builds up over many steps',
      'single-huge-request':
        'one request of a quarter of the card or more, larger than what was free: one giant activation',
      'nothing-cached': 'less than one 2 MiB segment cached: nothing had been freed yet',
      'card-full':
        'PyTorch tensors fill the card: the forward pass’s activations (kept for backward when training) filled it',
      'steps-before-failure':
        'the run had completed many training steps before it failed: the setup fit, then something changed',
    },
  },
  zh: {
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
    reasons: {
      'host-kill': '操作系统因主机内存不足杀掉了进程',
      'traced-frame': '调用栈中有属于这一阶段的函数',
      'traced-file': '调用栈中有这一阶段代码（autograd、生成、评估循环）的帧',
      'traced-code': 'traceback 打印的代码属于这一阶段',
      'traced-text': '警告信息指明了它',
      'named-function': '调用栈中有以评估命名的函数',
      'rollout-generation': '生成发生在训练步之内（强化学习的 rollout）：这是它的前向传播，而不是评估',
      'evaluation-script': 'traceback 起始的脚本以评估命名',
      'foreign-process': '其他进程占用了显卡的四分之一或多于本进程的显存，没有它们这次请求本可以放得下',
      'memory-outside-processes':
        '显卡已用显存比本进程和所有列出的进程多出至少 1 GiB 且占显卡的 10 %：这部分被 NVML 无法列出的进程占用',
      'memory-outside-torch':
        '没有列出任何进程，而显卡已用显存比 PyTorch 持有的多出 4 GiB 以上且超过显卡的四分之一：另一个程序占用了它',
      'rank-contexts': '本进程旁边的小进程是其他 rank 的 CUDA 上下文',
      'smi-leftover': 'nvidia-smi 列出的进程 PID 已不存在或处于暂停状态：残留进程占着显存',
      'smi-rank-contexts': 'nvidia-smi 在一个大进程旁列出若干大小相同的小进程：其他 rank 的上下文',
      'smi-gpu-uneven': 'nvidia-smi 显示某张 GPU 的显存至少是该作业其他 GPU 的两倍',
      'smi-used-no-process': 'nvidia-smi 显示显存已被占用却没有列出进程：占用者是本容器看不到的进程',
      'smi-full-before-ours':
        '报错来自 CUDA 本身、没有 PyTorch 的数字，而 nvidia-smi 显示这张卡已满、其他 GPU 空闲：本进程分配之前另一个程序已占用了它',
      'smi-rows': 'nvidia-smi 列出了占用显卡的进程，而报告中没有显存不足的报错',
      'log-progress': '失败之前的进度条或加载日志',
      'log-steps': '失败之前日志记录了多个训练步：这个配置放得下，后来有东西变了',
      'log-engine': '推理服务引擎的日志：它只运行前向传播',
      words: '报错周围的文字这样说明',
      'one-rank-failed': '只有一个 rank 失败，其他 rank 没有报错继续运行',
      'request-unbounded': '超过 1 EB 的大小是损坏的数值而不是真实需求：运行中各 rank 的集合通信失去同步',
      'nothing-allocated': 'PyTorch 还没有分配任何显存：这是第一次分配，正在加载或移动模型',
      'fragmented-cache': '缓存中的显存是请求的数倍却无法使用，这是经过很多步才积累起来的',
      'single-huge-request': '单次请求达到显卡的四分之一或更多，且大于空闲显存：一个巨大的激活值',
      'nothing-cached': '缓存不到一个 2 MiB 的段：还没有任何显存被释放过',
      'card-full': 'PyTorch 张量占满了显卡：前向传播产生的激活值（训练时还要为反向传播保留）达到了显卡的容量',
      'steps-before-failure': '失败之前运行已经完成了许多训练步：这个配置放得下，后来有东西变了',
    },
  },
};
