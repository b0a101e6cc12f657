/**
 * The ladder's words in Chinese. The core words each rung in English when it builds the plan; here the
 * same rung is worded from its id and the scenarios before and after it, so nothing is parsed back out
 * of English. The rungs the plan dropped are worded here in both languages.
 */
import { findGpu } from '../../src/core/catalog/index.js';
import { reduceBucketElements } from '../../src/core/estimate.js';
import { resolveModelRef } from '../../src/core/model-ref.js';
import type { DroppedRung, Plan, Rung } from '../../src/core/plan.js';
import type { Scenario } from '../../src/core/scenario.js';
import { formatBytes, formatElements } from '../../src/core/units.js';
import type { Lang } from './i18n.js';

const STRATEGY_NAMES: Readonly<Record<string, string>> = {
  zero2: 'ZeRO-2',
  zero3: 'ZeRO-3',
  fsdp: 'FSDP FULL_SHARD',
  'fsdp-grad-op': 'FSDP SHARD_GRAD_OP',
};

/** What each rung of the plan starts from: the plan's scenario, then each rung's result in turn. */
export function scenariosBefore(plan: Plan): Scenario[] {
  return plan.rungs.map((_, i) => (i === 0 ? plan.scenario : plan.rungs[i - 1]!.scenario));
}

/** The scenario an alternative replaces the winning rung on: the one before that rung. */
export function alternativeBase(plan: Plan): Scenario {
  return plan.rungs.length >= 2 ? plan.rungs.at(-2)!.scenario : plan.scenario;
}

/** DeepSpeed's reduce bucket before and after the rung, in elements (the model's hidden size for "auto"). */
function bucketWordsZh(before: Scenario, after: Scenario): string {
  const shape = resolveModelRef(after.model)?.shape;
  if (!shape) return 'DeepSpeed 归约桶 reduce_bucket_size → auto（hidden²）';
  const from = formatElements(reduceBucketElements(before, shape));
  const to = formatElements(reduceBucketElements(after, shape));
  return `DeepSpeed 归约桶 reduce_bucket_size ${from} → auto（hidden² = ${to}）`;
}

/** A rung's change, in Chinese. */
export function rungSummaryZh(rung: Rung, before: Scenario): string {
  const after = rung.scenario;
  switch (rung.change.id) {
    case 'expandable-segments':
      return 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True（更小的分配器预留）';
    case 'bitsandbytes-upgrade':
      return '升级 bitsandbytes 到 0.43.2 或更高：4 位层不再保留输入';
    case 'sdpa-attention':
      return '注意力：eager → sdpa';
    case 'smaller-micro-batch':
      return `micro-batch ${before.microBatchSize} → ${after.microBatchSize}，梯度累积 ${before.gradAccumSteps} → ${after.gradAccumSteps}`;
    case 'selective-checkpointing':
      return '选择性激活检查点';
    case 'full-checkpointing':
      return '完整梯度检查点';
    case 'chunked-loss':
      return '分块交叉熵损失';
    case 'compile-loss':
      return '用 torch.compile 编译模型与分块损失';
    case 'fused-optimizer':
      return after.optimizer === 'adamw'
        ? '融合 AdamW 内核（torch fused=True；HF optim adamw_torch_fused）'
        : '融合 SGD 内核（torch fused=True）';
    case 'zero-reduce-bucket':
      return bucketWordsZh(before, after);
    case 'fsdp-sync-each-micro-batch':
      return 'FSDP：每个 micro-batch 都 reduce-scatter 梯度（Accelerate sync_each_batch=True）';
    case 'fsdp-wrap-embeddings':
      return 'FSDP：把嵌入层和输出头包装成独立单元';
    case 'shorter-sequence':
      return `序列长度 ${before.seqLen} → ${after.seqLen}`;
    case 'pure-bf16':
      return `精度 ${before.precision} → bf16-true`;
    case '8bit-optimizer':
      return `优化器 ${before.optimizer} → ${after.optimizer}`;
    case 'lora':
      return '在所有线性层上使用 LoRA r16';
    case 'qlora':
      return 'QLoRA：4 位 NF4 基座（双重量化）';
    case 'zero2':
    case 'zero3':
      return `${STRATEGY_NAMES[after.parallelism.strategy] ?? after.parallelism.strategy}，${after.parallelism.gpus} 块 GPU`;
    case 'offload-activations-cpu':
      return before.gradientCheckpointing === 'full'
        ? '把激活卸载到 CPU（检查点保存的层输入）'
        : '把激活卸载到 CPU（所有保存的激活）';
    case 'offload-optimizer-cpu':
      return `把优化器卸载到 CPU（${after.parallelism.strategy === 'zero2' ? 'ZeRO-Offload' : after.parallelism.strategy}）`;
    case 'offload-params-cpu':
      return `把参数卸载到 CPU（${after.parallelism.strategy === 'zero3' ? 'ZeRO-3' : 'FSDP CPUOffload'}）`;
    case 'offload-nvme':
      return '卸载到 NVMe（ZeRO-Infinity）';
    case 'hardware': {
      const { strategy, gpus } = after.parallelism;
      const gpu = after.gpu ?? '';
      const layout = gpus === 1 ? '' : `，使用 ${STRATEGY_NAMES[strategy] ?? strategy}`;
      return `在 ${gpus} × ${gpu} 上运行${layout}（${findGpu(gpu)?.name ?? gpu}）`;
    }
  }
}

