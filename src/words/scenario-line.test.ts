import { describe, expect, it } from 'vitest';
import { parseScenario } from '../core/scenario.js';
import { describeScenario } from './scenario-line.js';

describe('describeScenario', () => {
  const qlora = parseScenario({
    model: 'llama-3.1-8b',
    method: 'qlora',
    quantization: 'nf4',
    quantizedInputsKept: 'step',
    microBatchSize: 2,
    gradAccumSteps: 4,
    gradientCheckpointing: 'full',
    parallelism: { strategy: 'zero2', gpus: 2, reduceBucketSize: 2e8, overlapComm: true },
    offload: { optimizer: 'cpu' },
    torchCompile: true,
  });

  it('in English, as headers and reports have always shown it', () => {
    expect(describeScenario(qlora, 'llama-3.1-8b')).toBe(
      'llama-3.1-8b · qlora r16 (q_proj,v_proj) nf4 (inputs kept for the step) · bf16-true · adamw · b2×2048 ×4 accum · ckpt full · sdpa · standard loss · compiled · zero2 × 2 GPUs (reduce bucket 2e8, overlap comm) · offload optimizer→cpu',
    );
  });

  it('in Chinese, the same values with Chinese words', () => {
    expect(describeScenario(qlora, 'llama-3.1-8b', 'zh')).toBe(
      'llama-3.1-8b · qlora r16 (q_proj,v_proj) nf4（输入保留到本步结束） · bf16-true · adamw · b2×2048 ×4 累积 · 检查点 full · sdpa · standard 损失 · 已编译 · zero2 × 2 块 GPU（归约桶 2e8，overlap comm） · 卸载 optimizer→cpu',
    );
  });
});
