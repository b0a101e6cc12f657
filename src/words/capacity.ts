/**
 * The words of `headroom gpus` (src/cli/gpus.ts): the catalog list and, with --for, the capacity plan
 * (src/core/capacity.ts: options and misses), and the command's own --help, in English and Chinese.
 */
import type { NoParams } from '../core/message.js';
import type { Strategy } from '../core/scenario.js';
import { defineDomain } from './catalog.js';
import { marginReason } from './margin.js';

export interface CapacityParams {
  /** The heading: the scenario's one-line description (src/core/describe.ts), as the caller rendered it. */
  'capacity-for': { readonly description: string };
  intro: NoParams;
  'column-gpu': NoParams;
  'column-count': NoParams;
  'column-layout': NoParams;
  'column-peak': NoParams;
  'column-headroom': NoParams;
  'column-step': NoParams;
  'column-throughput': NoParams;
  /** The run's duration column: this many training tokens, written short ("2B"). */
  'column-run': { readonly tokens: string };
  'column-bought': NoParams;
  layout: { readonly strategy: Strategy };
  'no-bf16': NoParams;
  'none-fits': NoParams;
  misses: { readonly misses: readonly { readonly gpu: string; readonly bestPeakBytes: number }[] };
  footnote: NoParams;
  'no-match': { readonly query: string; readonly total: number };
  'column-id': NoParams;
  'column-name': NoParams;
  'column-usable': NoParams;
  'column-marketed': NoParams;
  'column-bf16': NoParams;
  'column-tflops': NoParams;
  'column-interconnect': NoParams;
  yes: NoParams;
  no: NoParams;
  'list-count': { readonly count: number; readonly first: string };
  help: NoParams;
  /** --help: the flags of --for, after the scenario flags. */
  'help-flags': NoParams;
  'help-examples': NoParams;
}

const LAYOUT_EN: Readonly<Record<Strategy, string>> = {
  single: '1 GPU',
  ddp: 'DDP',
  zero1: 'ZeRO-1',
  zero2: 'ZeRO-2',
  zero3: 'ZeRO-3',
  fsdp: 'FSDP full shard',
  'fsdp-grad-op': 'FSDP grad-op',
};
const LAYOUT_ZH: Readonly<Record<Strategy, string>> = {
  ...LAYOUT_EN,
  single: '单卡',
  fsdp: 'FSDP 完全分片',
  'fsdp-grad-op': 'FSDP grad-op 分片',
};