/** A rung's risk, in Chinese (the level is shown apart). */
export function riskNoteZh(rung: Rung, before: Scenario): string {
  const host = rung.estimate.host;
  const cpu = formatBytes(host?.cpuBytes ?? 0);
  switch (rung.change.id) {
    case 'expandable-segments':
      return '无：训练相同；一个环境变量（PyTorch 2.1 或更高，Linux）。H200 上的步时：12 次运行的中位数 1.00×';
    case 'bitsandbytes-upgrade':
      return '无：训练相同；只是更新的 bitsandbytes';
    case 'smaller-micro-batch':
      return '无：有效批量相同，步数更多、每步更小';
    case 'compile-loss':
      return '首几步要等待编译（数分钟）；形状随批次变化的输入会重新编译，除非填充到少数固定长度';
    case 'zero-reduce-bucket':
      return '无：训练相同；梯度归约次数更多、每次更小';
    case 'fsdp-sync-each-micro-batch':
      return '无：训练相同；每个 micro-batch 多一次 reduce-scatter';
    case 'fsdp-wrap-embeddings':
      return '无：训练相同；每个 micro-batch 多两次 all-gather';
    case 'shorter-sequence':
      return `质量：超过 ${rung.scenario.seqLen} 个 token 的样本会被截断（或需要切分）`;
    case 'pure-bf16':
      return before.method === 'full' || before.method === 'freeze'
        ? '质量：没有 fp32 主权重——很小的更新可能在 bf16 中被舍入掉（Kahan 求和或随机舍入有帮助）'
        : '质量：冻结的基座以 bf16 保存；适配器仍为 fp32';
    case '8bit-optimizer':
      return '质量：分块 8 位状态在 Dettmers 等人 2022 年的工作中与 32 位 Adam 效果相当';
    case 'lora':
      return '质量：训练的是低秩适配器而非权重——通常接近全量微调，远离预训练数据时可能不足';
    case 'qlora':
      return '质量：4 位基座权重——QLoRA 论文在其基准上追平了 16 位 LoRA，但量化误差确实存在；反量化会拖慢每次矩阵乘';
    case 'zero2':
      return '无：训练相同；每个 micro-batch 都 reduce-scatter 梯度';
    case 'zero3':
      return '无：训练相同；权重逐层聚合，每个 micro-batch 两次';
    case 'offload-activations-cpu':
      return `每个节点需要 ${cpu} 锁页 CPU 内存；保存的激活每个 micro-batch 两次经过 PCIe`;
    case 'offload-optimizer-cpu':
      return `每个节点需要 ${cpu} CPU 内存；优化器更新在 CPU 上执行`;
    case 'offload-params-cpu':
      return `每个节点需要 ${cpu} CPU 内存；每一层每个 micro-batch 两次经过 PCIe`;
    case 'offload-nvme':
      return `每个节点需要 ${formatBytes(host?.nvmeBytes ?? 0)} NVMe 和 ${cpu} CPU 内存；速度受 NVMe 带宽限制`;
    case 'hardware':
      return '无：硬件不同，训练相同';
    default:
      return '无：训练相同，只是计算方式不同';
  }
}

/** The heading over the rungs the plan dropped. */
export const DROPPED_HEADING: Readonly<Record<Lang, string>> = {
  en: 'Tried on the way and not needed: the changes above fit without each, as fast',
  zh: '途中尝试过、但并不需要的调整：没有它们，上面的调整也放得下，而且一样快',
};

/**
 * A dropped rung in words: what it saved where the climb tried it, what it would save on top of the
 * ladder shown, and the rung of the ladder after which it is not needed, by name (the dashboard does not
 * number its rows), or that the ladder fits without it.
 */
export function droppedNote(plan: Plan, dropped: DroppedRung, lang: Lang): string {
  const n = dropped.after === null ? -1 : plan.rungs.findIndex((r) => r.change.id === dropped.after);
  const then = formatBytes(dropped.rung.savedBytes);
  const now = formatBytes(dropped.savingBytes);
  if (lang === 'zh') {
    const after = n >= 0 ? rungSummaryZh(plan.rungs[n]!, scenariosBefore(plan)[n]!) : '';
    return `${rungSummaryZh(dropped.rung, dropped.from)}：尝试时节省 ${then}，${
      dropped.savingBytes > 0 ? `叠加在上面的调整之上节省 ${now}` : '叠加在上面的调整之上不再节省显存'
    }——${n >= 0 ? `有了“${after}”就不再需要` : '不需要：没有它也放得下'}`;
  }
  return `${dropped.rung.change.summary}: saved ${then} where tried, ${
    dropped.savingBytes > 0 ? `${now} on top of the changes above` : 'nothing on top of the changes above'
  } — ${n >= 0 ? `not needed after ${plan.rungs[n]!.change.summary}` : 'not needed: fits without it'}`;
}
