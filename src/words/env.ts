/**
 * The words of environment snapshots (src/core/env.ts), in English and Chinese: why a part could not
 * be captured (`env-missing`; the English is also the `reason` every file carries), and the lines of
 * `headroom env show` (`env`).
 */
import { type EnvMissing, type EnvMissingParams, envMissingWhy } from '../core/env.js';
import type { NoParams } from '../core/message.js';
import { defineDomain, say } from './catalog.js';
import type { Lang } from './lang.js';

export const ENV_MISSING = defineDomain<EnvMissingParams>({
  name: 'env-missing',
  words: {
    en: {
      'not-installed': (p) => `${p.command} is not installed (not on PATH)`,
      'timed-out': (p) => `${[p.command, ...p.args].join(' ')} did not answer within ${p.seconds} s`,
      failed: (p) => `${[p.command, ...p.args].join(' ')} failed: ${p.output}`,
      'no-gpus': () => 'nvidia-smi lists no GPU',
      'no-driver-version': () => 'nvidia-smi printed no driver or CUDA version',
      'no-topology': () => 'nvidia-smi topo -m printed no GPU matrix',
      'no-package-versions': () => 'python3 printed no package versions',
      'disk-unreadable': (p) => `cannot read free space of ${p.path}: ${p.error}`,
    },
    zh: {
      'not-installed': (p) => `${p.command} 未安装（不在 PATH 中）`,
      'timed-out': (p) => `${[p.command, ...p.args].join(' ')} 在 ${p.seconds} 秒内没有响应`,
      failed: (p) => `${[p.command, ...p.args].join(' ')} 运行失败：${p.output}`,
      'no-gpus': () => 'nvidia-smi 没有列出任何 GPU',
      'no-driver-version': () => 'nvidia-smi 没有输出驱动或 CUDA 版本',
      'no-topology': () => 'nvidia-smi topo -m 没有输出 GPU 矩阵',
      'no-package-versions': () => 'python3 没有输出软件包版本',
      'disk-unreadable': (p) => `无法读取 ${p.path} 的剩余空间：${p.error}`,
    },
  },
  examples: {
    'not-installed': { command: 'nvidia-smi' },
    'timed-out': { command: 'nvidia-smi', args: ['topo', '-m'], seconds: 20 },
    failed: { command: 'nvidia-smi', args: ['topo', '-m'], output: 'topo is not supported on this system' },
    'no-gpus': {},
    'no-driver-version': {},
    'no-topology': {},
    'no-package-versions': {},
    'disk-unreadable': { path: '/nonexistent/headroom/dir', error: 'ENOENT' },
  },
});

/**
 * Why a part is missing, in a language: from its code when the file has one, else the English reason
 * it was written with (files from before codes).
 */
export function envMissingText(lang: Lang, part: EnvMissing): string {
  const why = envMissingWhy(part);
  return why ? say(ENV_MISSING, lang, why) : part.reason;
}

/** The params of the lines of `headroom env show`. */
export interface EnvWordParams {
  readonly header: {
    readonly hostname: string;
    readonly platform: string;
    readonly arch: string;
    readonly cpus: number;
    readonly memoryBytes: number;
  };
  readonly captured: { readonly at: string };
  readonly 'label-gpus': NoParams;
  readonly 'label-driver': NoParams;
  readonly 'label-interconnect': NoParams;
  readonly 'label-frameworks': NoParams;
  readonly 'label-disk': NoParams;
  readonly missing: { readonly part: EnvMissing };
  readonly compute: { readonly computeCapability: string | null };
  /** MIG on, with the memory of each instance (empty: unknown). */
  readonly 'mig-on': { readonly instancesBytes: readonly number[] };
  readonly 'mig-off': NoParams;
  readonly 'topo-single': NoParams;
  readonly 'topo-nvlink': { readonly gpus: number };
  readonly 'topo-partial': { readonly nvlinkPairs: number; readonly pairs: number };
  readonly 'topo-pcie': { readonly gpus: number };
  readonly disk: {
    readonly path: string;
    readonly freeBytes: number;
    readonly totalBytes: number;
    readonly writeBytesPerSecond: number | null;
  };
  readonly 'written-to': { readonly path: string };
}

