/**
 * The scenario flags every scenario-taking command shares, and how they become scenario fields.
 * Flags override the fields of a --scenario file.
 */
import { parseArgs } from 'node:util';
import { HeadroomUserError } from '../core/errors.js';
import { fusesInTorch, SCENARIO_LIMITS, torchaoQuantizes } from '../core/scenario.js';
import { joinNegativeValues } from './_command.js';

/** parseArgs option table for the scenario flags. */
export const SCENARIO_OPTIONS = {
  model: { type: 'string' },
  method: { type: 'string' },
  'lora-rank': { type: 'string' },
  'lora-alpha': { type: 'string' },
  'lora-dropout': { type: 'string' },
  'lora-targets': { type: 'string' },
  'lora-adapter-dtype': { type: 'string' },
  'modules-to-save': { type: 'string' },
  'trainable-layers': { type: 'string' },
  quantization: { type: 'string' },
  'quantize-head': { type: 'boolean' },
  'quantized-from': { type: 'string' },
  'quantized-inputs-kept': { type: 'string' },
  quantizer: { type: 'string' },
  precision: { type: 'string' },
  optimizer: { type: 'string' },
  'micro-batch': { type: 'string' },
  'seq-len': { type: 'string' },
  'grad-accum': { type: 'string' },
  'optimizer-in-backward': { type: 'boolean' },
  'fused-optimizer': { type: 'boolean' },
  'no-fused-optimizer': { type: 'boolean' },
  'gradient-checkpointing': { type: 'string' },
  attention: { type: 'string' },
  'torch-compile': { type: 'boolean' },
  'no-torch-compile': { type: 'boolean' },
  loss: { type: 'string' },
  strategy: { type: 'string' },
  gpus: { type: 'string' },
  'wrap-embeddings': { type: 'boolean' },
  'sync-each-micro-batch': { type: 'boolean' },
  'reduce-bucket-size': { type: 'string' },
  'overlap-comm': { type: 'boolean' },
  'offload-optimizer': { type: 'string' },
  'offload-params': { type: 'string' },
  'offload-activations': { type: 'string' },
  'expandable-segments': { type: 'boolean' },
  'no-expandable-segments': { type: 'boolean' },
  gpu: { type: 'string' },
  framework: { type: 'string' },
  versions: { type: 'string' },
  padding: { type: 'string' },
  scenario: { type: 'string' },
} as const;

