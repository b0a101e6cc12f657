/**
 * The ladder's words in Chinese (and English), from the catalog: each rung, risk and dropped rung is a
 * code with its figures (src/core/plan.ts, plan-prune.ts), worded by src/words/plan-*.ts — the same
 * words the CLI and the dashboard show.
 */
import { describe, expect, it, vi } from 'vitest';
import { findGpu } from '../src/core/catalog/index.js';
import { resolveModelRef } from '../src/core/model-ref.js';
import { type DroppedRung, droppedNote, makePlan, type Plan, type Rung } from '../src/core/plan.js';
import { parseScenario } from '../src/core/scenario.js';
import { LORA_8B_ZERO3_DEFAULT_BUCKET } from '../src/core/test-helpers/scenarios.js';
import { formatBytes } from '../src/core/units.js';
import { say } from '../src/words/catalog.js';
import type { Lang } from '../src/words/lang.js';
import { PLAN_DROPPED } from '../src/words/plan-dropped.js';
import { PLAN_RISKS } from '../src/words/plan-risks.js';
import { PLAN_RUNGS } from '../src/words/plan-rungs.js';
import { UI_PLAN } from '../src/words/ui-plan.js';

// The ladder's words at a point upper bound (ratio 1), so its rungs stay put when the table is regenerated.
vi.mock('../src/core/estimate/upper-table.js', () => import('../src/core/test-helpers/point-upper.js'));

const plan = (raw: Record<string, unknown>, gpu: string) =>
  makePlan({
    scenario: parseScenario(raw),
    shape: resolveModelRef(String(raw.model))!.shape,
    gpu: findGpu(gpu)!,
  });
const CJK = /[\u4e00-\u9fff]/;
const rungSummary = (r: Rung, lang: Lang = 'zh') => say(PLAN_RUNGS, lang, r.change);
const riskNote = (r: Rung, lang: Lang = 'zh') => say(PLAN_RISKS, lang, r.risk);
const dropped = (p: Plan, d: DroppedRung, lang: Lang) => say(PLAN_DROPPED, lang, droppedNote(p, d));