export const ENV_WORDS = defineDomain<EnvWordParams>({
  name: 'env',
  words: {
    en: {
      header: (p, f) =>
        `environment of ${p.hostname} (${p.platform} ${p.arch}, ${p.cpus} CPUs, ${f.bytes(p.memoryBytes)} RAM)`,
      captured: (p) => `captured ${p.at}`,
      'label-gpus': () => 'GPUs',
      'label-driver': () => 'driver',
      'label-interconnect': () => 'interconnect',
      'label-frameworks': () => 'frameworks',
      'label-disk': () => 'disk',
      missing: (p, f) => `missing — ${envMissingText(f.lang, p.part)}`,
      compute: (p) => `compute ${p.computeCapability ?? '?'}`,
      'mig-on': (p, f) => `on (${p.instancesBytes.map((b) => f.bytes(b)).join(', ') || 'instances unknown'})`,
      'mig-off': () => 'off',
      'topo-single': () => 'one GPU',
      'topo-nvlink': (p) => `NVLink between all ${p.gpus} GPUs`,
      'topo-partial': (p) => `NVLink on ${p.nvlinkPairs} of ${p.pairs} GPU pairs, PCIe for the rest`,
      'topo-pcie': (p) => `PCIe only between ${p.gpus} GPUs`,
      disk: (p, f) =>
        `${p.path} · ${f.bytes(p.freeBytes)} free of ${f.bytes(p.totalBytes)}${p.writeBytesPerSecond ? ` · writes ${f.bytes(p.writeBytesPerSecond)}/s` : ''}`,
      'written-to': (p) => `written to ${p.path}`,
    },
    zh: {
      header: (p, f) =>
        `${p.hostname} 的环境（${p.platform} ${p.arch}，${p.cpus} 个 CPU，内存 ${f.bytes(p.memoryBytes)}）`,
      captured: (p) => `采集于 ${p.at}`,
      'label-gpus': () => 'GPU',
      'label-driver': () => '驱动',
      'label-interconnect': () => '互联',
      'label-frameworks': () => '框架',
      'label-disk': () => '磁盘',
      missing: (p, f) => `缺失——${envMissingText(f.lang, p.part)}`,
      compute: (p) => `计算能力 ${p.computeCapability ?? '?'}`,
      'mig-on': (p, f) => `开启（${p.instancesBytes.map((b) => f.bytes(b)).join('、') || '实例未知'}）`,
      'mig-off': () => '关闭',
      'topo-single': () => '单 GPU',
      'topo-nvlink': (p) => `全部 ${p.gpus} 块 GPU 之间均为 NVLink`,
      'topo-partial': (p) => `${p.pairs} 对 GPU 中有 ${p.nvlinkPairs} 对走 NVLink，其余走 PCIe`,
      'topo-pcie': (p) => `${p.gpus} 块 GPU 之间只有 PCIe`,
      disk: (p, f) =>
        `${p.path} · 共 ${f.bytes(p.totalBytes)}，剩余 ${f.bytes(p.freeBytes)}${p.writeBytesPerSecond ? ` · 写入 ${f.bytes(p.writeBytesPerSecond)}/s` : ''}`,
      'written-to': (p) => `已写入 ${p.path}`,
    },
  },
  examples: {
    header: { hostname: 'gpu-box', platform: 'linux', arch: 'x64', cpus: 64, memoryBytes: 512 * 2 ** 30 },
    captured: { at: '2026-07-01T00:00:00.000Z' },
    'label-gpus': {},
    'label-driver': {},
    'label-interconnect': {},
    'label-frameworks': {},
    'label-disk': {},
    missing: {
      part: {
        status: 'missing',
        reason: 'nvidia-smi is not installed (not on PATH)',
        code: 'not-installed',
        params: { command: 'nvidia-smi' },
      },
    },
    compute: { computeCapability: '9.0' },
    'mig-on': { instancesBytes: [40448 * 2 ** 20, 20096 * 2 ** 20] },
    'mig-off': {},
    'topo-single': {},
    'topo-nvlink': { gpus: 8 },
    'topo-partial': { nvlinkPairs: 2, pairs: 6 },
    'topo-pcie': { gpus: 4 },
    disk: { path: '/data', freeBytes: 2e12, totalBytes: 4e12, writeBytesPerSecond: 1e9 },
    'written-to': { path: 'h200.json' },
  },
});