/** One help line per scenario flag. */
export const SCENARIO_FLAGS_HELP = `Scenario (flags override --scenario; defaults as in docs/scenario.md):
  MODEL | --model ID        catalog id, HF repo id, config.json path or model folder
  --scenario FILE           a scenario JSON object, or JSON Lines of many (one result each)
  --method M                full | lora | qlora | freeze                      [full]
  --lora-rank N  --lora-alpha N  --lora-dropout P                             [16, -, 0]
  --lora-targets LIST       q_proj,v_proj | all-linear | ...                  [q_proj,v_proj]
  --lora-adapter-dtype D    fp32 | model: the adapters' dtype (PEFT keeps them fp32; torchtune and
                            litgpt's bf16-true keep the model's)                   [fp32]
  --modules-to-save LIST    embed_tokens,lm_head
  --trainable-layers N      top blocks trained with --method freeze           [2]
  --quantization Q          none | int8 | nf4 | nf4-dq | fp4 | int4-gptq      [none]
  --quantize-head           the output head is quantized too (Lightning/litgpt; HF keeps it 16-bit)
  --quantized-from D        fp16 | bf16 | fp32: what bitsandbytes dequantizes back into
                            [bf16 for bf16-true, else fp16: HF's load dtype when none is given]
  --quantized-inputs-kept K none | step | next-forward: how long a bitsandbytes layer keeps its
                            input (4-bit before bitsandbytes 0.43.2: step under HF Trainer,
                            next-forward in litgpt or a plain loop)   [none; int8: step]
  --quantizer L             bitsandbytes | torchao: who quantized the base (torchao: torchtune's
                            NF4, whose scales FSDP shards with the codes)  [bitsandbytes]
  --precision P             fp32 | fp16-mixed | bf16-mixed | fp16-true | bf16-true
                            [bf16-true for lora and qlora (a 16-bit base), bf16-mixed for full and freeze]
  --optimizer O             adamw | adamw-8bit | paged-adamw | paged-adamw-8bit | sgd |
                            sgd-momentum | adafactor | lion                   [adamw]
  --micro-batch N  --seq-len N  --grad-accum N                                [1, 2048, 1]
                            (--seq-len takes 8k for 8192)
  --optimizer-in-backward   step each parameter in backward and free its gradient
                            (torchtune optimizer_in_bwd; needs --grad-accum 1)
  --fused-optimizer         torch's fused AdamW/SGD kernel (fused=True, HF adamw_torch_fused):
                            no state-sized temporary in the optimizer step
  --no-fused-optimizer      the foreach kernel, over a config's fused one (torch < 2.8 with an
                            HF config that names no optim)
  --gradient-checkpointing  none | full | selective                           [none]
  --attention A             eager | sdpa | flash                              [sdpa]
  --loss L                  standard | chunked | fused                        [standard]
  --torch-compile           torch.compile on the model and loss (torchtune compile, HF
                            torch_compile): a compiled chunked loss keeps no fp32 logits
  --no-torch-compile        not compiled, over a config that compiles
  --strategy S  --gpus N    single | ddp | zero1 | zero2 | zero3 | fsdp | fsdp-grad-op  [single, 1]
  --wrap-embeddings         FSDP: embeddings and head are units of their own, not in the
                            root unit FSDP keeps gathered (torchtune custom_sharded_layers)
  --sync-each-micro-batch   FSDP: reduce-scatter every micro-batch instead of accumulating
                            unsharded gradients in no_sync() (torchtune, sync_each_batch)
  --reduce-bucket-size N    DeepSpeed reduce_bucket_size in elements, or auto (hidden_size²,
                            as the HF integration fills it)               [5e8, DeepSpeed's]
  --overlap-comm            DeepSpeed overlap_comm: ZeRO-1/2 keep two reduce buckets
  --offload-optimizer T  --offload-params T   none | cpu | nvme               [none]
  --offload-activations T   none | cpu: saved activations wait in pinned CPU memory
                            (HF gradient_checkpointing_kwargs offload, TRL/torchtune
                            activation offloading, Unsloth/Axolotl offloaded ckpt)  [none]
  --expandable-segments     the run sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True:
                            a smaller allocator reserve (reserved and nvidia-smi levels)
  --no-expandable-segments  the default allocator, over a scenario file that sets it
  --gpu ID                  catalog GPU to check the fit against (headroom gpus)
  --framework F             the stack that trains: hf-trainer | axolotl | llama-factory | ms-swift |
                            unsloth | torchtune | litgpt | torchtitan | accelerate | deepspeed | pytorch
  --versions LIST           package versions, e.g. torch=2.5.1,transformers=4.46.0,bitsandbytes=0.44.1
  --padding P               longest | max-length | packed: each batch padded to its longest sample
                            (seq-len is the cap), to seq-len, or packed to seq-len  [max-length]`;

type Values = Readonly<Record<string, string | boolean | undefined>>;

