import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS, type Framework, parseScenario, type Versions } from '../scenario.js';
import { allFacts, behaviourDefaults, FRAMEWORK_PROFILES, withFrameworkDefaults } from './profiles.js';
import { BEHAVIOUR_FIELDS, MECHANISMS } from './types.js';
import { parseVersion } from './version.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

interface Row {
  id: string;
  scenario: Record<string, unknown>;
  source: { ref?: string };
}
const rows: Row[] = readFileSync(join(ROOT, 'data', 'validation', 'measurements.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Row);
const byId = new Map(rows.map((r) => [r.id, r]));

interface Correction {
  ids: string[];
  set?: Record<string, unknown>;
  merge?: Record<string, Record<string, unknown>>;
  modelConfig?: Record<string, unknown>;
}
const corrections: Correction[] = JSON.parse(
  readFileSync(join(ROOT, 'bench', 'data', 'framework-facts.json'), 'utf8'),
).corrections;

/**
 * The litgpt version each row's source ran, read from the source it cites: the config_hub table at
 * commit 00af8b0d has pyproject version "0.4.13.dev1"; lit-gpt 8641822 (the 2023 resource tables) has
 * setup.py version "0.1.0". Rows without a commit in their source get no version.
 */
const LITGPT_VERSION_OF_SOURCE: ReadonlyArray<readonly [string, string]> = [
  ['commit 00af8b0d', '0.4.13.dev1'],
  ['commit 8641822', '0.1.0'],
];

function versionsOf(row: Row): Versions {
  const given = (row.scenario.versions ?? {}) as Record<string, string>;
  if (row.scenario.framework !== 'litgpt' || given.litgpt !== undefined) return given;
  const known = LITGPT_VERSION_OF_SOURCE.find(([marker]) => row.source.ref?.includes(marker));
  return known ? { ...given, litgpt: known[1] } : given;
}

/** The framework facts among the corrections: the scenario fields a framework profile decides. */
function frameworkFactsOf(c: Correction): Array<{ field: string; value: unknown }> {
  const out: Array<{ field: string; value: unknown }> = [];
  for (const field of ['quantizeHead', 'quantizedFrom', 'quantizedInputsKept', 'quantizer']) {
    if (c.set?.[field] !== undefined) out.push({ field, value: c.set[field] });
  }
  if (c.merge?.lora?.adapterDtype !== undefined)
    out.push({ field: 'lora.adapterDtype', value: c.merge.lora.adapterDtype });
  if (c.modelConfig?.tie_word_embeddings !== undefined) {
    out.push({ field: 'modelConfig.tie_word_embeddings', value: c.modelConfig.tie_word_embeddings });
  }
  return out;
}

function resolvedValue(row: Row, field: string): unknown {
  const d = behaviourDefaults(row.scenario.framework as Framework, versionsOf(row), row.scenario);
  return d.applied.find((a) => a.field === field)?.value;
}

describe('FRAMEWORK_PROFILES', () => {
  it('has a profile with facts for every framework a scenario may name', () => {
    expect(Object.keys(FRAMEWORK_PROFILES).sort()).toEqual([...FRAMEWORKS].sort());
    for (const framework of FRAMEWORKS) expect(FRAMEWORK_PROFILES[framework].facts.length).toBeGreaterThan(0);
  });

  it('gives every fact a source with a repository, a path and a ref', () => {
    for (const fact of allFacts()) {
      expect(fact.source.repo, fact.id).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(fact.source.path.length, fact.id).toBeGreaterThan(0);
      expect(fact.source.ref.length, fact.id).toBeGreaterThan(0);
      expect(fact.reason.length, fact.id).toBeGreaterThan(0);
    }
  });

  it('names every fact once, with fields, mechanisms and version bounds that exist', () => {
    const facts = allFacts();
    const ids = FRAMEWORKS.flatMap((f) => FRAMEWORK_PROFILES[f].facts.map((x) => x.id));
    expect(new Set(ids).size).toBe(facts.length);
    for (const fact of facts) {
      if (fact.kind === 'sets') expect(BEHAVIOUR_FIELDS).toContain(fact.field);
      else expect(MECHANISMS).toContain(fact.mechanism);
      for (const c of fact.when ?? []) {
        for (const bound of [c.atLeast, c.below]) {
          if (bound !== undefined) expect(parseVersion(bound), `${fact.id} ${bound}`).toBeDefined();
        }
      }
    }
  });

  it('has every fact and mechanism documented in docs/frameworks.md', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'frameworks.md'), 'utf8');
    for (const fact of allFacts()) expect(doc, fact.id).toContain(`\`${fact.id}\``);
    for (const code of MECHANISMS) expect(doc, code).toContain(`\`${code}\``);
    expect(
      new Set(
        allFacts()
          .filter((f) => f.kind === 'mechanism')
          .map((f) => f.mechanism),
      ),
    ).toEqual(new Set(MECHANISMS));
  });

  it('lists every framework fact in corrections.json (and nothing else) for this check', () => {
    const covered = corrections.filter((c) => frameworkFactsOf(c).length > 0);
    // 21 untied-head rows, 16 quantized-head rows (two entries), 3 torchao rows, 12 + 46 adapter-dtype rows.
    expect(covered.map((c) => c.ids.length)).toEqual([21, 16, 16, 3, 12, 46]);
  });
});

