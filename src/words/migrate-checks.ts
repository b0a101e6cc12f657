/**
 * The words of `migrate`'s checklist (src/core/migrate/), in English and Chinese: each check's title,
 * the reason of each of its codes, the action of each action code, and the version differences and
 * problems the versions check lists. `checkWords` gives all three of one item.
 */

import type { NoParams } from '../core/message.js';
import type {
  Bf16Source,
  BnbOnTarget,
  CheckId,
  CheckItem,
  CommFigures,
  DiskFigures,
  DiskNeed,
  IntervalFigures,
  MigrateActionParams,
  MigrateCheckParams,
  UsableOn,
  VersionDiffParams,
  VersionProblemParams,
} from '../core/migrate.js';
import { defineDomain, say } from './catalog.js';
import { envMissingText } from './env.js';
import type { Format } from './format.js';
import type { Lang } from './lang.js';
import { LINK_NAMES } from './time-notes.js';

/** A duration as the checklist writes it: "4.0 s", "29 min", "1.5 h" (and "2.0 days" when asked). */
export function seconds(f: Format, s: number, days = false): string {
  const unit =
    f.lang === 'zh'
      ? { s: '秒', min: '分钟', h: '小时', days: '天' }
      : { s: 's', min: 'min', h: 'h', days: 'days' };
  if (!Number.isFinite(s)) return '—';
  if (s < 90) return `${s.toFixed(s < 10 ? 1 : 0)} ${unit.s}`;
  if (s < 5400) return `${(s / 60).toFixed(0)} ${unit.min}`;
  if (!days || s < 72 * 3600) return `${(s / 3600).toFixed(1)} ${unit.h}`;
  return `${(s / 86400).toFixed(1)} ${unit.days}`;
}

export const MIGRATE_CHECK_TITLES = defineDomain<Record<CheckId, NoParams>>({
  name: 'migrate-check-titles',
  words: {
    en: {
      'memory-fit': () => 'peak memory fits the target',
      'host-memory': () => 'host memory holds the offload',
      'gpu-count': () => 'enough GPUs on the target',
      bf16: () => 'bf16 supported',
      interconnect: () => 'strategy suits the interconnect',
      'checkpoint-disk': () => 'checkpoints and data fit the disk',
      versions: () => 'driver, CUDA and framework versions',
      'checkpoint-frequency': () => 'checkpoints often enough for preemption',
    },
    zh: {
      'memory-fit': () => '峰值显存放得下目标 GPU',
      'host-memory': () => '主机内存装得下卸载的数据',
      'gpu-count': () => '目标机器的 GPU 数量足够',
      bf16: () => '支持 bf16',
      interconnect: () => '并行策略适合互联方式',
      'checkpoint-disk': () => '磁盘放得下检查点和数据',
      versions: () => '驱动、CUDA 与框架版本',
      'checkpoint-frequency': () => '检查点足够频繁，可应对抢占',
    },
  },
  examples: {
    'memory-fit': {},
    'host-memory': {},
    'gpu-count': {},
    bf16: {},
    interconnect: {},
    'checkpoint-disk': {},
    versions: {},
    'checkpoint-frequency': {},
  },
});

export const VERSION_DIFFS = defineDomain<VersionDiffParams>({
  name: 'migrate-version-diffs',
  words: {
    en: {
      driver: (p) => `driver ${p.from ?? '?'} → ${p.to ?? '?'}`,
      cuda: (p) => `CUDA (driver) ${p.from ?? '?'} → ${p.to ?? '?'}`,
      package: (p) => `${p.name} ${p.from ?? 'absent'} → ${p.to ?? 'absent'}`,
      'torch-cuda': (p) => `torch CUDA build ${p.from ?? 'none'} → ${p.to ?? 'none'}`,
      python: (p) => `Python ${p.from} → ${p.to}`,
    },
    zh: {
      driver: (p) => `驱动 ${p.from ?? '?'} → ${p.to ?? '?'}`,
      cuda: (p) => `CUDA（驱动）${p.from ?? '?'} → ${p.to ?? '?'}`,
      package: (p) => `${p.name} ${p.from ?? '未安装'} → ${p.to ?? '未安装'}`,
      'torch-cuda': (p) => `torch 的 CUDA 构建 ${p.from ?? '无'} → ${p.to ?? '无'}`,
      python: (p) => `Python 版本 ${p.from} → ${p.to}`,
    },
  },
  examples: {
    driver: { from: '550.54.15', to: '535.104.05' },
    cuda: { from: '12.4', to: '12.2' },
    package: { name: 'transformers', from: '4.46.0', to: null },
    'torch-cuda': { from: '12.4', to: '11.8' },
    python: { from: '3.11.7', to: '3.10.12' },
  },
});