/** The flag that sets each scenario field (SCENARIO.md's path), for errors about a field a flag set. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  method: 'method',
  trainableLayers: 'trainable-layers',
  quantization: 'quantization',
  quantizeHead: 'quantize-head',
  quantizedFrom: 'quantized-from',
  quantizedInputsKept: 'quantized-inputs-kept',
  quantizer: 'quantizer',
  precision: 'precision',
  optimizer: 'optimizer',
  microBatchSize: 'micro-batch',
  seqLen: 'seq-len',
  gradAccumSteps: 'grad-accum',
  optimizerInBackward: 'optimizer-in-backward',
  fusedOptimizer: 'fused-optimizer',
  gradientCheckpointing: 'gradient-checkpointing',
  attention: 'attention',
  loss: 'loss',
  torchCompile: 'torch-compile',
  expandableSegments: 'expandable-segments',
  gpu: 'gpu',
  framework: 'framework',
  versions: 'versions',
  padding: 'padding',
  'lora.rank': 'lora-rank',
  'lora.alpha': 'lora-alpha',
  'lora.dropout': 'lora-dropout',
  'lora.targets': 'lora-targets',
  'lora.adapterDtype': 'lora-adapter-dtype',
  'lora.modulesToSave': 'modules-to-save',
  'parallelism.strategy': 'strategy',
  'parallelism.gpus': 'gpus',
  'parallelism.wrapEmbeddings': 'wrap-embeddings',
  'parallelism.syncEachMicroBatch': 'sync-each-micro-batch',
  'parallelism.reduceBucketSize': 'reduce-bucket-size',
  'parallelism.overlapComm': 'overlap-comm',
  'offload.optimizer': 'offload-optimizer',
  'offload.params': 'offload-params',
  'offload.activations': 'offload-activations',
};

/** The first words of a field's message that say something about the field itself. */
const PREDICATE = /^(is|must|applies|steps|wraps|quantizes|says)\b/;

/**
 * What the command line gave for `--flag`, read the way the commands read it (node's parseArgs, which
 * stops at `--`: the rest belongs to a wrapped command): its value, true for a boolean flag, or
 * undefined when absent. Other commands' own flags are tolerated here, not checked.
 */
function givenFlag(args: readonly string[], flag: string): string | boolean | undefined {
  const { values } = parseArgs({
    args: joinNegativeValues(args, SCENARIO_OPTIONS),
    options: SCENARIO_OPTIONS,
    strict: false,
    allowPositionals: true,
  });
  return values[flag] as string | boolean | undefined;
}

/**
 * A scenario error about a field that a flag on the command line set, reworded to name that flag as
 * the user typed it (`--precision fp8 is not one of …`) instead of the field a file would hold. Other
 * errors come back unchanged. `command` names the help that lists the flags.
 */
export function namedByFlag(
  error: HeadroomUserError,
  args: readonly string[],
  command: string,
): HeadroomUserError {
  if (error.where === undefined) return error;
  const flag = FLAG_OF_FIELD[error.where];
  const prefix = `${error.where}: `;
  if (flag === undefined || !error.message.startsWith(prefix)) return error;
  const given = givenFlag(args, flag);
  if (given === undefined || given === false) return error;
  let said = error.message.slice(prefix.length);
  const typed = given === true ? `--${flag}` : `--${flag} ${given}`;
  // The field's message opens with the value as JSON ("fp8" or 0), or as the number the flag was read
  // as (1e12 is 1000000000000, 8k is 8192): the flag shows it as typed.
  const read = given === true ? undefined : /^-?\d+(\.\d+)? /.exec(said)?.[0];
  const value =
    given === true
      ? undefined
      : [JSON.stringify(given), `${given} `, ...(read ? [read] : [])].find((v) => said.startsWith(v));
  if (value !== undefined) said = said.slice(value.length).trimStart();
  // "is not one of …", "applies to …" go on from the flag; a sentence of its own follows a colon.
  const message = PREDICATE.test(said) ? `${typed} ${said}` : `${typed}: ${said}`;
  return new HeadroomUserError({
    // A number out of range stays one (its params say by how much); any other field error is the flag's.
    code: error.code === 'out-of-range' ? error.code : 'bad-flag',
    where: `--${flag}`,
    message,
    ...(error.params === undefined ? {} : { params: error.params }),
    hint:
      error.hint ??
      (said.includes('is not one of')
        ? `headroom ${command} --help says what each value of --${flag} means`
        : `e.g. --${flag} ${EXAMPLE[flag] ?? '4'}`),
  });
}

/** An example value for each numeric flag, for the hint of a bad one. */
const EXAMPLE: Readonly<Record<string, string>> = {
  'seq-len': '4096 (or 4k)',
  'micro-batch': '4',
  'grad-accum': '8',
  'trainable-layers': '2',
  'lora-dropout': '0.05',
  'lora-alpha': '32',
  'lora-rank': '16',
  gpus: '8',
  'reduce-bucket-size': '200000000 (or auto)',
};

