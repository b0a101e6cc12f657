/**
 * An `accelerate launch` config (accelerate config YAML) to scenario fields: the launcher decides the
 * parallel layout, GPU count and mixed precision. Keys: accelerate/commands/config/cluster.py and
 * utils/dataclasses.py. With mixed_precision set, accelerate's FSDP path casts the model to fp32 before
 * sharding (fsdp2_prepare_model), so weights are fp32 masters: -mixed.
 */
import { at, has, ReportBuilder, textOf, truthy, wholeNumber } from './_builder.js';
import { absorbDeepSpeed, type MapperInput } from './_trainer-input.js';
import { because, type ImportReport } from './import-report.js';

const ZERO_STAGES = ['ddp', 'zero1', 'zero2', 'zero3'] as const;

/** True when a parsed object looks like an accelerate launch config. */
export function looksLikeAccelerate(config: Readonly<Record<string, unknown>>): boolean {
  return has(config, 'distributed_type') || has(config, 'compute_environment');
}

/** Maps an accelerate config to parallelism, GPU count, offload and precision. */
export function mapAccelerateConfig(input: MapperInput): ImportReport {
  const c = input.config;
  const b = new ReportBuilder('accelerate');
  const type = textOf(c.distributed_type ?? 'NO');
  const processes = wholeNumber(c.num_processes);
  const machines = wholeNumber(c.num_machines) ?? 1;
  if (processes !== undefined && processes > 0)
    b.map('num_processes', processes, 'parallelism.gpus', processes * Math.max(1, machines));

  if (type === 'FSDP') {
    const f = (c.fsdp_config ?? {}) as Readonly<Record<string, unknown>>;
    const reshard = f.fsdp_reshard_after_forward;
    const sharding = textOf(f.fsdp_sharding_strategy ?? '');
    let strategy: 'fsdp' | 'fsdp-grad-op' | 'ddp' = 'fsdp';
    let key = 'distributed_type';
    let value: unknown = type;
    if (typeof reshard === 'boolean' || typeof reshard === 'string') {
      key = 'fsdp_config.fsdp_reshard_after_forward';
      value = reshard;
      // FSDP2 takes a bool; FSDP1 configs write the sharding strategy name in the same key.
      strategy =
        truthy(reshard) || /FULL_SHARD|HYBRID_SHARD/.test(String(reshard))
          ? 'fsdp'
          : /NO_SHARD/.test(String(reshard))
            ? 'ddp'
            : 'fsdp-grad-op';
    } else if (sharding) {
      key = 'fsdp_config.fsdp_sharding_strategy';
      value = f.fsdp_sharding_strategy;
      strategy = /SHARD_GRAD_OP|^2$/.test(sharding)
        ? 'fsdp-grad-op'
        : /NO_SHARD|^3$/.test(sharding)
          ? 'ddp'
          : 'fsdp';
    }
    b.map(key, value, 'parallelism.strategy', strategy);
    const offload = truthy(f.fsdp_offload_params) ? 'cpu' : 'none';
    b.map('fsdp_config.fsdp_offload_params', f.fsdp_offload_params ?? null, 'offload.optimizer', offload);
    b.map('fsdp_config.fsdp_offload_params', f.fsdp_offload_params ?? null, 'offload.params', offload);
    b.unmodelled(
      f,
      [
        ['fsdp_activation_checkpointing', because('fsdp-activation-checkpointing')],
        ['fsdp_cpu_ram_efficient_loading', because('rank0-loading')],
      ],
      { prefix: 'fsdp_config.' },
    );
  } else if (type === 'DEEPSPEED') {
    const d = (c.deepspeed_config ?? {}) as Readonly<Record<string, unknown>>;
    if (typeof d.deepspeed_config_file === 'string' && d.deepspeed_config_file !== '') {
      absorbDeepSpeed(b, 'deepspeed_config.deepspeed_config_file', d.deepspeed_config_file, input);
    } else {
      const stage = wholeNumber(d.zero_stage);
      const strategy = stage === undefined ? undefined : ZERO_STAGES[stage];
      if (stage !== undefined && strategy)
        b.map('deepspeed_config.zero_stage', stage, 'parallelism.strategy', strategy);
      // accelerate builds the DeepSpeed config itself and writes no bucket sizes, not even "auto"
      // (accelerate utils/dataclasses.py, DeepSpeedPlugin), so DeepSpeed's own defaults apply.
      if (stage !== undefined && stage >= 1 && stage <= 3)
        b.assume('parallelism.reduceBucketSize', 5e8, because('accelerate-default-bucket'));
      for (const [k, field] of [
        ['offload_optimizer_device', 'offload.optimizer'],
        ['offload_param_device', 'offload.params'],
      ] as const) {
        const device = d[k] ?? 'none';
        if (device === 'none' || device === 'cpu' || device === 'nvme')
          b.map(`deepspeed_config.${k}`, d[k] ?? null, field, device);
        else b.skip(`deepspeed_config.${k}`, device, 'unresolved', because('offload-device'));
      }
      if (has(d, 'zero3_init_flag'))
        b.skip('deepspeed_config.zero3_init_flag', d.zero3_init_flag, 'no-field', because('zero3-init'));
    }
  } else if (type === 'MULTI_GPU') {
    b.map('distributed_type', type, 'parallelism.strategy', 'ddp');
  } else if (type === 'NO') {
    b.map('distributed_type', type, 'parallelism.strategy', 'single');
  } else {
    b.skip('distributed_type', type, 'unresolved', because('launcher-layout'));
  }

  const mp = c.mixed_precision;
  if (mp === 'bf16' || mp === 'fp16') b.map('mixed_precision', mp, 'precision', `${mp}-mixed`);
  else if (mp === 'fp8') b.skip('mixed_precision', mp, 'unresolved', because('fp8'));
  if (has(c, 'downcast_bf16') && truthy(at(c, 'downcast_bf16')))
    b.skip('downcast_bf16', c.downcast_bf16, 'no-field', because('tpu-downcast'));
  return b.build();
}