describe('behaviourDefaults on the rows corrections.json corrects', () => {
  const cases = corrections.flatMap((c) =>
    frameworkFactsOf(c).flatMap(({ field, value }) => c.ids.map((id) => [id, field, value] as const)),
  );
  it.each(cases)('%s: %s is %s', (id, field, value) => {
    const row = byId.get(id);
    expect(row, id).toBeDefined();
    expect(resolvedValue(row!, field)).toEqual(value);
  });
});

describe('behaviourDefaults by version', () => {
  const qlora = { model: 'llama-2-7b', method: 'qlora', quantization: 'nf4', precision: 'bf16-true' };

  it('hf-trainer with bitsandbytes 0.41.1 keeps 4-bit inputs until the step ends', () => {
    const d = behaviourDefaults('hf-trainer', { bitsandbytes: '0.41.1' }, qlora);
    expect(d.fields.quantizedInputsKept).toBe('step');
    expect(d.assumed.filter((a) => a.target === 'quantizedInputsKept')).toEqual([]);
  });

  it("hf-trainer with bitsandbytes 0.45.0 keeps none, and assumes today's release when none is named", () => {
    expect(
      behaviourDefaults('hf-trainer', { bitsandbytes: '0.45.0' }, qlora).fields.quantizedInputsKept,
    ).toBe('none');
    const unknown = behaviourDefaults('hf-trainer', undefined, qlora);
    expect(unknown.fields.quantizedInputsKept).toBe('none');
    expect(unknown.assumed).toContainEqual({
      target: 'quantizedInputsKept',
      value: 'none',
      package: 'bitsandbytes',
      why: 'current-release',
      factId: 'bnb.inputs-kept-none',
    });
  });

  it('litgpt before 0.5.5 pins bitsandbytes 0.42.0, so its 4-bit inputs live into the next forward', () => {
    const d = behaviourDefaults('litgpt', { litgpt: '0.4.13.dev1' }, qlora);
    expect(d.versions.bitsandbytes).toBe('0.42.0');
    expect(d.fields.quantizedInputsKept).toBe('next-forward');
    expect(d.assumed).toContainEqual({
      target: 'versions.bitsandbytes',
      value: '0.42.0',
      package: 'bitsandbytes',
      why: 'pinned-by-framework',
      factId: 'litgpt.pins.bitsandbytes',
    });
    expect(behaviourDefaults('litgpt', { litgpt: '0.5.8' }, qlora).fields.quantizedInputsKept).toBe('none');
  });

  it('the Trainer fuses AdamW only from torch 2.8: the Qwen rows on torch 2.0 stay foreach', () => {
    const qwen = rows.filter((r) => r.scenario.framework === 'hf-trainer' && r.scenario.versions);
    expect(qwen.length).toBe(81);
    for (const row of qwen) expect(resolvedValue(row, 'fusedOptimizer'), row.id).toBeUndefined();
    expect(
      behaviourDefaults('hf-trainer', { torch: '2.8.0', transformers: '4.56.2' }, {}).fields.fusedOptimizer,
    ).toBe(true);
  });

  it('applies TRL facts only when a TRL version says SFTTrainer runs, each from its release', () => {
    const lora = { model: 'llama-3.1-8b', method: 'lora' };
    expect(behaviourDefaults('hf-trainer', {}, lora).fields.gradientCheckpointing).toBeUndefined();
    expect(
      behaviourDefaults('hf-trainer', { trl: '0.21.0' }, lora).fields.gradientCheckpointing,
    ).toBeUndefined();
    expect(behaviourDefaults('hf-trainer', { trl: '0.22.0' }, lora).fields.gradientCheckpointing).toBe(
      'full',
    );
    expect(behaviourDefaults('hf-trainer', { trl: '1.3.0' }, lora).fields.loss).toBeUndefined();
    expect(behaviourDefaults('hf-trainer', { trl: '1.4.0' }, lora).fields.loss).toBe('chunked');
  });

  it('PEFT adapters: fp32 from 0.12, the base dtype in 0.6–0.11, fp32 before', () => {
    const lora = { model: 'llama-3.1-8b', method: 'lora' };
    const dtype = (peft: string) =>
      (behaviourDefaults('pytorch', { peft }, lora).fields.lora as { adapterDtype?: string } | undefined)
        ?.adapterDtype;
    expect(dtype('0.13.2')).toBe('fp32');
    expect(dtype('0.10.0')).toBe('model');
    expect(dtype('0.5.0')).toBe('fp32');
    // A plain loop need not use PEFT: no version, no assumption.
    expect(behaviourDefaults('pytorch', undefined, lora).fields.lora).toBeUndefined();
  });
});