export const VERSION_PROBLEMS = defineDomain<VersionProblemParams>({
  name: 'migrate-version-problems',
  words: {
    en: {
      'no-frameworks': (p, f) =>
        `no Python framework versions on ${p.label} (${p.missing ? envMissingText(f.lang, p.missing) : ''})`,
      'not-installed': (p) =>
        `${p.packages.join(', ')} not installed on ${p.label}, and the scenario needs ${p.packages.length > 1 ? 'them' : 'it'}`,
      'cuda-mismatch': (p) =>
        `torch is built for CUDA ${p.torchCuda} but the driver supports CUDA ${p.driverCuda}: upgrade the driver or install a cu${p.driverMajor}x wheel`,
    },
    zh: {
      'no-frameworks': (p, f) =>
        `${p.label} 上没有 Python 框架版本信息（${p.missing ? envMissingText(f.lang, p.missing) : ''}）`,
      'not-installed': (p) =>
        `${p.label} 上未安装 ${p.packages.join('、')}，而场景需要${p.packages.length > 1 ? '它们' : '它'}`,
      'cuda-mismatch': (p) =>
        `torch 是为 CUDA ${p.torchCuda} 构建的，但驱动只支持 CUDA ${p.driverCuda}：请升级驱动，或安装 cu${p.driverMajor}x 的 wheel`,
    },
  },
  examples: {
    'no-frameworks': {
      label: 'b.json',
      missing: {
        status: 'missing',
        reason: 'python3 is not installed (not on PATH)',
        code: 'not-installed',
        params: { command: 'python3' },
      },
    },
    'not-installed': { packages: ['flash-attn', 'deepspeed'], label: 'b.json' },
    'cuda-mismatch': { torchCuda: '12.4', driverCuda: '11.8', driverMajor: 11 },
  },
});

interface Wording {
  on(u: UsableOn): string;
  paged(bytes: number, f: Format): string;
  bnb(b: BnbOnTarget | null): string;
  bf16(s: Bf16Source): string;
  comm(c: CommFigures, f: Format): string;
  hostNeeds(bytes: number, f: Format): string;
  disk(n: DiskNeed, f: Format): string;
  diskMeasured(d: DiskFigures, f: Format): string;
  interval(i: IntervalFigures, f: Format): string;
  upgrade(savesBytes: number, f: Format): string;
  versions(p: MigrateCheckParams['versions-broken'], f: Format): string;
}

const EN: Wording = {
  on: (u) =>
    u.kind === 'mig' ? `MIG instance of ${u.name}` : u.kind === 'catalog' ? `${u.name} (catalog)` : u.name,
  paged: (bytes, f) =>
    bytes > 0
      ? `; the ${f.bytes(bytes)} of paged optimizer states come on top where there is room and wait in host RAM where there is not`
      : '',
  bnb: (b) =>
    !b
      ? ''
      : b.change === 'kept'
        ? `; bitsandbytes ${b.version} on ${b.label} keeps every 4-bit layer's input (0.43.2 stopped it), counted here for the step; a loop that holds the last step's outputs keeps them into the next forward (--quantized-inputs-kept next-forward)`
        : `; bitsandbytes ${b.version} on ${b.label} keeps no 4-bit layer inputs, so they are not counted there`,
  bf16: (s) =>
    s.kind === 'compute-capability'
      ? `compute capability ${s.computeCapability.toFixed(1)}`
      : `${s.gpu} (catalog)`,
  comm: (c, f) => {
    const t = c.topology;
    const where = t
      ? `nvidia-smi topo: ${t.kind === 'nvlink' ? 'NVLink between every pair' : t.kind === 'partial' ? `NVLink on ${t.nvlinkPairs} pairs only` : 'PCIe only'}`
      : "the catalog's link, no topology captured";
    return `${seconds(f, c.commSeconds)} of communication per step against ${seconds(f, c.computeSeconds)} of compute (${f.bytes(c.commBytes)} per GPU over ${say(LINK_NAMES, 'en', c.link)}; ${where})`;
  },
  hostNeeds: (bytes, f) => `the offload needs ${f.bytes(bytes)} of CPU RAM per node`,
  disk: (n, f) =>
    `${n.keep} checkpoint${n.keep > 1 ? 's' : ''} of ${f.bytes(n.checkpointBytes)} (${n.full ? 'weights + optimizer states' : 'adapters + their optimizer states'})${n.dataBytes > 0 ? ` + ${f.bytes(n.dataBytes)} of data` : ''}`,
  diskMeasured: (d, f) => {
    const save =
      d.saveSeconds === null || d.writeBytesPerSecond === null
        ? 'write speed not measured'
        : `one save takes ${seconds(f, d.saveSeconds)} at ${f.bytes(d.writeBytesPerSecond)}/s`;
    return `${EN.disk(d, f)} = ${f.bytes(d.needBytes)} against ${f.bytes(d.freeBytes)} free on ${d.path}; ${save}${d.dataBytes === 0 ? ' (data size not given: --dataset-size)' : ''}`;
  },
  interval: (i, f) =>
    `every ${i.saveEverySteps} steps ≈ ${seconds(f, i.lostSeconds)} of training at risk (limit ${seconds(f, i.limitSeconds)})${i.saveShare === null ? '' : `; saving takes ${f.percent(i.saveShare)} of the time`}`,
  upgrade: (saves, f) =>
    saves > 0 ? `pip install -U "bitsandbytes>=0.43.2" on the target (−${f.bytes(saves)}), or ` : '',
  versions: (p, f) =>
    [
      ...p.problems.map((m) => say(VERSION_PROBLEMS, f.lang, m)),
      ...(p.diffs.length > 0
        ? [`differs: ${p.diffs.map((d) => say(VERSION_DIFFS, f.lang, d)).join('; ')}`]
        : []),
    ].join('; '),
};