/**
 * A numeric flag. With `k`, it may be written the way people say sequence lengths: "8k" is
 * 8 × 1024 = 8192 tokens (the "8k context" of model cards).
 */
function numeric(values: Values, flag: string, options: { readonly k?: boolean } = {}): number | undefined {
  const raw = values[flag];
  if (raw === undefined) return undefined;
  const thousands = options.k && typeof raw === 'string' ? /^\s*(\d+)\s*k\s*$/i.exec(raw) : null;
  const n = thousands ? Number(thousands[1]) * 1024 : Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(n)) {
    // A count says its range, from the one declaration the scenario's own check uses.
    const field = Object.keys(FLAG_OF_FIELD).find((f) => FLAG_OF_FIELD[f] === flag);
    const limit = field === undefined ? undefined : SCENARIO_LIMITS[field as keyof typeof SCENARIO_LIMITS];
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: `--${flag}`,
      message: `--${flag} ${String(raw)}: not a number${limit ? `; give a whole number from 1 to ${limit.max}` : ''}`,
      hint: `e.g. --${flag} ${EXAMPLE[flag] ?? '4'}`,
    });
  }
  return n;
}

/** `torch=2.5.1,transformers=4.46.0` as an object; the scenario parser checks names and versions. */
function versionList(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = item.indexOf('=');
    if (eq <= 0) {
      throw new HeadroomUserError({
        code: 'bad-flag',
        where: '--versions',
        message: `--versions ${raw}: "${item}" is not PACKAGE=VERSION`,
        hint: 'e.g. --versions torch=2.5.1,transformers=4.46.0',
      });
    }
    out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return out;
}

