/**
 * The words of `headroom run` and `headroom watch` in English and Chinese: the checks before launch
 * and their hints (src/core/run/prelaunch.ts), the events headroom writes (src/core/run/events.ts),
 * how a run ended (src/core/run/summary.ts), its status, and the lines and labels of the summary and
 * of the live status line. Four domains of one family, kept in one file.
 */
import type { NoParams } from '../core/message.js';
import { type HeadroomEventParams, headroomEvent } from '../core/run/events.js';
import type { ForeignProcess, GpuFit, GpuLabel, PrelaunchParams } from '../core/run/prelaunch.js';
import type { SpawnFailure } from '../core/run/status.js';
import type { RunEndParams, SummaryLayer } from '../core/run/summary.js';
import type { RunEvent, RunStatus } from '../core/run-record.js';
import { defineDomain, say } from './catalog.js';
import type { Format } from './format.js';
import type { Lang } from './lang.js';

const enGpu = (p: GpuLabel) => `GPU ${p.gpu}${p.gpuName ? ` (${p.gpuName})` : ''}`;
const zhGpu = enGpu;
const processItem = (p: ForeignProcess, f: Format) =>
  `${p.pid ?? '?'} ${p.name ?? '?'}${p.usedBytes === null ? '' : ` ${f.bytes(p.usedBytes)}`}`;
const pids = (processes: readonly ForeignProcess[]) => processes.map((p) => p.pid).join(' ');
const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

const GPU_A: GpuLabel = { gpu: 0, gpuName: 'NVIDIA H200' };
const PRELAUNCH_EXAMPLES: { readonly [C in keyof PrelaunchParams]: PrelaunchParams[C] } = {
  'nvidia-smi': {
    problem: 'missing',
    detail: 'nvidia-smi was not found on PATH: GPU memory as the system sees it is not recorded',
    hint: 'install the NVIDIA driver utilities, or pass --no-smi',
  },
  'foreign-processes': {
    ...GPU_A,
    processes: [
      { pid: 10291, name: '/root/tools/memhog', usedBytes: 2570 * 2 ** 20 },
      { pid: 10309, name: './gpu_burn', usedBytes: null },
    ],
  },
  'unlisted-use': { ...GPU_A, usedBytes: 32_362 * 2 ** 20 },
  'low-free-memory': { ...GPU_A, freeBytes: 139.8 * 2 ** 30, neededBytes: 1.2 * 2 ** 40 },
};

/** The warnings before launch. */
export const RUN_PRELAUNCH = defineDomain<PrelaunchParams>({
  name: 'run-prelaunch',
  words: {
    en: {
      'nvidia-smi': (p) => `${p.detail}; the GPUs could not be checked`,
      'foreign-processes': (p, f) => {
        const n = p.processes.length;
        return `${enGpu(p)} already has ${n} ${plural(n, 'process', 'processes')} that ${plural(n, 'is', 'are')} not this run's: ${p.processes.map((x) => processItem(x, f)).join(', ')}`;
      },
      'unlisted-use': (p, f) =>
        `${enGpu(p)} has ${f.bytes(p.usedBytes)} in use but lists no process: something in another container or PID namespace holds it`,
      'low-free-memory': (p, f) =>
        `${enGpu(p)} has ${f.bytes(p.freeBytes)} free; the estimate needs ${f.bytes(p.neededBytes)} per GPU (nvidia-smi level)`,
    },
    zh: {
      'nvidia-smi': (p) => `${p.detail}；无法检查 GPU`,
      'foreign-processes': (p, f) =>
        `${zhGpu(p)} 上已有 ${p.processes.length} 个不属于本次运行的进程：${p.processes.map((x) => processItem(x, f)).join('、')}`,
      'unlisted-use': (p, f) =>
        `${zhGpu(p)} 已用 ${f.bytes(p.usedBytes)}，却没有列出任何进程：是另一个容器或 PID 命名空间里的程序占着它`,
      'low-free-memory': (p, f) =>
        `${zhGpu(p)} 空闲 ${f.bytes(p.freeBytes)}；估算每块 GPU 需要 ${f.bytes(p.neededBytes)}（nvidia-smi 层面）`,
    },
  },
  examples: PRELAUNCH_EXAMPLES,
});

