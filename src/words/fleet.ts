/** The words of the fleet's findings (src/core/fleet/fleet.ts), in English and Chinese. */
import type { CardRef, FleetFindingParams } from '../core/fleet/fleet.js';
import { defineDomain } from './catalog.js';

const cardEn = (p: CardRef) =>
  `${p.host ?? 'an unnamed host'} GPU ${p.gpu ?? '?'}${p.uuid === null ? '' : ` (${p.uuid})`}`;
/** Ends in its full-width bracket, or in a space before the CJK text that follows a bare index. */
const cardZh = (p: CardRef) =>
  `${p.host ?? '未命名主机'} 的 GPU ${p.gpu ?? '?'}${p.uuid === null ? ' ' : `（${p.uuid}）`}`;

export const FLEET_FINDINGS = defineDomain<FleetFindingParams>({
  name: 'fleet',
  words: {
    en: {
      'full-no-run': (p, f) =>
        `${cardEn(p)} is ${f.percent(p.usedBytes / p.totalBytes)} full (${f.bytes(p.usedBytes)} of ${f.bytes(p.totalBytes)}) and no running Headroom run is on it: a leftover job, or one started without headroom run. Find its process on that host (nvidia-smi) before placing work there`,
      'above-siblings': (p, f) =>
        `${cardEn(p)} of run ${p.name ?? p.run} holds ${f.bytes(p.usedBytes)}, ${f.bytes(p.usedBytes - p.medianBytes)} above the median of its ${p.cards} cards (${f.bytes(p.medianBytes)}; the limit is ${f.bytes(p.thresholdBytes)} above it): one rank carries more than the others (uneven batches, rank 0's extras) or another process shares that card`,
      unaccounted: (p, f) =>
        `${cardEn(p)} has ${f.bytes(p.usedBytes)} used, ${f.bytes(p.unaccountedBytes)} more than the Headroom ranks on it hold (${f.bytes(p.accountedBytes)}): another process is on the card, a leftover or a second job sharing it`,
    },
    zh: {
      'full-no-run': (p, f) =>
        `${cardZh(p)}已用 ${f.percent(p.usedBytes / p.totalBytes)}（${f.bytes(p.totalBytes)} 中的 ${f.bytes(p.usedBytes)}），且上面没有正在运行的 Headroom 任务：可能是残留的作业，或未经 headroom run 启动的作业。往这张卡上安排任务之前，先在该主机上找出占用它的进程（nvidia-smi）`,
      'above-siblings': (p, f) =>
        `任务 ${p.name ?? p.run} 的 ${cardZh(p)}占用 ${f.bytes(p.usedBytes)}，比其 ${p.cards} 张卡的中位数（${f.bytes(p.medianBytes)}）高出 ${f.bytes(p.usedBytes - p.medianBytes)}（阈值为高出 ${f.bytes(p.thresholdBytes)}）：某个 rank 比其他 rank 占用更多（批次不均、rank 0 的额外开销），或有其他进程共用这张卡`,
      unaccounted: (p, f) =>
        `${cardZh(p)}已用 ${f.bytes(p.usedBytes)}，比其上 Headroom 各 rank 占用的总和（${f.bytes(p.accountedBytes)}）多出 ${f.bytes(p.unaccountedBytes)}：这张卡上还有别的进程，可能是残留进程，或共用此卡的另一个作业`,
    },
  },
  examples: {
    'full-no-run': {
      host: 'gpu-node-b',
      gpu: 0,
      uuid: 'GPU-b0000000-0000-0000-0000-000000000000',
      usedBytes: 79 * 2 ** 30,
      totalBytes: 80 * 2 ** 30,
    },
    'above-siblings': {
      host: 'gpu-node-a',
      gpu: 3,
      uuid: null,
      run: '7',
      name: 'sft-8b',
      usedBytes: 60 * 2 ** 30,
      medianBytes: 30 * 2 ** 30,
      thresholdBytes: 16 * 2 ** 30,
      cards: 8,
    },
    unaccounted: {
      host: null,
      gpu: 5,
      uuid: 'GPU-a0000000-0000-0000-0000-000000000005',
      usedBytes: 40 * 2 ** 30,
      accountedBytes: 30 * 2 ** 30,
      unaccountedBytes: 10 * 2 ** 30,
      totalBytes: 80 * 2 ** 30,
    },
  },
});
