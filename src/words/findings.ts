/**
 * The title of each diagnosis finding (src/core/diagnose/finding.ts: a code and raw params), in English
 * and Simplified Chinese; finding-actions.ts holds what to do about each. Technical terms follow common
 * usage in Chinese ML writing (显存, 激活值, 梯度检查点, 优化器状态, 碎片化, 卸载 for offload); names of
 * APIs, flags and environment variables stay as written.
 */
import type { FindingParams } from '../core/diagnose/finding.js';
import { defineDomain, type Words } from './catalog.js';
import type { Format } from './format.js';

/** The cards a finding names: "0", "0, 1"; "?" when the message does not say. */
export const gpuList = (gpus: readonly number[]): string => (gpus.length === 0 ? '?' : gpus.join(', '));

/** A size, or "?" when it is not known. */
export const orUnknown = (bytes: number | null, f: Format): string => (bytes === null ? '?' : f.bytes(bytes));

const EN: Words<FindingParams> = {
  'no-oom-message': () => 'No out-of-memory message in this text',
  'not-an-oom': (p) => `Not an out-of-memory error: ${p.error}`,
  'other-processes': (p, f) =>
    `${p.count} other process${p.count === 1 ? ' holds' : 'es hold'} ${f.bytes(p.bytes)} on GPU ${gpuList(p.gpus)}`,
  'own-process-in-container': (p) => `"Process ${p.pid}" is most likely this process, seen from a container`,
  'leftover-process': () =>
    'Another process holds memory on this GPU: a leftover of an earlier run, or another job',
  'memory-outside-process': (p, f) =>
    `${f.bytes(p.bytes)} in use on the card that no listed process accounts for`,
  'free-exceeds-request': (p, f) =>
    `The card reported ${f.bytes(p.freeBytes)} free, more than the ${orUnknown(p.requestedBytes, f)} requested`,
  'numberless-oom': (p) =>
    p.family === 'nccl'
      ? 'NCCL ran out of GPU memory (no figures in the message)'
      : p.family === 'bitsandbytes'
        ? 'bitsandbytes ran out of GPU memory (no figures in the message)'
        : 'CUDA out of memory outside PyTorch’s allocator (no figures in the message)',
  'framework-preallocation': (p) =>
    p.framework === 'xla'
      ? 'XLA preallocates most of the card'
      : 'TensorFlow takes the whole card by default',
  'request-exceeds-card': (p, f) =>
    p.unbounded
      ? 'A request of more than 1 EB: a corrupted size, not memory pressure'
      : `One request of ${orUnknown(p.requestedBytes, f)} on a ${orUnknown(p.totalBytes, f)} card: a shape bug, not memory pressure`,
  'allocated-exceeds-card': (p, f) =>
    `PyTorch reports ${f.bytes(p.allocatedBytes)} allocated on a ${orUnknown(p.totalBytes, f)} card`,
  'host-memory': () => 'Host memory (CPU RAM) ran out, not GPU memory',
  'second-model-copy': () => 'A second copy of the model on the same card',
  'old-bitsandbytes': (p) =>
    `${p.version ? `bitsandbytes ${p.version}` : 'A bitsandbytes before 0.43.2'} keeps every 4-bit layer’s input`,
  'weights-at-load': () => 'It failed while loading the model: the weights do not fit',
  activations: (p) => `It failed in the ${p.phase} pass: the activations do not fit`,
  'optimizer-states': () => 'It failed in the optimizer step: the optimizer states do not fit',
  'rank-imbalance': (p, f) => {
    if (p.rank === null) return 'One GPU holds more than the others';
    const more = p.aboveBytes === null ? 'more' : `${f.bytes(p.aboveBytes)} more`;
    switch (p.reason) {
      case 'uneven-shards':
        return `Rank ${p.rank} holds ${more} than the others at every step, from the first: uneven shards`;
      case 'eval-on-rank':
        return `Rank ${p.rank} holds ${more} than the others: its peak is an evaluation that only rank ${p.rank} runs`;
      case 'length-split':
        return `Rank ${p.rank} holds ${more} than the others: its batches are longer (the data is split by length, and each rank’s peak moves on its own)`;
      case 'extra-contexts':
        return `Rank ${p.rank}’s card holds ${more} outside PyTorch than the others’: about ${p.contexts ?? '?'} CUDA context${p.contexts === 1 ? '' : 's'} of other ranks`;
      default:
        return `Rank ${p.rank} holds ${more} than the others`;
    }
  },
  'evaluation-memory': () => 'It failed during evaluation',
  'checkpoint-save': () => 'It failed while saving a checkpoint',
  'mid-run': () => 'It failed after the run had been going for a while',
  'phase-unknown': () => 'The text does not say where in the run it failed',
  leak: (p) => `Allocated memory grows step after step (rank ${p.rank}, GPU ${p.device})`,
  'eval-growth': () => 'Memory grows from one evaluation batch to the next',
  fragmentation: (p, f) =>
    p.cachedBytes === null
      ? 'Reserved memory climbs while allocated memory stays flat: fragmentation'
      : `${orUnknown(p.cachedBytes, f)} reserved by PyTorch but unusable: fragmentation`,
  'stable-full': () => 'The card looks full in nvidia-smi, and that is normal here',
  'alloc-retries': (p) =>
    `The allocator had to flush its cache and retry ${p.count} times (num_alloc_retries)`,
};