/** What to do about each warning before launch. */
export const RUN_PRELAUNCH_HINTS = defineDomain<PrelaunchParams>({
  name: 'run-prelaunch-hints',
  words: {
    en: {
      'nvidia-smi': (p) => p.hint,
      'foreign-processes': (p) => {
        const one = p.processes.length === 1;
        return `if ${one ? 'it is a leftover' : 'they are leftovers'} of an earlier run, stop ${one ? 'it' : 'them'} (kill ${pids(p.processes)}); or pick another GPU with CUDA_VISIBLE_DEVICES`;
      },
      'unlisted-use': () => 'check nvidia-smi on the host, or pick another GPU with CUDA_VISIBLE_DEVICES',
      'low-free-memory': () =>
        'free the GPU, or change the setup until headroom estimate fits (smaller micro-batch, checkpointing, LoRA/QLoRA)',
    },
    zh: {
      // The sampler's hint is English (src/io/sampler.ts); it is shown as it is.
      'nvidia-smi': (p) => `${p.hint}（nvidia-smi 的提示）`,
      'foreign-processes': (p) =>
        `如果是之前运行遗留的进程，结束它们（kill ${pids(p.processes)}）；或者用 CUDA_VISIBLE_DEVICES 换一块 GPU`,
      'unlisted-use': () => '在宿主机上查看 nvidia-smi，或者用 CUDA_VISIBLE_DEVICES 换一块 GPU',
      'low-free-memory': () =>
        '释放这块 GPU，或者调整配置直到 headroom estimate 显示放得下（更小的 micro-batch、梯度检查点、LoRA/QLoRA）',
    },
  },
  examples: PRELAUNCH_EXAMPLES,
});

const SPAWN_REASONS = {
  en: {
    'not-found': 'not found (not on PATH, or no such file)',
    'not-executable': 'not executable (permission denied)',
  },
  zh: { 'not-found': '找不到（不在 PATH 上，或文件不存在）', 'not-executable': '不可执行（权限不足）' },
} as const;
/** Why a command could not start, in words; the system's own code (ENOENT) for any other reason. */
const spawnReason = (lang: Lang, p: { readonly reason: SpawnFailure; readonly detail: string }) =>
  p.reason === 'other' ? p.detail : SPAWN_REASONS[lang][p.reason];

const BAD_LINE = {
  path: '/tmp/probe.jsonl',
  offset: 919,
  problem: 'truncated',
  detail: null,
  chars: 35,
} as const satisfies HeadroomEventParams['probe-bad-line'];

/** The events headroom writes, in words (English is what the ledger's message column keeps). */
export const RUN_EVENTS = defineDomain<HeadroomEventParams>({
  name: 'run-events',
  words: {
    en: {
      prelaunch: (p, f) => say(RUN_PRELAUNCH, f.lang, p.warning),
      'spawn-error': (p) => `cannot start ${p.program}: ${spawnReason('en', p)}`,
      interrupted: () => 'stopped by Ctrl-C or a signal to headroom',
      resumed: (p) => `resumed by headroom watch (pid ${p.pid}) from the stored probe-log offsets`,
      'probe-bad-line': (p) =>
        `${p.path} at byte ${p.offset}: ${
          p.problem === 'truncated'
            ? 'truncated line (the writer stopped in the middle of it)'
            : p.problem === 'too-long'
              ? `line of ${p.chars} characters is too long`
              : p.problem === 'not-json'
                ? `not JSON (${p.detail})`
                : `not a probe event${p.detail ? `: ${p.detail}` : ''}`
        }`,
    },
    zh: {
      prelaunch: (p, f) => say(RUN_PRELAUNCH, f.lang, p.warning),
      'spawn-error': (p) => `无法启动 ${p.program}：${spawnReason('zh', p)}`,
      interrupted: () => '被 Ctrl-C 或发给 headroom 的信号停止',
      resumed: (p) => `由 headroom watch（pid ${p.pid}）从记录的探针日志偏移处接着记录`,
      'probe-bad-line': (p) =>
        `${p.path} 第 ${p.offset} 字节处：${
          p.problem === 'truncated'
            ? '行被截断（写入进程在行中途停止）'
            : p.problem === 'too-long'
              ? `该行有 ${p.chars} 个字符，太长`
              : p.problem === 'not-json'
                ? `不是 JSON（${p.detail}）`
                : `不是探针事件${p.detail ? `：${p.detail}` : ''}`
        }`,
    },
  },
  examples: {
    prelaunch: { warning: { code: 'unlisted-use', params: PRELAUNCH_EXAMPLES['unlisted-use'] } },
    'spawn-error': { program: 'no-such-trainer', reason: 'not-found', detail: 'ENOENT' },
    interrupted: { interrupts: 1 },
    resumed: { pid: 4242 },
    'probe-bad-line': BAD_LINE,
  },
});