export const CAPACITY = defineDomain<CapacityParams>({
  name: 'capacity',
  words: {
    en: {
      'capacity-for': (p) => `capacity for ${p.description}`,
      intro: () =>
        `the fewest GPUs of each kind within the margin (${marginReason('en')}); cheapest first by memory bought, then the older generation`,
      'column-gpu': () => 'gpu',
      'column-count': () => 'count',
      'column-layout': () => 'layout',
      'column-peak': () => 'peak/GPU',
      'column-headroom': () => 'headroom',
      'column-step': () => 'step',
      'column-throughput': () => 'throughput',
      'column-run': (p) => `${p.tokens} tokens`,
      'column-bought': () => 'bought',
      layout: (p) => LAYOUT_EN[p.strategy],
      'no-bf16': () => ' (no bf16: fp16)',
      'none-fits': () => 'no catalog GPU runs it at any count tried: headroom plan … shows what to change',
      misses: (p, f) =>
        `does not fit at any count tried: ${p.misses.map((m) => `${m.gpu} (${f.bytes(m.bestPeakBytes)} per GPU at best)`).join(', ')}`,
      footnote: () =>
        'step = one optimizer step (micro-batch × accumulation per GPU); times from the time model: FLOPs at 40 % of dense peak, collectives overlapped, offload not (docs/time-model.md)',
      'no-match': (p) => `no catalog GPU matches "${p.query}"; headroom gpus lists all ${p.total}`,
      'column-id': () => 'id',
      'column-name': () => 'name',
      'column-usable': () => 'usable',
      'column-marketed': () => 'marketed',
      'column-bf16': () => 'bf16',
      'column-tflops': () => 'bf16 TFLOP/s',
      'column-interconnect': () => 'interconnect',
      yes: () => 'yes',
      no: () => 'no',
      'list-count': (p) =>
        `${p.count} GPU${p.count === 1 ? '' : 's'}. Check a fit: headroom estimate llama-3.1-8b --method qlora --quantization nf4 --gpu ${p.first}`,
      help: () => `headroom gpus [QUERY] [--json]
headroom gpus [QUERY] --for MODEL|SCENARIO.json|CONFIG [flags] [--tokens N] [--json]

Lists the embedded GPU catalog. "usable" is what nvidia-smi reports as memory.total, not the marketed size.
  headroom gpus a100
  headroom gpus nvidia hopper --json

With --for (or --scenario / --from), plans capacity: for every catalog GPU matching a QUERY word (each
word is its own search: h100 a100 means either; quote words that must all match), the fewest of
it (1, 2, 4, 8, then whole nodes up to --max-gpus) that run the scenario within the margin, with the
strategy that needs (ZeRO-2, then ZeRO-3), the per-GPU peak, the headroom and a rough step time. The
catalog has no prices, so the cheapest is ranked by memory bought (count × marketed GB); --sort time
puts the fastest first.`,
      'help-flags': () => `  --for X                   a model id, a scenario JSON file or a trainer config
  --tokens N                training tokens of the whole run (2e9, 500M, 1.5B): estimates its duration
  --max-gpus N              largest GPU count tried                            [64]
  --sort cost|time          cheapest (memory bought) or fastest first          [cost]`,
      'help-examples': () => `Examples:
  headroom gpus --for llama-3.1-8b --method qlora --quantization nf4 --gradient-checkpointing full
  headroom gpus h100 a100 --for llama-3.1-70b --method full --gradient-checkpointing full --tokens 2e9`,
    },
    zh: {
      'capacity-for': (p) => `容量规划：${p.description}`,
      intro: () =>
        `每种 GPU 在预留余量内（${marginReason('zh')}）所需的最少数量；按购买的显存从少到多排列，相同时较老的一代在前`,
      'column-gpu': () => 'GPU',
      'column-count': () => '数量',
      'column-layout': () => '布局',
      'column-peak': () => '单卡峰值',
      'column-headroom': () => '剩余',
      'column-step': () => '每步',
      'column-throughput': () => '吞吐',
      'column-run': (p) => `${p.tokens} 个 token`,
      'column-bought': () => '购买显存',
      layout: (p) => LAYOUT_ZH[p.strategy],
      'no-bf16': () => '（无 bf16：用 fp16）',
      'none-fits': () => '目录中没有 GPU 能在所试的任何数量下运行它：headroom plan … 会给出要做的调整',
      misses: (p, f) =>
        `在所试的任何数量下都放不下：${p.misses.map((m) => `${m.gpu}（最好情况下每块 GPU ${f.bytes(m.bestPeakBytes)}）`).join('、')}`,
      footnote: () =>
        '每步 = 一次优化器更新（每块 GPU micro-batch × 梯度累积）；时间来自时间模型：按稠密峰值 40 % 的 FLOPs，集合通信与计算重叠，卸载不重叠（docs/time-model.md）',
      'no-match': (p) => `目录中没有 GPU 匹配“${p.query}”；headroom gpus 会列出全部 ${p.total} 种`,
      'column-id': () => 'id',
      'column-name': () => '名称',
      'column-usable': () => '可用',
      'column-marketed': () => '标称',
      'column-bf16': () => 'bf16',
      'column-tflops': () => 'bf16 TFLOP/s',
      'column-interconnect': () => '互联',
      yes: () => '是',
      no: () => '否',
      'list-count': (p) =>
        `共 ${p.count} 种 GPU。检查能否放下：headroom estimate llama-3.1-8b --method qlora --quantization nf4 --gpu ${p.first}`,
      help: () => `headroom gpus [QUERY] [--json]
headroom gpus [QUERY] --for MODEL|SCENARIO.json|CONFIG [flags] [--tokens N] [--json]

列出内置的 GPU 目录。“可用”是 nvidia-smi 报告的 memory.total，而不是标称容量。
  headroom gpus a100
  headroom gpus nvidia hopper --json

使用 --for（或 --scenario / --from）时做容量规划：对每种匹配某个 QUERY 词的目录 GPU（每个词单独搜索：
h100 a100 表示两者之一；必须同时匹配的词请加引号），给出在预留余量内运行该场景所需的最少数量（1、2、4、8，
之后按整节点直到 --max-gpus），以及所需的策略（先 ZeRO-2，再 ZeRO-3）、单卡峰值、剩余显存和粗略的每步时间。
目录中没有价格，所以“最便宜”按购买的显存（数量 × 标称 GB）排序；--sort time 把最快的排在前面。`,
      'help-flags': () => `  --for X                   模型 id、场景 JSON 文件或训练配置
  --tokens N                整个运行的训练 token 数（2e9、500M、1.5B）：估算其时长
  --max-gpus N              尝试的最大 GPU 数量                                [64]
  --sort cost|time          最便宜（购买的显存）或最快的在前                   [cost]`,
      'help-examples': () => `示例：
  headroom gpus --for llama-3.1-8b --method qlora --quantization nf4 --gradient-checkpointing full
  headroom gpus h100 a100 --for llama-3.1-70b --method full --gradient-checkpointing full --tokens 2e9`,
    },
  },
  examples: {
    'capacity-for': { description: 'llama-3.1-8b · qlora nf4 · bf16-true · micro-batch 1 × 2048' },
    intro: {},
    'column-gpu': {},
    'column-count': {},
    'column-layout': {},
    'column-peak': {},
    'column-headroom': {},
    'column-step': {},
    'column-throughput': {},
    'column-run': { tokens: '2B' },
    'column-bought': {},
    layout: { strategy: 'fsdp' },
    'no-bf16': {},
    'none-fits': {},
    misses: { misses: [{ gpu: 'rtx-3060-12gb', bestPeakBytes: 2 ** 34 }] },
    footnote: {},
    'no-match': { query: 'h900', total: 60 },
    'column-id': {},
    'column-name': {},
    'column-usable': {},
    'column-marketed': {},
    'column-bf16': {},
    'column-tflops': {},
    'column-interconnect': {},
    yes: {},
    no: {},
    'list-count': { count: 3, first: 'a100-sxm-80gb' },
    help: {},
    'help-flags': {},
    'help-examples': {},
  },
});