describe("the trainers' LoRA defaults", () => {
  const lora = { model: 'qwen2.5-7b', method: 'lora' };
  it('ms-swift: all linear layers, rank 8, dropout 0.05; LLaMA-Factory: all linear layers, rank 8; Unsloth: all linear', () => {
    const swift = parseScenario({ ...lora, framework: 'ms-swift' });
    expect([swift.lora?.targets, swift.lora?.rank, swift.lora?.dropout]).toEqual(['all-linear', 8, 0.05]);
    const lf = parseScenario({ ...lora, framework: 'llama-factory' });
    expect([lf.lora?.targets, lf.lora?.rank, lf.lora?.dropout]).toEqual(['all-linear', 8, 0]);
    // The version decides where the default changed: ms-swift 2.x used each model type's own list.
    const swift2 = parseScenario({ ...lora, framework: 'ms-swift', versions: { msSwift: '2.6.1' } });
    expect([swift2.lora?.targets, swift2.lora?.rank]).toEqual([['q_proj', 'v_proj'], 8]);
    const unsloth = parseScenario({ ...lora, framework: 'unsloth' });
    expect([unsloth.lora?.targets, unsloth.lora?.rank]).toEqual(['all-linear', 16]);
    // What the user gives wins.
    const given = parseScenario({ ...lora, framework: 'ms-swift', lora: { targets: ['q_proj'], rank: 64 } });
    expect([given.lora?.targets, given.lora?.rank, given.lora?.dropout]).toEqual([['q_proj'], 64, 0.05]);
  });
});

describe('mechanisms', () => {
  const codes = (framework: Framework, versions: Versions | undefined, raw: Record<string, unknown>) =>
    behaviourDefaults(framework, versions, raw).mechanisms.map((m) => m.code);

  it("names the FSDP1 frozen-gradient mechanism for the 2023 litgpt FSDP LoRA rows, FSDP2 for today's litgpt", () => {
    const fsdpLora = rows.filter(
      (r) =>
        r.scenario.framework === 'litgpt' &&
        r.scenario.method === 'lora' &&
        r.source.ref?.includes('commit 8641822') &&
        (r.scenario.parallelism as { strategy: string }).strategy === 'fsdp',
    );
    expect(fsdpLora.map((r) => r.id)).toEqual([
      'r089',
      'r090',
      'r091',
      'r092',
      'r093',
      'r094',
      'r095',
      'r096',
      'r097',
      'r098',
      'r099',
      'r100',
    ]);
    const fields = (versions: Versions | undefined, raw: Record<string, unknown>) =>
      behaviourDefaults('litgpt', versions, raw).fields;
    for (const row of fsdpLora) {
      // As the row gives it (torch 2.1.0, no litgpt version) and with the source's litgpt version.
      for (const versions of [row.scenario.versions as Versions, versionsOf(row)]) {
        expect(fields(versions, row.scenario).parallelism, row.id).toEqual({
          fsdpVersion: 1,
          frozenParamGrads: true,
        });
      }
    }
    // litgpt's default bf16-mixed under Lightning's FSDP gathers fp32 units; the rows ran bf16-true.
    const mixed = { ...fsdpLora[0]!.scenario, precision: undefined };
    const v2023 = { litgpt: '0.1.0', torch: '2.1.0' };
    expect(fields(v2023, mixed).parallelism).toMatchObject({ gatherDtype: 'fp32' });
    expect(fields(v2023, fsdpLora[0]!.scenario).parallelism).not.toHaveProperty('gatherDtype');
    // Today's litgpt: fully_shard, assumed from the current release, and no frozen gradients.
    const today = behaviourDefaults('litgpt', undefined, fsdpLora[0]!.scenario);
    expect(today.fields.parallelism).toEqual({ fsdpVersion: 2 });
    expect(today.assumed).toContainEqual(
      expect.objectContaining({
        target: 'parallelism.fsdpVersion',
        package: 'litgpt',
        why: 'current-release',
      }),
    );
    // A scenario that says FSDP2 is not given FSDP1's frozen gradients by a torch version.
    const said = { ...fsdpLora[0]!.scenario, parallelism: { strategy: 'fsdp', gpus: 2, fsdpVersion: 2 } };
    expect(fields({ torch: '2.1.0' }, said).parallelism).toEqual({ frozenParamGrads: true });
    expect(codes('litgpt', { torch: '2.1.0' }, fsdpLora[0]!.scenario)).not.toContain(
      'fsdp2-trainable-upcast-fp32',
    );
  });

  it('torchtitan on 8 GPUs: op-level selective checkpointing, FSDP2 with fp32 reduction, fields it fixes', () => {
    const d = behaviourDefaults('torchtitan', undefined, {
      model: 'llama-3.1-8b',
      parallelism: { strategy: 'fsdp', gpus: 8 },
      microBatchSize: 2,
      seqLen: 8192,
    });
    expect(d.mechanisms).toEqual([]);
    expect(d.fields).toEqual({
      precision: 'bf16-mixed',
      gradientCheckpointing: 'selective-op',
      padding: 'packed',
      parallelism: { fsdpVersion: 2, reduceDtype: 'fp32', syncEachMicroBatch: true },
      expandableSegments: true,
    });
  });

  it('torchtune shards with fully_shard', () => {
    const d = behaviourDefaults('torchtune', undefined, {
      model: 'llama-3.1-8b',
      method: 'lora',
      parallelism: { strategy: 'fsdp', gpus: 2 },
    });
    expect(d.fields.parallelism).toEqual({ fsdpVersion: 2, syncEachMicroBatch: true });
    expect(d.mechanisms.map((m) => m.code)).toEqual(['fsdp-load-per-unit']);
  });
});