/**
 * A stored event in words: English is the message the ledger keeps (as it was written); another
 * language words the events headroom writes from their data, and keeps the rest (torch's text) as is.
 */
export function eventWords(event: RunEvent, lang: Lang): string | null {
  if (lang === 'en') return event.message;
  const own = headroomEvent(event);
  return own ? say(RUN_EVENTS, lang, own) : event.message;
}

/** How a run ended (the summary's last line; `✗`, `■`, `✓` are the renderer's). */
export const RUN_END = defineDomain<RunEndParams>({
  name: 'run-end',
  words: {
    en: {
      oom: (p) => {
        const at = [
          p.step !== null ? `after step ${p.step}` : '',
          p.phase ? `phase ${p.phase}` : '',
          p.rank !== null ? `rank ${p.rank}` : '',
        ]
          .filter(Boolean)
          .join(', ');
        return `ended in a CUDA out-of-memory${at ? ` (${at})` : ''}`;
      },
      'not-started': (p) => `failed: ${p.event.message}`,
      failed: (p) => `failed${p.message !== null ? `: ${p.type ?? 'error'}: ${p.message}` : ''}`,
      killed: (p) => `stopped${p.signal ? ` by ${p.signal}` : ''}; everything recorded until then is kept`,
      finished: () => 'finished',
      running: () => 'still running',
    },
    zh: {
      oom: (p) => {
        const at = [
          p.step !== null ? `第 ${p.step} 步之后` : '',
          p.phase ? `阶段 ${p.phase}` : '',
          p.rank !== null ? `rank ${p.rank}` : '',
        ]
          .filter(Boolean)
          .join('，');
        return `以 CUDA 显存溢出结束${at ? `（${at}）` : ''}`;
      },
      'not-started': (p) => `失败：${eventWords(p.event, 'zh') ?? ''}`,
      failed: (p) => `失败${p.message !== null ? `：${p.type ?? 'error'}：${p.message}` : ''}`,
      killed: (p) => `已停止${p.signal ? `（${p.signal}）` : ''}；此前记录的一切都已保留`,
      finished: () => '已完成',
      running: () => '仍在运行',
    },
  },
  examples: {
    oom: { step: 2, phase: 'train', rank: 0, message: 'CUDA out of memory. Tried to allocate 2.00 GiB.' },
    'not-started': {
      event: {
        id: 1,
        tMs: 0,
        kind: 'spawn-error',
        source: 'headroom',
        pid: null,
        rank: null,
        step: null,
        phase: null,
        message: 'cannot start no-such-trainer: not found (not on PATH, or no such file)',
        data: { program: 'no-such-trainer', reason: 'not-found', detail: 'ENOENT' },
      },
    },
    failed: { type: 'ValueError', message: 'bad batch' },
    killed: { signal: 'SIGINT' },
    finished: {},
    running: {},
  },
});

/** A run's status, as the tables and headlines show it. */
export const RUN_STATUS = defineDomain<{ readonly [S in RunStatus]: NoParams }>({
  name: 'run-status',
  words: {
    en: {
      running: () => 'running',
      ok: () => 'ok',
      oom: () => 'oom',
      failed: () => 'failed',
      killed: () => 'killed',
    },
    zh: {
      running: () => '运行中',
      ok: () => '完成',
      oom: () => '显存溢出',
      failed: () => '失败',
      killed: () => '已停止',
    },
  },
  examples: { running: {}, ok: {}, oom: {}, failed: {}, killed: {} },
});