const ZH: Words<FindingParams> = {
  'no-oom-message': () => '这段文本中没有显存不足（OOM）的报错信息',
  'not-an-oom': (p) => `不是显存不足错误：${p.error}`,
  'other-processes': (p, f) => `GPU ${gpuList(p.gpus)} 上有 ${p.count} 个其他进程占用了 ${f.bytes(p.bytes)}`,
  'own-process-in-container': (p) => `“Process ${p.pid}”很可能就是本进程（从容器内看到的）`,
  'leftover-process': () => '另一个进程占用了这张 GPU 的显存：之前运行残留的进程，或另一个作业',
  'memory-outside-process': (p, f) => `卡上有 ${f.bytes(p.bytes)} 已被占用，但列出的进程都无法解释`,
  'free-exceeds-request': (p, f) =>
    `显卡报告的空闲显存（${f.bytes(p.freeBytes)}）大于请求的 ${orUnknown(p.requestedBytes, f)}`,
  'numberless-oom': (p) =>
    p.family === 'nccl'
      ? 'NCCL 显存不足（报错中没有具体数字）'
      : p.family === 'bitsandbytes'
        ? 'bitsandbytes 显存不足（报错中没有具体数字）'
        : 'PyTorch 分配器之外的 CUDA 显存不足（报错中没有具体数字）',
  'framework-preallocation': (p) =>
    p.framework === 'xla' ? 'XLA 预先占用了显卡的大部分显存' : 'TensorFlow 默认占用整张显卡',
  'request-exceeds-card': (p, f) =>
    p.unbounded
      ? '单次请求超过 1 EB：这是损坏的大小，不是显存压力'
      : `在 ${orUnknown(p.totalBytes, f)} 的显卡上单次请求 ${orUnknown(p.requestedBytes, f)}：这是张量形状的错误，不是显存压力`,
  'allocated-exceeds-card': (p, f) =>
    `PyTorch 报告在 ${orUnknown(p.totalBytes, f)} 的显卡上已分配 ${f.bytes(p.allocatedBytes)}`,
  'host-memory': () => '主机内存（CPU RAM）不足，不是显存不足',
  'second-model-copy': () => '同一张卡上有第二份模型副本',
  'old-bitsandbytes': (p) =>
    `${p.version ? `bitsandbytes ${p.version}` : '0.43.2 之前的 bitsandbytes'} 让每个 4 位层都保留其输入`,
  'weights-at-load': () => '在加载模型时失败：权重放不下',
  activations: (p) => `在${p.phase === 'forward' ? '前向' : '反向'}传播中失败：激活值放不下`,
  'optimizer-states': () => '在优化器步骤中失败：优化器状态放不下',
  'rank-imbalance': (p, f) => {
    if (p.rank === null) return '某一张 GPU 占用的显存比其他卡多';
    const more = p.aboveBytes === null ? '更多显存' : `多 ${f.bytes(p.aboveBytes)}`;
    switch (p.reason) {
      case 'uneven-shards':
        return `rank ${p.rank} 从第一步起每一步都比其他 rank ${more}：分片不均`;
      case 'eval-on-rank':
        return `rank ${p.rank} 比其他 rank ${more}：它的峰值出现在只有 rank ${p.rank} 运行的评估中`;
      case 'length-split':
        return `rank ${p.rank} 比其他 rank ${more}：它的 batch 更长（数据按长度划分，各 rank 的峰值各自起落）`;
      case 'extra-contexts':
        return `rank ${p.rank} 的显卡上 PyTorch 之外的占用比其他卡${more}：约有 ${p.contexts ?? '?'} 个其他 rank 的 CUDA 上下文`;
      default:
        return `rank ${p.rank} 比其他 rank ${more}`;
    }
  },
  'evaluation-memory': () => '在评估阶段失败',
  'checkpoint-save': () => '在保存检查点时失败',
  'mid-run': () => '运行一段时间之后才失败',
  'phase-unknown': () => '文本中没有说明运行在哪个阶段失败',
  leak: (p) => `已分配显存逐步增长（rank ${p.rank}，GPU ${p.device}）`,
  'eval-growth': () => '显存在评估的一个 batch 到下一个 batch 之间持续增长',
  fragmentation: (p, f) =>
    p.cachedBytes === null
      ? '预留显存不断攀升而已分配显存保持不变：碎片化'
      : `${orUnknown(p.cachedBytes, f)} 被 PyTorch 预留却无法使用：碎片化`,
  'stable-full': () => '显卡在 nvidia-smi 中看起来已满，但这里属于正常现象',
  'alloc-retries': (p) => `分配器不得不清空缓存并重试了 ${p.count} 次（num_alloc_retries）`,
};