describe('the ladder in Chinese', () => {
  // A long climb: every kind of rung from checkpointing to parameter offload.
  const long = plan({ model: 'llama-3.1-70b', method: 'full', seqLen: 32768 }, 'rtx-3060-12gb');

  it('words every rung of a long climb in Chinese, with the figures the English has', () => {
    expect(long.rungs.length).toBeGreaterThan(8);
    for (const r of long.rungs) {
      const words = rungSummary(r);
      expect(words).toMatch(CJK);
      // Every number the English summary names (sizes, counts) is in the Chinese one too.
      for (const n of rungSummary(r, 'en').match(/\d+/g) ?? []) expect(words).toContain(n);
      if (r.risk.level !== 'none') expect(riskNote(r)).toMatch(CJK);
    }
  });

  it('takes each rung’s figures from its own scenarios', () => {
    const smaller = plan({ model: 'llama-3.1-8b', method: 'full', microBatchSize: 4 }, 'rtx-4090');
    // The allocator setting is a rung the climb applied and the ladder shown dropped: worded as climbed.
    const allocator = smaller.dropped[0]!;
    expect(rungSummary(allocator.rung, 'en')).toBe('PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True');
    expect(rungSummary(allocator.rung)).toBe(
      'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True（更小的分配器预留）',
    );
    const first = smaller.rungs[0]!;
    expect(rungSummary(first, 'en')).toBe('micro-batch 4 → 1, accumulation 1 → 4');
    expect(rungSummary(first)).toBe('micro-batch 4 → 1，梯度累积 1 → 4');
    const offload = long.rungs.find((r) => r.change.id === 'offload-activations-cpu')!;
    expect(riskNote(offload)).toBe(
      `每个节点需要 ${formatBytes(offload.estimate.host!.cpuBytes)} 锁页 CPU 内存；保存的激活每个 micro-batch 两次经过 PCIe`,
    );
  });

  it('words the reduce-bucket rung from the scenarios and the model, with the English figures', () => {
    const zero = plan(LORA_8B_ZERO3_DEFAULT_BUCKET, 'rtx-3060-12gb');
    const i = zero.rungs.findIndex((r) => r.change.id === 'zero-reduce-bucket');
    const rung = zero.rungs[i]!;
    expect(rungSummary(rung, 'en')).toBe('DeepSpeed reduce_bucket_size 5e8 → auto (hidden² = 16.8M)');
    expect(rungSummary(rung)).toBe('DeepSpeed 归约桶 reduce_bucket_size 5e8 → auto（hidden² = 16.8M）');
    expect(riskNote(rung)).toBe('无：训练相同；梯度归约次数更多、每次更小');
    // The figures are data: the bucket's elements before and after, hidden² for "auto".
    expect(rung.change).toEqual({
      id: 'zero-reduce-bucket',
      code: 'zero-reduce-bucket',
      params: { fromElements: 5e8, toElements: 4096 ** 2 },
    });
  });

  it('words the hardware alternatives too', () => {
    const none = plan({ model: 'llama-3.1-8b', method: 'full', seqLen: 65536 }, 'rtx-3060-12gb');
    const [first] = none.alternatives;
    expect(rungSummary(first!, 'en')).toBe('run on 1 × mi300x (AMD Instinct MI300X 192GB)');
    expect(rungSummary(first!)).toBe('在 1 × mi300x 上运行（AMD Instinct MI300X 192GB）');
  });

  it('has Chinese words for the rungs of many climbs', () => {
    const climbs = [
      long,
      plan(
        {
          model: 'llama-3.1-8b',
          method: 'qlora',
          quantization: 'nf4',
          quantizedInputsKept: 'step',
          attention: 'eager',
          microBatchSize: 8,
          seqLen: 8192,
        },
        'rtx-3060-12gb',
      ),
      plan(
        {
          model: 'llama-3.1-8b',
          method: 'full',
          precision: 'bf16-true',
          gradAccumSteps: 8,
          parallelism: { strategy: 'fsdp', gpus: 4 },
        },
        'a10g',
      ),
      plan(
        { model: 'llama-3.1-70b', method: 'full', parallelism: { strategy: 'ddp', gpus: 8 } },
        'a100-sxm-80gb',
      ),
      plan({ model: 'llama-3.1-70b', method: 'full', seqLen: 65536 }, 't4'),
      // LoRA that also trains the embeddings and head (Axolotl's llama-3 lora-8b): optimizer states big
      // enough for ZeRO-Offload to pay for DeepSpeed's reduce bucket.
      plan(
        {
          model: 'llama-3.1-8b',
          method: 'lora',
          lora: { rank: 16, targets: 'all-linear', modulesToSave: ['embed_tokens', 'lm_head'] },
          gradientCheckpointing: 'full',
        },
        'rtx-4080',
      ),
    ];
    const worded = new Map<string, string>();
    for (const p of climbs) {
      for (const r of p.rungs) worded.set(r.change.id, rungSummary(r));
      // The dashboard words the rungs the plan dropped too, as climbed.
      for (const d of p.dropped) worded.set(d.rung.change.id, rungSummary(d.rung));
    }
    for (const words of worded.values()) expect(words).toMatch(CJK);
    // 17 of the ladder's rungs are climbed by these six (not ZeRO-2/3, NVMe or a shorter sequence).
    expect(worded.size).toBeGreaterThanOrEqual(17);
  });

  it('words the rungs a plan dropped, in English and Chinese, with the same figures', () => {
    // A full fine-tune of Llama-3.1-8B on an RTX 4090: the rungs after the 8-bit optimizer make it pointless.
    const full = plan({ model: 'llama-3.1-8b', method: 'full' }, 'rtx-4090');
    const eightBit = full.dropped.find((d) => d.rung.change.id === '8bit-optimizer')!;
    const then = formatBytes(eightBit.rung.savedBytes);
    const now = formatBytes(eightBit.savingBytes);
    expect([then, now]).toEqual(['14.93 GiB', '297 MiB']);
    expect(dropped(full, eightBit, 'en')).toBe(
      'optimizer adamw → adamw-8bit: saved 14.93 GiB where tried, 297 MiB on top of the changes above — not needed after precision bf16-mixed → bf16-true',
    );
    expect(dropped(full, eightBit, 'zh')).toBe(
      '优化器 adamw → adamw-8bit：尝试时节省 14.93 GiB，叠加在上面的调整之上节省 297 MiB——有了“精度 bf16-mixed → bf16-true”就不再需要',
    );
    const selective = full.dropped.find((d) => d.rung.change.id === 'selective-checkpointing')!;
    expect(dropped(full, selective, 'zh')).toBe(
      '选择性激活检查点：尝试时节省 1.68 GiB，叠加在上面的调整之上不再节省显存——有了“完整梯度检查点”就不再需要',
    );
    // A rung that still saves about what it did, where QLoRA fits without it.
    const zero = plan(LORA_8B_ZERO3_DEFAULT_BUCKET, 'rtx-3080');
    const bucket = zero.dropped.find((d) => d.rung.change.id === 'zero-reduce-bucket')!;
    expect(dropped(zero, bucket, 'en')).toBe(
      'DeepSpeed reduce_bucket_size 5e8 → auto (hidden² = 16.8M): saved 922 MiB where tried, 922 MiB on top of the changes above — not needed: fits without it',
    );
    expect(dropped(zero, bucket, 'zh')).toBe(
      'DeepSpeed 归约桶 reduce_bucket_size 5e8 → auto（hidden² = 16.8M）：尝试时节省 922 MiB，叠加在上面的调整之上节省 922 MiB——不需要：没有它也放得下',
    );
    expect(say(UI_PLAN, 'zh', { code: 'dropped-heading', params: {} })).toMatch(CJK);
  });
});