/** The lines and labels of run and watch: before launch, the summary and the live status line. */
export interface RunLineParams {
  readonly warning: { readonly text: string };
  readonly try: { readonly hint: string };
  readonly 'allocator-expandable': { readonly variable: string };
  readonly 'gpu-fits': GpuFit;
  readonly 'strict-refusal': { readonly warnings: readonly string[] };
  readonly 'strict-refusal-hint': { readonly hint: string };
  readonly 'cannot-start': HeadroomEventParams['spawn-error'] & { readonly runId: number };
  readonly 'cannot-start-hint': { readonly runId: number };
  readonly stopping: NoParams;
  readonly 'recorded-as': { readonly runId: number };
  /** The ledger could not take what was read (disk full, read-only home): the training goes on. */
  readonly 'recording-failed': { readonly code: string; readonly home: string };
  readonly 'resumed-as': { readonly runId: number };
  readonly 'waiting-for-log': { readonly seconds: number; readonly path: string };
  readonly resuming: { readonly runId: number };
  /** watch --run: this node's probe files join a run recorded elsewhere (another node's ranks). */
  readonly attaching: { readonly runId: number; readonly log: string };
  readonly 'stopped-watching': { readonly runId: number; readonly log: string };
  readonly 'run-ref': { readonly id: number; readonly name: string | null };
  readonly exit: { readonly code: number; readonly signal: string | null };
  readonly duration: { readonly ms: number };
  readonly 'step-count': { readonly steps: number };
  readonly watched: { readonly log: string };
  readonly 'col-peak': NoParams;
  readonly 'col-bytes': NoParams;
  readonly 'col-when': NoParams;
  readonly 'col-what': NoParams;
  readonly layer: { readonly layer: SummaryLayer };
  readonly 'layer-what': { readonly layer: SummaryLayer };
  readonly 'at-step': { readonly step: number };
  readonly 'on-gpu': { readonly gpu: number };
  readonly 'nothing-recorded': NoParams;
  readonly 'probe-silent': NoParams;
  readonly gaps: { readonly cacheBytes: number | null; readonly nonTorchBytes: number | null };
  readonly 'estimate-heading': NoParams;
  readonly 'not-measured': NoParams;
  readonly 'growth-grew': {
    readonly layer: 'allocated' | 'reserved';
    readonly fromBytes: number;
    readonly fromStep: number;
    readonly toBytes: number;
    readonly toStep: number;
    readonly bytesPerStep: number;
  };
  readonly 'growth-flat': { readonly steps: number; readonly levelBytes: number };
  readonly 'growth-unjudged': { readonly steps: number; readonly needs: number };
  readonly 'bad-lines': { readonly count: number; readonly runId: number };
  readonly 'live-waiting': NoParams;
  readonly 'live-step': { readonly step: number };
  readonly 'live-loss': { readonly loss: number };
  readonly 'live-allocated': { readonly bytes: number };
  readonly 'live-reserved': { readonly bytes: number };
  readonly 'live-used': { readonly bytes: number; readonly own: boolean };
  readonly 'live-free': { readonly bytes: number };
  readonly 'live-peak': { readonly sparkline: string };
  readonly 'plain-no-step': NoParams;
  readonly 'plain-allocated': { readonly bytes: number };
  readonly 'plain-reserved': { readonly bytes: number };
  readonly 'plain-used': { readonly bytes: number; readonly own: boolean };
}

/** "4.2 s", "2m 13s", "1h 02m" / "4.2 秒", "2 分 13 秒", "1 小时 02 分". */
function duration(ms: number, units: { s: string; m: string; ms: string; h: string; hm: string }): string {
  const s = ms / 1000;
  const two = (n: number) => String(Math.floor(n)).padStart(2, '0');
  if (s < 60) return `${s.toFixed(1)}${units.s}`;
  if (s < 3600) return `${Math.floor(s / 60)}${units.m}${two(s % 60)}${units.ms}`;
  return `${Math.floor(s / 3600)}${units.h}${two((s % 3600) / 60)}${units.hm}`;
}