const ZH: Wording = {
  on: (u) =>
    u.kind === 'mig' ? `${u.name} 的 MIG 实例` : u.kind === 'catalog' ? `${u.name}（目录）` : u.name,
  paged: (bytes, f) =>
    bytes > 0
      ? `；另有 ${f.bytes(bytes)} 分页优化器状态：显存有空间时放在显存中，没有空间时留在主机内存中`
      : '',
  bnb: (b) =>
    !b
      ? ''
      : b.change === 'kept'
        ? `；${b.label} 上的 bitsandbytes ${b.version} 会保留每个 4 位层的输入（0.43.2 起不再保留），此处按一步计入；若训练循环保留上一步的输出，这些输入会一直留到下一次前向传播（--quantized-inputs-kept next-forward）`
        : `；${b.label} 上的 bitsandbytes ${b.version} 不保留 4 位层的输入，因此那里不计入`,
  bf16: (s) =>
    s.kind === 'compute-capability' ? `计算能力 ${s.computeCapability.toFixed(1)}` : `${s.gpu}（目录）`,
  comm: (c, f) => {
    const t = c.topology;
    const where = t
      ? `nvidia-smi topo：${t.kind === 'nvlink' ? '每对 GPU 之间都有 NVLink' : t.kind === 'partial' ? `只有 ${t.nvlinkPairs} 对 GPU 之间有 NVLink` : '只有 PCIe'}`
      : '使用目录中的互联，未采集拓扑';
    return `每步通信 ${seconds(f, c.commSeconds)}，计算 ${seconds(f, c.computeSeconds)}（每块 GPU 经 ${say(LINK_NAMES, 'zh', c.link)} 传输 ${f.bytes(c.commBytes)}；${where}）`;
  },
  hostNeeds: (bytes, f) => `卸载需要每个节点 ${f.bytes(bytes)} 的 CPU 内存`,
  disk: (n, f) =>
    `${n.keep} 个检查点，每个 ${f.bytes(n.checkpointBytes)}（${n.full ? '权重 + 优化器状态' : '适配器 + 其优化器状态'}）${n.dataBytes > 0 ? ` + ${f.bytes(n.dataBytes)} 数据` : ''}`,
  diskMeasured: (d, f) => {
    const save =
      d.saveSeconds === null || d.writeBytesPerSecond === null
        ? '未测量写入速度'
        : `以 ${f.bytes(d.writeBytesPerSecond)}/s 保存一次需要 ${seconds(f, d.saveSeconds)}`;
    return `${ZH.disk(d, f)} = ${f.bytes(d.needBytes)}，${d.path} 上剩余 ${f.bytes(d.freeBytes)}；${save}${d.dataBytes === 0 ? '（未给出数据大小：--dataset-size）' : ''}`;
  },
  interval: (i, f) =>
    `每 ${i.saveEverySteps} 步保存一次 ≈ ${seconds(f, i.lostSeconds)} 的训练有风险（上限 ${seconds(f, i.limitSeconds)}）${i.saveShare === null ? '' : `；保存占用 ${f.percent(i.saveShare)} 的时间`}`,
  upgrade: (saves, f) =>
    saves > 0 ? `在目标机器上 pip install -U "bitsandbytes>=0.43.2"（−${f.bytes(saves)}），或` : '',
  versions: (p, f) =>
    [
      ...p.problems.map((m) => say(VERSION_PROBLEMS, f.lang, m)),
      ...(p.diffs.length > 0
        ? [`不同：${p.diffs.map((d) => say(VERSION_DIFFS, f.lang, d)).join('；')}`]
        : []),
    ].join('；'),
};

