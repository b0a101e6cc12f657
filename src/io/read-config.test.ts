/** Every real config in data/fixtures/configs must import to the scenario fields its expected.jsonl lists. */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataFile } from '../../test/data.js';
import { parseScenario } from '../core/scenario.js';
import { say } from '../words/catalog.js';
import { IMPORT_REASONS } from '../words/import-reasons.js';
import { deepspeedCandidates, MAX_CONFIG_BYTES, readTrainerConfig } from './read-config.js';

interface Expected {
  readonly file: string;
  readonly trainer: string;
  readonly scenario: Record<string, unknown>;
  readonly trainerDefaults?: Record<string, unknown>;
  readonly unmapped: readonly string[];
}

const EXPECTED: Expected[] = readFileSync(dataFile('fixtures', 'configs', 'expected.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Expected);

/** The fixture's trainer label → the format Headroom detects (TRL ships both SFT configs and accelerate configs). */
const FORMAT_OF_LABEL: Readonly<Record<string, readonly string[]>> = {
  'llama-factory': ['llama-factory'],
  axolotl: ['axolotl'],
  torchtune: ['torchtune'],
  trl: ['hf-trainer', 'accelerate'],
  deepspeed: ['deepspeed'],
};

/**
 * Keys reported beyond expected.jsonl's `unmapped`, pinned per file. Each is a DeepSpeed "auto" or a
 * trainer-owned value (reported, never guessed), the offload buffers' pin_memory the other offload
 * fixture lists too, or keys of the referenced DeepSpeed file.
 */
const EXTRA_UNMAPPED: Readonly<Record<string, readonly string[]>> = {
  'llama-factory__examples__deepspeed__ds_z3_config.json': [
    'train_micro_batch_size_per_gpu',
    'gradient_accumulation_steps',
    'train_batch_size',
    'fp16.enabled',
    'bf16.enabled',
  ],
  'llama-factory__examples__deepspeed__ds_z3_offload_config.json': [
    'train_micro_batch_size_per_gpu',
    'gradient_accumulation_steps',
    'train_batch_size',
    'fp16.enabled',
    'bf16.enabled',
  ],
  'axolotl__deepspeed_configs__zero3_bf16.json': [
    'train_micro_batch_size_per_gpu',
    'gradient_accumulation_steps',
    'train_batch_size',
    'bf16.enabled',
  ],
  'deepspeed__tests__model__Megatron_GPT2__ds_config_func_bs8_zero2_offload.json': [
    'gradient_accumulation_steps',
    'fp16.enabled',
  ],
  'deepspeed__examples__deepspeed_config_templates__zero_stage2_offload_config.json': [
    'zero_optimization.offload_optimizer.pin_memory',
    'train_micro_batch_size_per_gpu',
    'gradient_accumulation_steps',
    'train_batch_size',
    'fp16.enabled',
  ],
};

/**
 * Deliberate differences from expected.jsonl. It calls Axolotl's lora_modules_to_save unmapped ("no
 * scenario field"), but SCENARIO.md has lora.modulesToSave, and the 1.05B trainable parameters of those
 * copies are most of that run's optimizer memory — so Headroom maps it.
 */
const MAPPED_INSTEAD = {
  'axolotl__examples__llama-3__lora-8b.yml': ['lora_modules_to_save'],
  // torchtune's optimizer_in_bwd frees each gradient inside backward, and custom_sharded_layers takes
  // the embeddings and head out of FSDP's root unit; Headroom models both (optimizerInBackward,
  // parallelism.wrapEmbeddings), so they are mapped where expected.jsonl had no field for them.
  // enable_activation_offloading likewise (offload.activations), and compile (torchCompile), on and
  // off alike, and dataset.packed (padding: packed, or longest when false).
  // DeepSpeed allocates its reduce bucket whole (reduce_bucket_size elements, whatever is trained), and
  // Headroom now counts it (parallelism.reduceBucketSize, "auto" as hidden_size²).
  'llama-factory__examples__deepspeed__ds_z3_config.json': ['zero_optimization.reduce_bucket_size'],
  'llama-factory__examples__deepspeed__ds_z3_offload_config.json': ['zero_optimization.reduce_bucket_size'],
  'axolotl__deepspeed_configs__zero3_bf16.json': ['zero_optimization.reduce_bucket_size'],
  'deepspeed__tests__model__Megatron_GPT2__ds_config_func_bs8_zero2_offload.json': [
    'zero_optimization.reduce_bucket_size',
  ],
  'deepspeed__examples__deepspeed_config_templates__zero_stage2_offload_config.json': [
    'zero_optimization.reduce_bucket_size',
  ],
  'torchtune__recipes__configs__llama3_1__8B_full.yaml': [
    'optimizer_in_bwd',
    'custom_sharded_layers',
    'enable_activation_offloading',
    'compile',
    'dataset.packed',
  ],
  'torchtune__recipes__configs__llama3_2__3B_full_single_device.yaml': [
    'optimizer_in_bwd',
    'enable_activation_offloading',
    'compile',
    'dataset.packed',
  ],
  'torchtune__recipes__configs__llama3_1__8B_lora_single_device.yaml': [
    'enable_activation_offloading',
    'compile',
    'dataset.packed',
  ],
  'torchtune__recipes__configs__qwen2_5__7B_lora_single_device.yaml': [
    'enable_activation_offloading',
    'compile',
    'dataset.packed',
  ],
} as Readonly<Record<string, readonly string[]>>;

/** LLaMA-Factory writes DeepSpeed paths from its repository root; lay the two files out as in the repo. */
function llamaFactoryCheckout(): string {
  const root = mkdtempSync(join(tmpdir(), 'headroom-lf-'));
  mkdirSync(join(root, 'examples', 'train_full'), { recursive: true });
  mkdirSync(join(root, 'examples', 'deepspeed'), { recursive: true });
  copyFileSync(
    dataFile('fixtures', 'configs', 'llama-factory__examples__train_full__qwen3_full_sft.yaml'),
    join(root, 'examples', 'train_full', 'qwen3_full_sft.yaml'),
  );
  copyFileSync(
    dataFile('fixtures', 'configs', 'llama-factory__examples__deepspeed__ds_z3_config.json'),
    join(root, 'examples', 'deepspeed', 'ds_z3_config.json'),
  );
  return join(root, 'examples', 'train_full', 'qwen3_full_sft.yaml');
}

const REFERENCES_DEEPSPEED = 'llama-factory__examples__train_full__qwen3_full_sft.yaml';

function pathFor(file: string): string {
  return file === REFERENCES_DEEPSPEED ? llamaFactoryCheckout() : dataFile('fixtures', 'configs', file);
}

describe('readTrainerConfig over data/fixtures/configs', () => {
  it('covers all 19 fixtures', () => expect(EXPECTED).toHaveLength(19));

  it.each(EXPECTED.map((e) => [e.file, e] as const))(
    '%s gives the scenario fields expected.jsonl lists',
    async (_f, e) => {
      const { report } = await readTrainerConfig(pathFor(e.file));
      expect(FORMAT_OF_LABEL[e.trainer]).toContain(report.format);
      // expected.jsonl names no framework: each fixture gets its format's, assumed.
      expect(report.scenario.framework).toBe(report.format);
      expect(report.assumed).toContainEqual(expect.objectContaining({ field: 'framework' }));
      expect(report.scenario).toMatchObject(e.scenario);
      // Fields the file leaves to the trainer's defaults are filled and listed as assumed.
      if (e.trainerDefaults) {
        expect(report.scenario).toMatchObject(e.trainerDefaults);
        const assumed = report.assumed.map((a) => a.field);
        for (const [field, value] of Object.entries(e.trainerDefaults)) {
          if (typeof value === 'object' && value !== null)
            for (const sub of Object.keys(value)) expect(assumed).toContain(`${field}.${sub}`);
          else expect(assumed).toContain(field);
        }
      }
      // Every field of the scenario is either mapped from a key or assumed: nothing appears from nowhere.
      const accounted = new Set([
        ...report.mapped.map((m) => m.field),
        ...report.assumed.map((a) => a.field),
      ]);
      const leaves = (obj: Record<string, unknown>, prefix = ''): string[] =>
        Object.entries(obj).flatMap(([k, v]) =>
          v !== null && typeof v === 'object' && !Array.isArray(v)
            ? leaves(v as Record<string, unknown>, `${prefix}${k}.`)
            : [`${prefix}${k}`],
        );
      for (const field of leaves(report.scenario)) expect(accounted).toContain(field);
    },
  );

  it.each(EXPECTED.map((e) => [e.file, e] as const))(
    '%s reports the unmapped keys expected.jsonl lists',
    async (_f, e) => {
      const { report } = await readTrainerConfig(pathFor(e.file));
      const keys = report.unmapped.map((u) => u.key);
      const mappedInstead = MAPPED_INSTEAD[e.file] ?? [];
      expect(keys).toEqual(expect.arrayContaining(e.unmapped.filter((k) => !mappedInstead.includes(k))));
      const extras = keys.filter((k) => !e.unmapped.includes(k) && !k.startsWith('examples/deepspeed/'));
      expect(extras).toEqual(EXTRA_UNMAPPED[e.file] ?? []);
      for (const key of mappedInstead) expect(report.mapped.map((m) => m.key)).toContain(key);
    },
  );

  it('maps torchtune optimizer_in_bwd to optimizerInBackward, true and false alike', async () => {
    const on = await readTrainerConfig(
      pathFor('torchtune__recipes__configs__llama3_2__3B_full_single_device.yaml'),
    );
    expect(on.report.scenario.optimizerInBackward).toBe(true);
    expect(parseScenario(on.report.scenario).optimizerInBackward).toBe(true);
    const off = await readTrainerConfig(pathFor('torchtune__recipes__configs__llama3_1__8B_full.yaml'));
    expect(off.report.scenario.optimizerInBackward).toBe(false);
  });

  it("maps torchtune custom_sharded_layers [tok_embeddings, output] to FSDP's wrapEmbeddings", async () => {
    const { report } = await readTrainerConfig(
      pathFor('torchtune__recipes__configs__llama3_1__8B_full.yaml'),
    );
    expect(report.scenario.parallelism).toMatchObject({ strategy: 'fsdp', wrapEmbeddings: true });
  });

  it('imports every trainer config (not DeepSpeed/accelerate-only) into a valid scenario once a model is known', async () => {
    for (const e of EXPECTED.filter((x) => x.scenario.model !== undefined)) {
      const { report } = await readTrainerConfig(pathFor(e.file));
      expect(() => parseScenario(report.scenario), e.file).not.toThrow();
    }
  });
});

describe('a DeepSpeed file referenced by a trainer config', () => {
  it('is found in a folder above the config (LLaMA-Factory writes repo-root paths) and merged', async () => {
    const path = llamaFactoryCheckout();
    const { report, deepspeedPath } = await readTrainerConfig(path);
    expect(deepspeedPath).toBe(join(path, '..', '..', 'deepspeed', 'ds_z3_config.json'));
    expect(report.mapped).toContainEqual({
      key: 'examples/deepspeed/ds_z3_config.json:zero_optimization.stage',
      value: 3,
      field: 'parallelism.strategy',
      to: 'zero3',
    });
    expect(report.unmapped.map((u) => u.key)).toContain(
      'examples/deepspeed/ds_z3_config.json:zero_optimization.sub_group_size',
    );
    // The trainer decides batch sizes and precision: the DeepSpeed file's "auto" entries are not repeated.
    expect(report.unmapped.filter((u) => u.kind === 'auto')).toEqual([]);
  });

  it('is reported unresolved, not an error, when it cannot be found', async () => {
    const { report, deepspeedPath } = await readTrainerConfig(
      dataFile('fixtures', 'configs', REFERENCES_DEEPSPEED),
    );
    expect(deepspeedPath).toBeNull();
    const entry = report.unmapped.find((u) => u.key === 'deepspeed');
    expect(entry).toMatchObject({ kind: 'unresolved', value: 'examples/deepspeed/ds_z3_config.json' });
    expect(report.scenario.parallelism).toBeUndefined();
  });

  it('is looked for beside the config, in every folder above it, then in the working directory', () => {
    expect(deepspeedCandidates('ds.json', '/a/b/train.yaml', '/w')).toEqual([
      '/a/b/ds.json',
      '/a/ds.json',
      '/ds.json',
      '/w/ds.json',
    ]);
    expect(deepspeedCandidates('/abs/ds.json', '/a/b/train.yaml', '/w')).toEqual(['/abs/ds.json']);
  });

  it('can be inline in TrainingArguments', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'headroom-cfg-'));
    const file = join(dir, 'args.json');
    writeFileSync(
      file,
      JSON.stringify({
        model_name_or_path: 'meta-llama/Llama-3.1-8B',
        per_device_train_batch_size: 2,
        bf16: true,
        deepspeed: { zero_optimization: { stage: 2, offload_optimizer: { device: 'cpu' } } },
      }),
    );
    const { report } = await readTrainerConfig(file);
    expect(report.format).toBe('hf-trainer');
    expect(report.scenario).toEqual({
      model: 'meta-llama/Llama-3.1-8B',
      method: 'full',
      microBatchSize: 2,
      optimizer: 'adamw',
      fusedOptimizer: true,
      parallelism: { strategy: 'zero2' },
      offload: { optimizer: 'cpu', params: 'none' },
      precision: 'bf16-mixed',
      framework: 'hf-trainer',
    });
  });
});