const LAYER_EN: Readonly<Record<SummaryLayer, string>> = {
  allocated: 'allocated',
  reserved: 'reserved',
  device: 'nvidia-smi',
  'gpu-used': 'whole GPU',
};
const LAYER_ZH: Readonly<Record<SummaryLayer, string>> = {
  allocated: '已分配',
  reserved: '已保留',
  device: 'nvidia-smi',
  'gpu-used': '整卡',
};

export const RUN = defineDomain<RunLineParams>({
  name: 'run',
  words: {
    en: {
      warning: (p) => `headroom: ⚠ ${p.text}`,
      try: (p) => `  Try: ${p.hint}`,
      'allocator-expandable': (p) =>
        `headroom: ${p.variable} sets expandable_segments:True; the estimate counts it`,
      'gpu-fits': (p, f) =>
        `headroom: GPU ${p.gpu} has ${f.bytes(p.freeBytes)} free for an estimated ${f.bytes(p.neededBytes)}`,
      'strict-refusal': (p) => `refusing to start (--strict): ${p.warnings.join('; ')}`,
      'strict-refusal-hint': (p) => `${p.hint}; or run without --strict to start anyway`,
      'cannot-start': (p) =>
        `cannot start "${p.program}": ${spawnReason('en', p)} (recorded as run ${p.runId})`,
      'cannot-start-hint': (p) =>
        `check the command after --, e.g. headroom run -- python3 train.py; headroom runs rm ${p.runId} drops the record`,
      stopping: () =>
        '\nheadroom: stopping the command (Ctrl-C again to terminate it now); the record is kept',
      'recorded-as': (p) => `  recorded as run ${p.runId}: headroom runs show ${p.runId}`,
      'recording-failed': (p) =>
        `headroom: cannot record into ${p.home} (${p.code}${p.code === 'SQLITE_FULL' || p.code === 'ENOSPC' ? ': the disk is full' : p.code === 'SQLITE_READONLY' || p.code === 'EROFS' ? ': read-only' : ''}); the training goes on, its exit code unchanged; free space or set HEADROOM_HOME elsewhere for the next run`,
      'resumed-as': (p) => `  resumed as run ${p.runId}: headroom runs show ${p.runId}`,
      'waiting-for-log': (p) => `headroom: waiting up to ${p.seconds} s for ${p.path} …`,
      resuming: (p) => `headroom: resuming run ${p.runId} from where the ledger stopped`,
      attaching: (p) => `headroom: adding the ranks of ${p.log} to run ${p.runId}`,
      'stopped-watching': (p) =>
        `headroom: stopped watching; run ${p.runId} stays "running" and headroom watch --log ${p.log} resumes it`,
      'run-ref': (p) => `run ${p.id}${p.name ? ` "${p.name}"` : ''}`,
      exit: (p) => `exit ${p.code}${p.signal ? ` (${p.signal})` : ''}`,
      duration: (p) => duration(p.ms, { s: ' s', m: 'm ', ms: 's', h: 'h ', hm: 'm' }),
      'step-count': (p) => `${p.steps} ${plural(p.steps, 'step', 'steps')}`,
      watched: (p) => `watched ${p.log}`,
      'col-peak': () => 'peak',
      'col-bytes': () => 'bytes',
      'col-when': () => 'when',
      'col-what': () => 'what',
      layer: (p) => LAYER_EN[p.layer],
      'layer-what': (p) =>
        ({
          allocated: 'torch max_memory_allocated',
          reserved: 'torch max_memory_reserved',
          device: "this run's processes",
          'gpu-used': 'memory.used, every process',
        })[p.layer],
      'at-step': (p) => `step ${p.step}`,
      'on-gpu': (p) => `GPU ${p.gpu}`,
      'nothing-recorded': () => 'no memory was recorded (no probe events and no nvidia-smi samples)',
      'probe-silent': () =>
        'the probe recorded nothing: add `import headroom_probe` and headroom_probe.step(...) to the script',
      gaps: (p, f) =>
        `between the layers: ${[
          p.cacheBytes !== null
            ? `${f.bytes(p.cacheBytes)} cached by the allocator (reserved − allocated)`
            : null,
          p.nonTorchBytes !== null
            ? `${f.bytes(p.nonTorchBytes)} CUDA context and non-PyTorch memory (nvidia-smi − reserved)`
            : null,
        ]
          .filter(Boolean)
          .join(' · ')}`,
      'estimate-heading': () => "the scenario's estimate against the run's peaks:",
      'not-measured': () => 'not measured',
      'growth-grew': (p, f) =>
        `⚠ memory grew: per-step peak ${p.layer} ${f.bytes(p.fromBytes)} at step ${p.fromStep} → ${f.bytes(p.toBytes)} at step ${p.toStep} (${f.bytes(p.bytesPerStep)}/step); ${
          p.layer === 'allocated'
            ? 'live tensors grew: a leak (a loss kept with its graph, outputs kept on the GPU) or longer inputs'
            : 'the allocator cache grew while live tensors did not: fragmentation (try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True)'
        }`,
      'growth-flat': (p, f) =>
        `memory: flat across ${p.steps} steps (per-step peak about ${f.bytes(p.levelBytes)})`,
      'growth-unjudged': (p) =>
        `memory growth: not judged on ${p.steps} ${plural(p.steps, 'step', 'steps')} (needs ${p.needs})`,
      'bad-lines': (p) =>
        `! ${p.count} probe ${plural(p.count, 'line', 'lines')} could not be read (headroom runs show ${p.runId} lists them)`,
      'live-waiting': () => 'waiting for the first step',
      'live-step': (p) => `step ${p.step}`,
      'live-loss': (p) => `loss ${p.loss.toPrecision(4)}`,
      'live-allocated': (p, f) => `alloc ${f.bytes(p.bytes)}`,
      'live-reserved': (p, f) => `rsvd ${f.bytes(p.bytes)}`,
      'live-used': (p, f) => `${p.own ? 'smi' : 'gpu used'} ${f.bytes(p.bytes)}`,
      'live-free': (p, f) => `free ${f.bytes(p.bytes)}`,
      'live-peak': (p) => `peak ${p.sparkline}`,
      'plain-no-step': () => 'no step yet',
      'plain-allocated': (p, f) => `allocated ${f.bytes(p.bytes)}`,
      'plain-reserved': (p, f) => `reserved ${f.bytes(p.bytes)}`,
      'plain-used': (p, f) => `nvidia-smi ${f.bytes(p.bytes)}${p.own ? '' : ' (whole GPU)'}`,
    },
    zh: {
      warning: (p) => `headroom：⚠ ${p.text}`,
      try: (p) => `  建议：${p.hint}`,
      'allocator-expandable': (p) => `headroom：${p.variable} 设置了 expandable_segments:True，估算已计入`,
      'gpu-fits': (p, f) =>
        `headroom：GPU ${p.gpu} 空闲 ${f.bytes(p.freeBytes)}，估算需要 ${f.bytes(p.neededBytes)}`,
      'strict-refusal': (p) => `拒绝启动（--strict）：${p.warnings.join('；')}`,
      'strict-refusal-hint': (p) => `${p.hint}；或者去掉 --strict 照常启动`,
      'cannot-start': (p) => `无法启动 "${p.program}"：${spawnReason('zh', p)}（已记录为运行 ${p.runId}）`,
      'cannot-start-hint': (p) =>
        `检查 -- 之后的命令，例如 headroom run -- python3 train.py；headroom runs rm ${p.runId} 可删除这条记录`,
      stopping: () => '\nheadroom：正在停止命令（再按一次 Ctrl-C 立即终止）；记录会保留',
      'recorded-as': (p) => `  已记录为运行 ${p.runId}：headroom runs show ${p.runId}`,
      'recording-failed': (p) =>
        `headroom：无法写入 ${p.home}（${p.code}${p.code === 'SQLITE_FULL' || p.code === 'ENOSPC' ? '：磁盘已满' : p.code === 'SQLITE_READONLY' || p.code === 'EROFS' ? '：只读' : ''}）；训练照常进行，退出码不变；请释放空间，或为下次运行把 HEADROOM_HOME 设到别处`,
      'resumed-as': (p) => `  已接续记录为运行 ${p.runId}：headroom runs show ${p.runId}`,
      'waiting-for-log': (p) => `headroom：最多等待 ${p.seconds} 秒，直到 ${p.path} 出现…`,
      resuming: (p) => `headroom：从账本停下的位置接着记录运行 ${p.runId}`,
      attaching: (p) => `headroom：把 ${p.log} 的各 rank 加入运行 ${p.runId}`,
      'stopped-watching': (p) =>
        `headroom：已停止跟踪；运行 ${p.runId} 仍为 "running"，headroom watch --log ${p.log} 可接着记录`,
      'run-ref': (p) => `运行 ${p.id}${p.name ? ` "${p.name}"` : ''}`,
      exit: (p) => `退出码 ${p.code}${p.signal ? `（${p.signal}）` : ''}`,
      duration: (p) => duration(p.ms, { s: ' 秒', m: ' 分 ', ms: ' 秒', h: ' 小时 ', hm: ' 分' }),
      'step-count': (p) => `${p.steps} 步`,
      watched: (p) => `跟踪 ${p.log}`,
      'col-peak': () => '峰值',
      'col-bytes': () => '大小',
      'col-when': () => '时间',
      'col-what': () => '含义',
      layer: (p) => LAYER_ZH[p.layer],
      'layer-what': (p) =>
        ({
          allocated: 'torch 的 max_memory_allocated',
          reserved: 'torch 的 max_memory_reserved',
          device: '本次运行的进程',
          'gpu-used': 'memory.used，所有进程',
        })[p.layer],
      'at-step': (p) => `第 ${p.step} 步`,
      'on-gpu': (p) => `GPU ${p.gpu}`,
      'nothing-recorded': () => '没有记录到显存（既没有探针事件，也没有 nvidia-smi 采样）',
      'probe-silent': () =>
        '探针什么也没记录：在脚本中加入 `import headroom_probe` 和 headroom_probe.step(...)',
      gaps: (p, f) =>
        `各层之间：${[
          p.cacheBytes !== null ? `分配器缓存 ${f.bytes(p.cacheBytes)}（已保留 − 已分配）` : null,
          p.nonTorchBytes !== null
            ? `CUDA 上下文与非 PyTorch 显存 ${f.bytes(p.nonTorchBytes)}（nvidia-smi − 已保留）`
            : null,
        ]
          .filter(Boolean)
          .join(' · ')}`,
      'estimate-heading': () => '场景的估算与本次运行的峰值对比：',
      'not-measured': () => '未测到',
      'growth-grew': (p, f) =>
        `⚠ 显存在增长：每步峰值（${p.layer === 'allocated' ? '已分配' : '已保留'}）从第 ${p.fromStep} 步的 ${f.bytes(p.fromBytes)} 增至第 ${p.toStep} 步的 ${f.bytes(p.toBytes)}（每步 ${f.bytes(p.bytesPerStep)}）；${
          p.layer === 'allocated'
            ? '存活张量在增长：内存泄漏（保留了带计算图的 loss、把输出留在 GPU 上）或输入变长'
            : '存活张量没有增长而分配器缓存在增长：碎片化（试试 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True）'
        }`,
      'growth-flat': (p, f) => `显存：${p.steps} 步内保持平稳（每步峰值约 ${f.bytes(p.levelBytes)}）`,
      'growth-unjudged': (p) => `显存增长：${p.steps} 步不足以判断（需要 ${p.needs} 步）`,
      'bad-lines': (p) => `! 有 ${p.count} 行探针日志无法读取（headroom runs show ${p.runId} 会列出）`,
      'live-waiting': () => '等待第一步',
      'live-step': (p) => `第 ${p.step} 步`,
      'live-loss': (p) => `损失 ${p.loss.toPrecision(4)}`,
      'live-allocated': (p, f) => `已分配 ${f.bytes(p.bytes)}`,
      'live-reserved': (p, f) => `已保留 ${f.bytes(p.bytes)}`,
      'live-used': (p, f) => `${p.own ? 'smi' : '整卡已用'} ${f.bytes(p.bytes)}`,
      'live-free': (p, f) => `空闲 ${f.bytes(p.bytes)}`,
      'live-peak': (p) => `峰值 ${p.sparkline}`,
      'plain-no-step': () => '还没有步',
      'plain-allocated': (p, f) => `已分配 ${f.bytes(p.bytes)}`,
      'plain-reserved': (p, f) => `已保留 ${f.bytes(p.bytes)}`,
      'plain-used': (p, f) => `nvidia-smi ${f.bytes(p.bytes)}${p.own ? '' : '（整卡）'}`,
    },
  },
  examples: {
    warning: { text: 'GPU 0 has 32.00 GiB in use but lists no process' },
    try: { hint: 'pick another GPU with CUDA_VISIBLE_DEVICES' },
    'allocator-expandable': { variable: 'PYTORCH_CUDA_ALLOC_CONF' },
    'gpu-fits': { gpu: 0, freeBytes: 139.8 * 2 ** 30, neededBytes: 9 * 2 ** 30 },
    'strict-refusal': { warnings: ['GPU 0 (NVIDIA H200) has 1.00 GiB in use but lists no process'] },
    'strict-refusal-hint': { hint: 'check nvidia-smi on the host' },
    'cannot-start': { program: 'no-such-trainer', reason: 'not-executable', detail: 'EACCES', runId: 1 },
    'cannot-start-hint': { runId: 1 },
    stopping: {},
    'recorded-as': { runId: 3 },
    'recording-failed': { code: 'SQLITE_FULL', home: '/home/me/.headroom' },
    'resumed-as': { runId: 3 },
    'waiting-for-log': { seconds: 30, path: '/tmp/probe.jsonl' },
    resuming: { runId: 1 },
    attaching: { runId: 2, log: '/shared/job/probe.jsonl' },
    'stopped-watching': { runId: 1, log: '/tmp/probe.jsonl' },
    'run-ref': { id: 1, name: 'bs4' },
    exit: { code: 130, signal: 'SIGINT' },
    duration: { ms: 133_000 },
    'step-count': { steps: 12 },
    watched: { log: '/tmp/probe.jsonl' },
    'col-peak': {},
    'col-bytes': {},
    'col-when': {},
    'col-what': {},
    layer: { layer: 'gpu-used' },
    'layer-what': { layer: 'device' },
    'at-step': { step: 2 },
    'on-gpu': { gpu: 0 },
    'nothing-recorded': {},
    'probe-silent': {},
    gaps: { cacheBytes: 16 * 2 ** 20, nonTorchBytes: 500 * 2 ** 20 },
    'estimate-heading': {},
    'not-measured': {},
    'growth-grew': {
      layer: 'allocated',
      fromBytes: 2 ** 31,
      fromStep: 4,
      toBytes: 2 ** 32,
      toStep: 20,
      bytesPerStep: 2 ** 27,
    },
    'growth-flat': { steps: 12, levelBytes: 2.88 * 2 ** 30 },
    'growth-unjudged': { steps: 3, needs: 8 },
    'bad-lines': { count: 2, runId: 1 },
    'live-waiting': {},
    'live-step': { step: 12 },
    'live-loss': { loss: 1.2345 },
    'live-allocated': { bytes: 2 ** 31 },
    'live-reserved': { bytes: 2 ** 31 },
    'live-used': { bytes: 2 ** 32, own: false },
    'live-free': { bytes: 2 ** 34 },
    'live-peak': { sparkline: '▁▂▃▅▇' },
    'plain-no-step': {},
    'plain-allocated': { bytes: 2 ** 31 },
    'plain-reserved': { bytes: 2 ** 31 },
    'plain-used': { bytes: 2 ** 32, own: false },
  },
});