export const MIGRATE_CHECKS = defineDomain<MigrateCheckParams>({
  name: 'migrate-checks',
  words: {
    en: {
      'memory-no-target': () => 'the target has neither a GPU in its environment file nor a catalog GPU',
      'memory-fits': (p, f) =>
        `peak ${f.bytesRange(p.estimatedBytes, p.peakBytes)} per GPU ≤ ${f.bytes(p.budgetBytes)} (${f.bytes(p.usableBytes)} on ${EN.on(p.on)}, less the ${f.percent(p.marginFraction)} margin)${EN.paged(p.pagedBytes, f)}${EN.bnb(p.bnb)}`,
      'memory-in-margin': (p, f) =>
        `peak ${f.bytesRange(p.estimatedBytes, p.peakBytes)} fits ${f.bytes(p.usableBytes)} on ${EN.on(p.on)} but leaves ${f.bytes(p.leftBytes)}, inside the ${f.percent(p.marginFraction)} margin: a long batch can run out${EN.paged(p.pagedBytes, f)}${EN.bnb(p.bnb)}`,
      'memory-over': (p, f) =>
        `peak ${f.bytesRange(p.estimatedBytes, p.peakBytes)} per GPU is over the ${f.bytes(p.usableBytes)} of ${EN.on(p.on)} by ${f.bytes(p.overBytes)}${EN.paged(p.pagedBytes, f)}${EN.bnb(p.bnb)}`,
      'host-unknown': (p, f) => `${EN.hostNeeds(p.needBytes, f)}; the target's RAM is unknown`,
      'host-fits': (p, f) => `${EN.hostNeeds(p.needBytes, f)}; the target has ${f.bytes(p.ramBytes)}`,
      'host-tight': (p, f) =>
        `${EN.hostNeeds(p.needBytes, f)}, ${f.percent(p.needBytes / p.ramBytes)} of the target's ${f.bytes(p.ramBytes)}: pinned pages cannot be swapped, and the dataloader workers and the page cache need the rest`,
      'host-over': (p, f) => `${EN.hostNeeds(p.needBytes, f)}; the target has ${f.bytes(p.ramBytes)}`,
      'gpus-enough': (p) => `the scenario uses ${p.need}, the target has ${p.has}`,
      'gpus-too-few': (p) => `the scenario uses ${p.need} GPUs, the target has ${p.has}`,
      'bf16-unknown': () => 'no compute capability and no catalog GPU for the target',
      'bf16-missing': (p) =>
        `${EN.bf16(p.source)} has no bf16 tensor cores (needs ≥ ${p.minComputeCapability.toFixed(1)}): run ${p.fp16} with dynamic loss scaling — fp16 overflows above 65504, so gradients are scaled up and checked for inf each step (torch.amp.GradScaler; DeepSpeed fp16.loss_scale 0); ${p.fp16 === 'fp16-true' ? 'the frozen base can stay 16-bit and the fp32 adapters take the updates, so memory is unchanged' : `trained weights need fp32 masters under fp16${p.precision === 'bf16-true' ? ', which adds memory: re-check the fit' : ''}`}`,
      'bf16-worth-switching': (p) =>
        `${EN.bf16(p.source)} supports bf16: it needs no loss scaling and has fp32's range, worth switching from ${p.precision}`,
      'bf16-supported': (p) => `${EN.bf16(p.source)} has bf16 tensor cores`,
      'bf16-not-needed': (p) => `${p.precision} does not need bf16`,
      'link-single': () => 'one GPU: no collectives',
      'link-unknown': () => 'the target GPU is not in the catalog, so its link bandwidth is unknown',
      'link-pcie-full-shard': (p, f) =>
        `${p.strategy} gathers every weight twice per micro-batch over PCIe: ${EN.comm(p, f)}`,
      'link-comm-bound': (p, f) => `communication outlasts compute: ${EN.comm(p, f)}`,
      'link-ok': (p, f) => EN.comm(p, f),
      'disk-unknown': (p, f) =>
        `needs ${f.bytes(p.needBytes)}: ${EN.disk(p, f)}; no disk figures for ${p.label}`,
      'disk-fits': (p, f) => EN.diskMeasured(p, f),
      'disk-tight': (p, f) => EN.diskMeasured(p, f),
      'disk-over': (p, f) => EN.diskMeasured(p, f),
      'versions-unknown': (p) => `no environment file for ${p.side ?? 'either side'}: versions not compared`,
      'versions-same': () => 'the same on both sides',
      'versions-differ': (p, f) => EN.versions({ problems: [], diffs: p.diffs }, f),
      'versions-broken': (p, f) => EN.versions(p, f),
      'frequency-unknown': () => 'step time unknown (target GPU not in the catalog)',
      'frequency-not-given': (p, f) =>
        `save interval not given; at about ${seconds(f, p.stepSeconds)} per step, saving every ${p.everyMax} steps loses at most ${seconds(f, p.lostSeconds)} to a preemption`,
      'frequency-ok': (p, f) => EN.interval(p, f),
      'frequency-long': (p, f) => EN.interval(p, f),
      'frequency-slow-save': (p, f) => EN.interval(p, f),
    },
    zh: {
      'memory-no-target': () => '目标既没有环境文件中的 GPU，也没有目录中的 GPU',
      'memory-fits': (p, f) =>
        `单卡峰值 ${f.bytesRange(p.estimatedBytes, p.peakBytes)} ≤ ${f.bytes(p.budgetBytes)}（${ZH.on(p.on)} 上的 ${f.bytes(p.usableBytes)}，扣除 ${f.percent(p.marginFraction)} 余量）${ZH.paged(p.pagedBytes, f)}${ZH.bnb(p.bnb)}`,
      'memory-in-margin': (p, f) =>
        `峰值 ${f.bytesRange(p.estimatedBytes, p.peakBytes)} 放得下 ${ZH.on(p.on)} 上的 ${f.bytes(p.usableBytes)}，但只剩 ${f.bytes(p.leftBytes)}，落在 ${f.percent(p.marginFraction)} 余量之内：遇到较长的批次可能会溢出${ZH.paged(p.pagedBytes, f)}${ZH.bnb(p.bnb)}`,
      'memory-over': (p, f) =>
        `单卡峰值 ${f.bytesRange(p.estimatedBytes, p.peakBytes)} 超出 ${ZH.on(p.on)} 的 ${f.bytes(p.usableBytes)} 达 ${f.bytes(p.overBytes)}${ZH.paged(p.pagedBytes, f)}${ZH.bnb(p.bnb)}`,
      'host-unknown': (p, f) => `${ZH.hostNeeds(p.needBytes, f)}；目标机器的内存大小未知`,
      'host-fits': (p, f) => `${ZH.hostNeeds(p.needBytes, f)}；目标机器有 ${f.bytes(p.ramBytes)}`,
      'host-tight': (p, f) =>
        `${ZH.hostNeeds(p.needBytes, f)}，占目标机器 ${f.bytes(p.ramBytes)} 的 ${f.percent(p.needBytes / p.ramBytes)}：锁页内存无法换出，dataloader worker 和页缓存还需要其余部分`,
      'host-over': (p, f) => `${ZH.hostNeeds(p.needBytes, f)}；目标机器只有 ${f.bytes(p.ramBytes)}`,
      'gpus-enough': (p) => `场景使用 ${p.need} 块 GPU，目标机器有 ${p.has} 块`,
      'gpus-too-few': (p) => `场景使用 ${p.need} 块 GPU，目标机器只有 ${p.has} 块`,
      'bf16-unknown': () => '目标机器既没有计算能力信息，也没有目录 GPU',
      'bf16-missing': (p) =>
        `${ZH.bf16(p.source)} 没有 bf16 张量核心（需要 ≥ ${p.minComputeCapability.toFixed(1)}）：改用 ${p.fp16} 并启用动态损失缩放——fp16 超过 65504 会溢出，因此梯度会被放大，并在每一步检查 inf（torch.amp.GradScaler；DeepSpeed fp16.loss_scale 0）；${p.fp16 === 'fp16-true' ? '冻结的基座可以保持 16 位，由 fp32 适配器承接更新，显存不变' : `训练的权重在 fp16 下需要 fp32 主副本${p.precision === 'bf16-true' ? '，会增加显存：请重新检查是否放得下' : ''}`}`,
      'bf16-worth-switching': (p) =>
        `${ZH.bf16(p.source)} 支持 bf16：不需要损失缩放，且与 fp32 的数值范围相同，值得从 ${p.precision} 切换过去`,
      'bf16-supported': (p) => `${ZH.bf16(p.source)} 有 bf16 张量核心`,
      'bf16-not-needed': (p) => `${p.precision} 不需要 bf16`,
      'link-single': () => '单 GPU：没有集合通信',
      'link-unknown': () => '目标 GPU 不在目录中，互联带宽未知',
      'link-pcie-full-shard': (p, f) =>
        `${p.strategy} 每个 micro-batch 都要经 PCIe 把每个权重聚合两次：${ZH.comm(p, f)}`,
      'link-comm-bound': (p, f) => `通信时间超过计算时间：${ZH.comm(p, f)}`,
      'link-ok': (p, f) => ZH.comm(p, f),
      'disk-unknown': (p, f) => `需要 ${f.bytes(p.needBytes)}：${ZH.disk(p, f)}；没有 ${p.label} 的磁盘信息`,
      'disk-fits': (p, f) => ZH.diskMeasured(p, f),
      'disk-tight': (p, f) => ZH.diskMeasured(p, f),
      'disk-over': (p, f) => ZH.diskMeasured(p, f),
      'versions-unknown': (p) => `没有${p.side === null ? '两侧' : ` ${p.side} `}的环境文件：未比较版本`,
      'versions-same': () => '两侧相同',
      'versions-differ': (p, f) => ZH.versions({ problems: [], diffs: p.diffs }, f),
      'versions-broken': (p, f) => ZH.versions(p, f),
      'frequency-unknown': () => '步时未知（目标 GPU 不在目录中）',
      'frequency-not-given': (p, f) =>
        `未给出保存间隔；每步约 ${seconds(f, p.stepSeconds)}，每 ${p.everyMax} 步保存一次，遇到抢占最多损失 ${seconds(f, p.lostSeconds)}`,
      'frequency-ok': (p, f) => ZH.interval(p, f),
      'frequency-long': (p, f) => ZH.interval(p, f),
      'frequency-slow-save': (p, f) => ZH.interval(p, f),
    },
  },
  examples: {
    'memory-no-target': {},
    'memory-fits': {
      estimatedBytes: 10e9,
      peakBytes: 11e9,
      budgetBytes: 13.5 * 2 ** 30,
      usableBytes: 15 * 2 ** 30,
      on: { kind: 'catalog', name: 'NVIDIA Tesla T4 16GB' },
      marginFraction: 0.1,
      pagedBytes: 2 ** 34,
      bnb: { change: 'dropped', version: '0.45.0', label: 'b.json' },
    },
    'memory-in-margin': {
      estimatedBytes: 21e9,
      peakBytes: 23e9,
      usableBytes: 24e9,
      leftBytes: 1e9,
      on: { kind: 'mig', name: 'NVIDIA H100 80GB HBM3' },
      marginFraction: 0.1,
      pagedBytes: 0,
      bnb: null,
    },
    'memory-over': {
      estimatedBytes: 55e9,
      peakBytes: 60e9,
      usableBytes: 24e9,
      overBytes: 36e9,
      on: { kind: 'gpu', name: 'NVIDIA GeForce RTX 4090' },
      pagedBytes: 0,
      bnb: { change: 'kept', version: '0.42.0', label: 'b.json' },
    },
    'host-unknown': { needBytes: 2 ** 33 },
    'host-fits': { needBytes: 2 ** 33, ramBytes: 2 ** 36 },
    'host-tight': { needBytes: 2 ** 33, ramBytes: 12 * 2 ** 30 },
    'host-over': { needBytes: 2 ** 33, ramBytes: 6 * 2 ** 30 },
    'gpus-enough': { need: 8, has: 8 },
    'gpus-too-few': { need: 8, has: 1 },
    'bf16-unknown': {},
    'bf16-missing': {
      source: { kind: 'compute-capability', computeCapability: 7.5 },
      minComputeCapability: 8,
      fp16: 'fp16-mixed',
      precision: 'bf16-true',
    },
    'bf16-worth-switching': { source: { kind: 'catalog', gpu: 'h100-sxm' }, precision: 'fp16-mixed' },
    'bf16-supported': { source: { kind: 'compute-capability', computeCapability: 9 } },
    'bf16-not-needed': { precision: 'fp32' },
    'link-single': {},
    'link-unknown': {},
    'link-pcie-full-shard': {
      strategy: 'zero3',
      commSeconds: 12,
      computeSeconds: 4,
      commBytes: 2 ** 34,
      link: { code: 'pcie', params: { gen: 4, lanes: 16 } },
      topology: { kind: 'pcie', nvlinkPairs: 0 },
    },
    'link-comm-bound': {
      commSeconds: 5,
      computeSeconds: 4,
      commBytes: 2 ** 33,
      link: { code: 'pcie', params: { gen: 4, lanes: 16 } },
      topology: { kind: 'partial', nvlinkPairs: 2 },
    },
    'link-ok': {
      commSeconds: 0.5,
      computeSeconds: 4,
      commBytes: 2 ** 33,
      link: { code: 'fabric', params: { type: 'NVLink', perDirectionGBs: 450 } },
      topology: null,
    },
    'disk-unknown': {
      keep: 2,
      checkpointBytes: 78 * 2 ** 20,
      full: false,
      dataBytes: 0,
      needBytes: 156 * 2 ** 20,
      label: 't4',
    },
    'disk-fits': {
      keep: 1,
      checkpointBytes: 48e9,
      full: true,
      dataBytes: 20e9,
      needBytes: 68e9,
      freeBytes: 2e12,
      path: '/data',
      writeBytesPerSecond: 1e9,
      saveSeconds: 48,
    },
    'disk-tight': {
      keep: 2,
      checkpointBytes: 30e9,
      full: true,
      dataBytes: 0,
      needBytes: 60e9,
      freeBytes: 70e9,
      path: '/data',
      writeBytesPerSecond: null,
      saveSeconds: null,
    },
    'disk-over': {
      keep: 2,
      checkpointBytes: 48e9,
      full: true,
      dataBytes: 20e9,
      needBytes: 116e9,
      freeBytes: 100e9,
      path: '/data',
      writeBytesPerSecond: 500e6,
      saveSeconds: 96,
    },
    'versions-unknown': { side: null },
    'versions-same': {},
    'versions-differ': {
      diffs: [{ code: 'package', params: { name: 'transformers', from: '4.46.0', to: '4.44.2' } }],
    },
    'versions-broken': {
      problems: [{ code: 'not-installed', params: { packages: ['flash-attn'], label: 'b.json' } }],
      diffs: [{ code: 'package', params: { name: 'flash-attn', from: '2.6.3', to: null } }],
    },
    'frequency-unknown': {},
    'frequency-not-given': { stepSeconds: 4, everyMax: 450, lostSeconds: 1800, limitSeconds: 1800 },
    'frequency-ok': { saveEverySteps: 200, lostSeconds: 800, limitSeconds: 1800, saveShare: 0.01 },
    'frequency-long': { saveEverySteps: 5000, lostSeconds: 20_000, limitSeconds: 1800, saveShare: null },
    'frequency-slow-save': { saveEverySteps: 10, lostSeconds: 40, limitSeconds: 1800, saveShare: 0.55 },
  },
});