describe('hostile config files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'headroom-bad-'));
  const write = (name: string, text: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('a missing file names the path', async () => {
    await expect(readTrainerConfig(join(dir, 'nope.yaml'))).rejects.toMatchObject({
      code: 'bad-file',
      message: expect.stringContaining(`trainer config ${join(dir, 'nope.yaml')} does not exist`) as unknown,
    });
  });

  it('broken YAML names the line', async () => {
    await expect(readTrainerConfig(write('bad.yaml', 'base_model: x\nlora_r: [8,\n'))).rejects.toMatchObject({
      code: 'bad-file',
      where: 'bad.yaml:3',
    });
  });

  it('broken JSON is a user error', async () => {
    await expect(readTrainerConfig(write('bad.json', '{"zero_optimization": {'))).rejects.toMatchObject({
      code: 'bad-file',
      where: 'bad.json',
    });
  });

  it('a list, a scalar or an unknown mapping is not a config', async () => {
    await expect(readTrainerConfig(write('list.yaml', '- a\n- b\n'))).rejects.toThrow(/not a list/);
    await expect(readTrainerConfig(write('scalar.yaml', '42\n'))).rejects.toThrow(/not a number/);
    await expect(readTrainerConfig(write('other.yaml', 'name: my app\nport: 8080\n'))).rejects.toThrow(
      /not a trainer config Headroom recognises/,
    );
  });

  it('a file larger than any config is refused before parsing', async () => {
    const path = write('huge.yaml', Buffer.alloc(MAX_CONFIG_BYTES + 1, 0x20));
    await expect(readTrainerConfig(path)).rejects.toThrow(/larger than any trainer config/);
  });

  it('a YAML alias bomb is refused', async () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 12; i++) {
      const prev = String.fromCharCode(97 + i);
      const next = String.fromCharCode(98 + i);
      lines.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    await expect(readTrainerConfig(write('bomb.yaml', `${lines.join('\n')}\n`))).rejects.toMatchObject({
      code: 'bad-file',
    });
  });

  it('unknown values are reported, not guessed', async () => {
    const path = write(
      'odd.yml',
      'base_model: NousResearch/Meta-Llama-3-8B\nadapter: lora\noptimizer: galore_adamw\nattn_implementation: magic\n',
    );
    const { report } = await readTrainerConfig(path);
    // The reasons are codes; their English comes from the catalog (src/words/import-reasons.ts).
    expect(report.unmapped.map((u) => ({ ...u, reason: say(IMPORT_REASONS, 'en', u.reason) }))).toEqual([
      {
        key: 'optimizer',
        value: 'galore_adamw',
        kind: 'unresolved',
        reason: 'an optimizer Headroom does not model',
      },
      {
        key: 'attn_implementation',
        value: 'magic',
        kind: 'unresolved',
        reason: 'an attention kernel Headroom does not model',
      },
    ]);
    expect(report.scenario.optimizer).toBeUndefined();
  });
});