describe('the phases around the step', () => {
  const lora = { model: 'llama-3.1-8b', method: 'lora' } as const;

  it('the Trainer before transformers 5 loads fp32, and its base then trains under autocast', () => {
    const old = behaviourDefaults('hf-trainer', { transformers: '4.46.0' }, lora);
    expect(old.fields).toMatchObject({ loadDtype: 'fp32', cachingAllocatorWarmup: true });
    expect(parseScenario({ ...lora, ...old.fields }).precision).toBe('bf16-mixed');
    const v5 = behaviourDefaults('hf-trainer', { transformers: '5.1.0' }, lora);
    expect(v5.fields).toMatchObject({ loadDtype: 'auto' });
    expect(parseScenario({ ...lora, ...v5.fields }).precision).toBe('bf16-true');
    // A bitsandbytes base loads in float16 whatever torch_dtype says: no load dtype for QLoRA.
    const q = behaviourDefaults(
      'hf-trainer',
      { transformers: '4.46.0' },
      { ...lora, method: 'qlora', quantization: 'nf4' },
    );
    expect(q.fields).not.toHaveProperty('loadDtype');
  });

  it('the Trainer evaluates at batch 8 only when the scenario says it evaluates; Axolotl at the micro-batch', () => {
    expect(behaviourDefaults('hf-trainer', undefined, lora).fields).not.toHaveProperty('evaluation');
    const evaluating = { ...lora, microBatchSize: 2, evaluation: {} };
    expect(behaviourDefaults('hf-trainer', undefined, evaluating).fields).toMatchObject({
      evaluation: { microBatchSize: 8 },
    });
    expect(behaviourDefaults('axolotl', undefined, evaluating).fields).toMatchObject({
      evaluation: { microBatchSize: 2 },
    });
    const { scenario } = withFrameworkDefaults({ ...evaluating, framework: 'hf-trainer' });
    expect(parseScenario(scenario).evaluation).toEqual({ microBatchSize: 8, batches: 1 });
  });

  it('TRL < 0.22 casts the upcast back under bf16 and keeps it under fp16; not with FSDP', () => {
    const qlora = { model: 'llama-3.1-8b', method: 'qlora', quantization: 'nf4' };
    const trl = { trl: '0.19.0' };
    expect(behaviourDefaults('hf-trainer', trl, qlora).fields).toMatchObject({
      prepareKbitUpcast: 'cast-back',
    });
    expect(behaviourDefaults('hf-trainer', trl, { ...qlora, precision: 'fp16-mixed' }).fields).toMatchObject({
      prepareKbitUpcast: 'kept',
    });
    const fsdp = { ...qlora, parallelism: { strategy: 'fsdp', gpus: 2 } };
    expect(behaviourDefaults('hf-trainer', trl, fsdp).fields).not.toHaveProperty('prepareKbitUpcast');
    expect(behaviourDefaults('hf-trainer', { trl: '0.22.0' }, qlora).fields).not.toHaveProperty(
      'prepareKbitUpcast',
    );
  });
});

