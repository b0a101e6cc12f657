/**
 * The words of the time model's notes and of the links it times collectives over
 * (src/core/time-model.ts: StepTimeNoteParams, LinkNameParams), in English and Chinese.
 */
import type { LinkNameParams, StepTimeNoteParams } from '../core/time-model.js';
import { defineDomain, say } from './catalog.js';

export const LINK_NAMES = defineDomain<LinkNameParams>({
  name: 'link-names',
  words: {
    en: {
      'one-gpu': () => 'one GPU',
      pcie: (p) => `PCIe gen ${p.gen} x${p.lanes}`,
      fabric: (p) => `${p.type}, ${p.perDirectionGBs} GB/s per direction`,
      network: (p) => `across ${p.nodes} nodes at ${p.perGpuGBs} GB/s per GPU`,
    },
    zh: {
      'one-gpu': () => '单块 GPU',
      pcie: (p) => `PCIe 第 ${p.gen} 代 x${p.lanes}`,
      fabric: (p) => `${p.type}，每个方向 ${p.perDirectionGBs} GB/s`,
      network: (p) => `跨 ${p.nodes} 个节点，每块 GPU ${p.perGpuGBs} GB/s`,
    },
  },
  examples: {
    'one-gpu': {},
    pcie: { gen: 4, lanes: 16 },
    fabric: { type: 'NVLink', perDirectionGBs: 450 },
    network: { nodes: 2, perGpuGBs: 25 },
  },
});

/** Paged states as the time model has always written them: GiB to one decimal. */
const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

export const TIME_NOTES = defineDomain<StepTimeNoteParams>({
  name: 'time-notes',
  words: {
    en: {
      'no-throughput': (p) => `${p.gpu} has no dense throughput in the catalog: times are not meaningful`,
      'no-bf16': (p) => `${p.gpu} has no bf16 tensor cores: timed at its fp16 rate`,
      'paged-over-pcie': (p) =>
        `${gib(p.bytes)} of paged optimizer states do not fit on the GPU and move over PCIe every step`,
      'communication-bound': (p) =>
        `communication (${p.commSeconds.toFixed(2)} s per step over ${say(LINK_NAMES, 'en', p.link)}) is longer than compute`,
    },
    zh: {
      'no-throughput': (p) => `目录中没有 ${p.gpu} 的稠密算力：时间没有意义`,
      'no-bf16': (p) => `${p.gpu} 没有 bf16 张量核心：按其 fp16 速率计时`,
      'paged-over-pcie': (p) => `${gib(p.bytes)} 分页优化器状态放不进 GPU，每一步都要经 PCIe 换入换出`,
      'communication-bound': (p) =>
        `通信（每步 ${p.commSeconds.toFixed(2)} s，经 ${say(LINK_NAMES, 'zh', p.link)}）比计算更久`,
    },
  },
  examples: {
    'no-throughput': { gpu: 'mi50' },
    'no-bf16': { gpu: 't4' },
    'paged-over-pcie': { bytes: 6.2 * 2 ** 30 },
    'communication-bound': { commSeconds: 1.25, link: { code: 'pcie', params: { gen: 4, lanes: 16 } } },
  },
});