export const MIGRATE_ACTIONS = defineDomain<MigrateActionParams>({
  name: 'migrate-actions',
  words: {
    en: {
      'pass-to-gpu': () => 'pass --to-gpu ID (headroom gpus lists them)',
      'restore-margin': (p, f) =>
        `${EN.upgrade(p.upgradeSavesBytes, f)}headroom plan … --gpu for changes that restore the margin`,
      'cheapest-fit': (p, f) =>
        `${EN.upgrade(p.upgradeSavesBytes, f)}headroom plan … --gpu ${p.gpu ?? 'ID'} finds the cheapest change that fits`,
      'capture-target-ram': () => 'headroom env capture on the target records it',
      'offload-less-or-more-ram': () =>
        'offload less (headroom plan … --gpu shows the rungs before offload), or a machine with more RAM',
      'fewer-workers': () => 'fewer dataloader workers, or offload less',
      'replan-gpus': (p) =>
        `headroom plan … --gpus ${p.gpus} to re-plan for ${p.gpus} GPU${p.gpus > 1 ? 's' : ''}`,
      'use-fp16': (p) =>
        `--precision ${p.precision}, then re-check: headroom migrate … --precision ${p.precision}`,
      'closest-catalog-gpu': () => 'pass --to-gpu ID for the closest catalog GPU',
      'prefer-zero2': () =>
        'prefer ZeRO-2 / FSDP SHARD_GRAD_OP if memory allows, larger micro-batches, or NVLink machines',
      'more-tokens-per-step': () => 'more tokens per micro-batch, gradient accumulation, or a faster link',
      'capture-target-disk': () =>
        'capture the target: headroom env capture --dir /path/to/checkpoints -o target.json',
      'fewer-checkpoints': () =>
        'keep fewer checkpoints (save_total_limit), save adapters only, or a larger disk',
      'capture-each': () => 'headroom env capture -o env.json on each machine',
      'pin-versions': () =>
        'pin the source versions on the target (pip install torch==… transformers==…) or run the smoke test first',
      'give-save-steps': (p) => `--save-steps N to check your setting (save_steps ≤ ${p.everyMax})`,
      'save-steps-max': (p) => `save_steps ≤ ${p.everyMax}`,
      'save-less-often': () => 'save less often, or to faster storage',
    },
    zh: {
      'pass-to-gpu': () => '用 --to-gpu ID 指定 GPU（headroom gpus 列出可选项）',
      'restore-margin': (p, f) =>
        `${ZH.upgrade(p.upgradeSavesBytes, f)}用 headroom plan … --gpu 找出恢复余量的调整`,
      'cheapest-fit': (p, f) =>
        `${ZH.upgrade(p.upgradeSavesBytes, f)}用 headroom plan … --gpu ${p.gpu ?? 'ID'} 找出放得下的最低代价调整`,
      'capture-target-ram': () => '在目标机器上运行 headroom env capture 记录其内存大小',
      'offload-less-or-more-ram': () =>
        '减少卸载（headroom plan … --gpu 会列出卸载之前的调整方案），或换一台内存更大的机器',
      'fewer-workers': () => '减少 dataloader worker，或减少卸载',
      'replan-gpus': (p) => `用 headroom plan … --gpus ${p.gpus} 按 ${p.gpus} 块 GPU 重新规划`,
      'use-fp16': (p) =>
        `改用 --precision ${p.precision}，然后重新检查：headroom migrate … --precision ${p.precision}`,
      'closest-catalog-gpu': () => '用 --to-gpu ID 指定目录中最接近的 GPU',
      'prefer-zero2': () =>
        '显存允许时改用 ZeRO-2 / FSDP SHARD_GRAD_OP，增大 micro-batch，或换用 NVLink 机器',
      'more-tokens-per-step': () => '增加每个 micro-batch 的 token 数、使用梯度累积，或换用更快的互联',
      'capture-target-disk': () =>
        '采集目标机器：headroom env capture --dir /path/to/checkpoints -o target.json',
      'fewer-checkpoints': () => '少保留几个检查点（save_total_limit）、只保存适配器，或换更大的磁盘',
      'capture-each': () => '在每台机器上运行 headroom env capture -o env.json',
      'pin-versions': () =>
        '在目标机器上固定源机器的版本（pip install torch==… transformers==…），或先做冒烟测试',
      'give-save-steps': (p) => `用 --save-steps N 检查你的设置（save_steps ≤ ${p.everyMax}）`,
      'save-steps-max': (p) => `把 save_steps 设为 ≤ ${p.everyMax}`,
      'save-less-often': () => '降低保存频率，或保存到更快的存储',
    },
  },
  examples: {
    'pass-to-gpu': {},
    'restore-margin': { upgradeSavesBytes: 0 },
    'cheapest-fit': { upgradeSavesBytes: 2 ** 31, gpu: 'rtx-4090' },
    'capture-target-ram': {},
    'offload-less-or-more-ram': {},
    'fewer-workers': {},
    'replan-gpus': { gpus: 1 },
    'use-fp16': { precision: 'fp16-true' },
    'closest-catalog-gpu': {},
    'prefer-zero2': {},
    'more-tokens-per-step': {},
    'capture-target-disk': {},
    'fewer-checkpoints': {},
    'capture-each': {},
    'pin-versions': {},
    'give-save-steps': { everyMax: 452 },
    'save-steps-max': { everyMax: 452 },
    'save-less-often': {},
  },
});

/** An item's words: its check's title, its reason, and what to do (null when there is nothing). */
export interface CheckWords {
  readonly title: string;
  readonly reason: string;
  readonly action: string | null;
}

/**
 * The words of one checklist item in a language.
 * @example checkWords('zh', report.items[0]).reason
 */
export function checkWords(lang: Lang, item: CheckItem): CheckWords {
  return {
    title: say(MIGRATE_CHECK_TITLES, lang, { code: item.id, params: {} }),
    reason: say(MIGRATE_CHECKS, lang, item),
    action: item.action ? say(MIGRATE_ACTIONS, lang, item.action) : null,
  };
}