function list(raw: string | boolean | undefined): string[] | 'all-linear' | undefined {
  if (typeof raw !== 'string') return undefined;
  if (raw === 'all-linear') return 'all-linear';
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Merges scenario flags over a base scenario object (from a file, or empty). Validation happens later in
 * parseScenario, which names the field; here only numbers and lists are read.
 */
export function applyScenarioFlags(
  base: Readonly<Record<string, unknown>>,
  values: Values,
  positionalModel?: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  const set = (key: string, value: unknown) => {
    if (value !== undefined) out[key] = value;
  };
  set('model', positionalModel ?? values.model);
  set('method', values.method);
  set('trainableLayers', numeric(values, 'trainable-layers'));
  set('quantization', values.quantization);
  if (values['quantize-head'] === true) out.quantizeHead = true;
  set('quantizedFrom', values['quantized-from']);
  set('quantizedInputsKept', values['quantized-inputs-kept']);
  set('quantizer', values.quantizer);
  set('precision', values.precision);
  set('optimizer', values.optimizer);
  set('microBatchSize', numeric(values, 'micro-batch'));
  set('seqLen', numeric(values, 'seq-len', { k: true }));
  set('gradAccumSteps', numeric(values, 'grad-accum'));
  if (values['optimizer-in-backward'] === true) out.optimizerInBackward = true;
  if (values['fused-optimizer'] === true) out.fusedOptimizer = true;
  if (values['no-fused-optimizer'] === true) out.fusedOptimizer = false;
  // Another optimizer on the command line replaces the file's, and with it a fused flag that only
  // torch's AdamW and SGD have (bitsandbytes' are one kernel already).
  if (
    values.optimizer !== undefined &&
    values['fused-optimizer'] !== true &&
    !fusesInTorch(String(values.optimizer))
  )
    out.fusedOptimizer = false;
  set('gradientCheckpointing', values['gradient-checkpointing']);
  set('attention', values.attention);
  set('loss', values.loss);
  if (values['torch-compile'] === true) out.torchCompile = true;
  if (values['no-torch-compile'] === true) out.torchCompile = false;
  if (values['expandable-segments'] === true) out.expandableSegments = true;
  if (values['no-expandable-segments'] === true) out.expandableSegments = false;
  set('gpu', values.gpu);
  set('framework', values.framework);
  set('padding', values.padding);
  if (typeof values.versions === 'string') {
    out.versions = {
      ...((base.versions as Record<string, unknown> | undefined) ?? {}),
      ...versionList(values.versions),
    };
  }
  const lora: Record<string, unknown> = { ...((base.lora as Record<string, unknown> | undefined) ?? {}) };
  const loraBefore = JSON.stringify(lora);
  if (values['lora-rank'] !== undefined) lora.rank = numeric(values, 'lora-rank');
  if (values['lora-alpha'] !== undefined) lora.alpha = numeric(values, 'lora-alpha');
  if (values['lora-dropout'] !== undefined) lora.dropout = numeric(values, 'lora-dropout');
  if (values['lora-targets'] !== undefined) lora.targets = list(values['lora-targets']);
  if (values['lora-adapter-dtype'] !== undefined) lora.adapterDtype = values['lora-adapter-dtype'];
  if (values['modules-to-save'] !== undefined) lora.modulesToSave = list(values['modules-to-save']);
  if (JSON.stringify(lora) !== loraBefore) out.lora = lora;
  const parallelism: Record<string, unknown> = {
    ...((base.parallelism as Record<string, unknown> | undefined) ?? {}),
  };
  if (values.strategy !== undefined) {
    parallelism.strategy = values.strategy;
    // The FSDP options of a file mean nothing under another strategy: a flag that leaves FSDP drops them,
    // as a method change drops the LoRA settings.
    if (typeof values.strategy === 'string' && !values.strategy.startsWith('fsdp')) {
      delete parallelism.wrapEmbeddings;
      delete parallelism.syncEachMicroBatch;
    }
    // Likewise DeepSpeed's bucket settings under a strategy that is not ZeRO.
    if (typeof values.strategy === 'string' && !values.strategy.startsWith('zero')) {
      delete parallelism.reduceBucketSize;
      delete parallelism.overlapComm;
    }
  }
  if (values.gpus !== undefined) parallelism.gpus = numeric(values, 'gpus');
  if (values['wrap-embeddings'] === true) parallelism.wrapEmbeddings = true;
  if (values['sync-each-micro-batch'] === true) parallelism.syncEachMicroBatch = true;
  if (values['reduce-bucket-size'] !== undefined) {
    parallelism.reduceBucketSize =
      values['reduce-bucket-size'] === 'auto' ? 'auto' : numeric(values, 'reduce-bucket-size');
  }
  if (values['overlap-comm'] === true) parallelism.overlapComm = true;
  if (
    values.strategy !== undefined ||
    values.gpus !== undefined ||
    values['wrap-embeddings'] === true ||
    values['sync-each-micro-batch'] === true ||
    values['reduce-bucket-size'] !== undefined ||
    values['overlap-comm'] === true
  ) {
    // --gpus 4 alone means data parallel; a single strategy with more GPUs would be a contradiction.
    if (parallelism.strategy === undefined && (parallelism.gpus as number) > 1) parallelism.strategy = 'ddp';
    out.parallelism = parallelism;
  }
  const offload: Record<string, unknown> = {
    ...((base.offload as Record<string, unknown> | undefined) ?? {}),
  };
  if (values['offload-optimizer'] !== undefined) offload.optimizer = values['offload-optimizer'];
  if (values['offload-params'] !== undefined) offload.params = values['offload-params'];
  if (values['offload-activations'] !== undefined) offload.activations = values['offload-activations'];
  if (
    values['offload-optimizer'] !== undefined ||
    values['offload-params'] !== undefined ||
    values['offload-activations'] !== undefined
  )
    out.offload = offload;
  // A flag that changes the method drops the base's settings that belong to the old one.
  if (values.method === 'full' || values.method === 'freeze') {
    delete out.lora;
    if (values.quantization === undefined) {
      delete out.quantization;
      delete out.quantizer;
    }
  }
  // torchao quantizes to NF4 only: another quantization on the command line is not torchao's.
  if (
    values.quantizer === undefined &&
    values.quantization !== undefined &&
    !torchaoQuantizes(String(values.quantization))
  )
    delete out.quantizer;
  if (values.method !== undefined && values.method !== 'freeze') delete out.trainableLayers;
  return out;
}