/** One example of each finding's params: the catalog's test renders every title and action with them. */
export const FINDING_EXAMPLES: { readonly [C in keyof FindingParams]: FindingParams[C] } = {
  'no-oom-message': {},
  'not-an-oom': { error: 'CUDA error: an illegal memory access was encountered', kind: 'cuda' },
  'other-processes': { count: 2, bytes: 3 * 2 ** 30, gpus: [0] },
  'own-process-in-container': { pid: 562167, bytes: 16374562816 },
  'leftover-process': {},
  'memory-outside-process': { bytes: 10 * 2 ** 30 },
  'free-exceeds-request': { freeBytes: 2 * 2 ** 30, requestedBytes: 20 * 2 ** 20 },
  'numberless-oom': { family: 'nccl' },
  'framework-preallocation': { framework: 'xla' },
  'request-exceeds-card': { requestedBytes: 90 * 2 ** 30, totalBytes: 80 * 2 ** 30, unbounded: false },
  'allocated-exceeds-card': { allocatedBytes: 25 * 2 ** 30, totalBytes: 24 * 2 ** 30 },
  'host-memory': { kind: 'dataloader' },
  'second-model-copy': {},
  'old-bitsandbytes': { version: '0.42.0' },
  'weights-at-load': {},
  activations: { phase: 'backward' },
  'optimizer-states': {},
  'rank-imbalance': { rank: 1, reason: 'uneven-shards', aboveBytes: 2 * 2 ** 30, contexts: null },
  'evaluation-memory': {},
  'checkpoint-save': {},
  'mid-run': {},
  'phase-unknown': {},
  leak: { rank: 0, device: 0 },
  'eval-growth': {},
  fragmentation: { cachedBytes: 737 * 2 ** 20, legacy: false },
  'stable-full': {},
  'alloc-retries': { count: 10 },
};

export const FINDINGS = defineDomain<FindingParams>({
  name: 'findings',
  words: { en: EN, zh: ZH },
  examples: FINDING_EXAMPLES,
});