describe('explicit fields', () => {
  it('are never overridden, for any framework', () => {
    const explicit = {
      model: 'llama-2-7b',
      method: 'qlora',
      quantization: 'nf4',
      quantizer: 'bitsandbytes',
      precision: 'bf16-true',
      lora: { adapterDtype: 'fp32', dropout: 0, rank: 16, targets: ['q_proj', 'v_proj'] },
      modelCode: 'transformers',
      quantizeHead: false,
      quantizedFrom: 'bf16',
      quantizedInputsKept: 'none',
      fusedOptimizer: false,
      gradientCheckpointing: 'none',
      offload: { activations: 'none' },
      loss: 'standard',
      padding: 'max-length',
      parallelism: {
        strategy: 'fsdp',
        gpus: 2,
        syncEachMicroBatch: false,
        fsdpVersion: 1,
        frozenParamGrads: false,
        gatherDtype: 'compute',
        reduceDtype: 'compute',
      },
      expandableSegments: false,
      loadDtype: 'auto',
      prepareKbitUpcast: 'kept',
      cachingAllocatorWarmup: false,
      evaluation: { microBatchSize: 4, generateTokens: 512, generateBatch: 2 },
    };
    const versions = {
      bitsandbytes: '0.41.1',
      trl: '1.9.0',
      litgpt: '0.4.0',
      torch: '2.8.0',
      transformers: '4.56.0',
    };
    for (const framework of FRAMEWORKS) {
      const d = behaviourDefaults(framework, versions, explicit);
      expect(d.fields, framework).toEqual({});
    }
  });

  it('survive withFrameworkDefaults on every measured row, and every patched row still parses', () => {
    const framed = rows.filter(
      (r) => typeof r.scenario.framework === 'string' && r.scenario.method !== 'peft-other',
    );
    expect(framed.length).toBe(234);
    for (const row of framed) {
      const { scenario } = withFrameworkDefaults(row.scenario);
      for (const [key, value] of Object.entries(row.scenario)) {
        if (typeof value !== 'object' || value === null)
          expect(scenario[key], `${row.id} ${key}`).toEqual(value);
        else expect(scenario[key], `${row.id} ${key}`).toMatchObject(value);
      }
      expect(() => parseScenario(scenario), row.id).not.toThrow();
    }
  });

  it("pad per batch where the trainer's collator pads to the longest sample, unless the scenario says how it batches", () => {
    for (const framework of ['llama-factory', 'axolotl', 'ms-swift', 'litgpt', 'torchtune'] as const) {
      expect(withFrameworkDefaults({ model: 'llama-2-7b', framework }).scenario.padding, framework).toBe(
        'longest',
      );
      expect(
        withFrameworkDefaults({ model: 'llama-2-7b', framework, padding: 'packed' }).scenario.padding,
        framework,
      ).toBe('packed');
    }
    // torchtitan cuts a token stream into windows: every batch is full.
    expect(withFrameworkDefaults({ model: 'llama-2-7b', framework: 'torchtitan' }).scenario.padding).toBe(
      'packed',
    );
  });

  it('leave the input untouched and a scenario without a framework unchanged', () => {
    const raw = { model: 'llama-2-7b', method: 'lora', framework: 'litgpt' };
    const { scenario, defaults } = withFrameworkDefaults(raw);
    expect(raw).toEqual({ model: 'llama-2-7b', method: 'lora', framework: 'litgpt' });
    expect(scenario).toEqual({
      ...raw,
      precision: 'bf16-mixed',
      lora: { adapterDtype: 'model', dropout: 0.05 },
      modelCode: 'litgpt',
      loss: 'chunked',
      padding: 'longest',
      // litgpt validates before training and every interval, and generates a sample alone.
      evaluation: { microBatchSize: 1, generateTokens: 2048, generateBatch: 1 },
    });
    expect(defaults?.modelConfig).toEqual({ tie_word_embeddings: false });
    expect(withFrameworkDefaults({ model: 'llama-2-7b' })).toEqual({ scenario: { model: 'llama-2-7b' } });
  });
});
