/**
 * The field table and the `Scenario` type held to each other: at compile time (every leaf path of
 * Scenario has a declaration and words, and nothing else does), and at run time (a scenario with every
 * field set parses to exactly the table's paths).
 */
import { describe, expect, it } from 'vitest';
import { FIELD_WORDS } from '../../words/fields.js';
import { LANGS } from '../../words/lang.js';
import { parseScenario, SCENARIO_FIELDS, SCENARIO_GROUPS, SCENARIO_LIMITS } from '../scenario.js';
import type { FieldDecl } from './table.js';
import type { FieldPath, GroupKey } from './types.js';

/** True when A and B are the same type (the usual exact-equality check). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// Compile-time: the table declares exactly Scenario's leaves, the words word exactly them, and the
// groups are exactly the object-valued fields.
const tableIsScenario: Equal<keyof typeof SCENARIO_FIELDS, FieldPath> = true;
const wordsAreScenario: Equal<keyof (typeof FIELD_WORDS)['zh'], FieldPath> = true;
const groupsAreScenario: Equal<keyof typeof SCENARIO_GROUPS, GroupKey> = true;

/** Every leaf of a parsed scenario, by dotted path (a group's fields one level down; versions is one leaf). */
function leaves(scenario: object): string[] {
  return Object.entries(scenario).flatMap(([key, value]) =>
    key in SCENARIO_GROUPS && value !== null && typeof value === 'object'
      ? Object.keys(value).map((inner) => `${key}.${inner}`)
      : [key],
  );
}

/** A scenario with every field set to a value it keeps (flags true, "present only when" values). */
const EVERY_FIELD = {
  model: 'llama-3.1-8b',
  method: 'qlora',
  lora: {
    rank: 8,
    alpha: 16,
    dropout: 0.05,
    targets: 'all-linear',
    modulesToSave: ['lm_head'],
    adapterDtype: 'model',
  },
  quantization: 'nf4',
  quantizer: 'torchao',
  precision: 'bf16-true',
  loadDtype: 'fp32',
  cachingAllocatorWarmup: true,
  modelCode: 'litgpt',
  optimizer: 'adamw',
  microBatchSize: 2,
  seqLen: 4096,
  gradAccumSteps: 1,
  optimizerInBackward: true,
  fusedOptimizer: true,
  gradientCheckpointing: 'full',
  attention: 'flash',
  torchCompile: true,
  loss: 'chunked',
  parallelism: {
    strategy: 'zero3',
    gpus: 8,
    reduceBucketSize: 'auto',
    overlapComm: true,
  },
  offload: { optimizer: 'cpu', params: 'cpu', activations: 'cpu' },
  expandableSegments: true,
  gpu: 'h100-sxm',
  framework: 'hf-trainer',
  versions: { torch: '2.5.1' },
  padding: 'packed',
  evaluation: { microBatchSize: 8, batches: 4, keepLogits: true, generateTokens: 1024, generateBatch: 1 },
};

describe('the field table and the Scenario type', () => {
  it('agree at compile time', () => {
    expect([tableIsScenario, wordsAreScenario, groupsAreScenario]).toEqual([true, true, true]);
  });

  it('a scenario with every field set keeps every field of the table, and only those', () => {
    // Fields that exclude each other are set in a second scenario: freeze's layers, bitsandbytes' fields
    // (not with torchao), FSDP's options (not with ZeRO), optimizerInBackward (not with DeepSpeed).
    const first = parseScenario({ ...EVERY_FIELD, optimizerInBackward: false });
    const second = parseScenario({
      model: 'llama-3.1-8b',
      method: 'freeze',
      trainableLayers: 4,
      optimizerInBackward: true,
      gradientCheckpointing: 'every-nth',
      checkpointEvery: 3,
      parallelism: {
        strategy: 'fsdp',
        gpus: 2,
        wrapEmbeddings: true,
        syncEachMicroBatch: true,
        fsdpVersion: 1,
        frozenParamGrads: true,
        gatherDtype: 'fp32',
        reduceDtype: 'fp32',
      },
    });
    expect(second.parallelism).toMatchObject({ fsdpVersion: 1, gatherDtype: 'fp32', reduceDtype: 'fp32' });
    expect(second.checkpointEvery).toBe(3);
    const third = parseScenario({
      model: 'llama-3.1-8b',
      method: 'qlora',
      quantization: 'nf4',
      quantizeHead: true,
      quantizedFrom: 'bf16',
      quantizedInputsKept: 'step',
      prepareKbitUpcast: 'kept',
    });
    // Beside the table's fields, the one part the parser derives: what the framework's profile decided.
    const { profile, ...fields } = first;
    expect(profile?.framework).toBe('hf-trainer');
    const seen = new Set([...leaves(fields), ...leaves(second), ...leaves(third)]);
    expect([...seen].sort()).toEqual(Object.keys(SCENARIO_FIELDS).sort());
    expect(first.lora).toEqual(EVERY_FIELD.lora);
    expect(first.parallelism).toEqual(EVERY_FIELD.parallelism);
    expect(first.evaluation).toEqual(EVERY_FIELD.evaluation);
  });

  it('the evaluation group is there only with its batch size, and says so when one is missing', () => {
    const plain = parseScenario({ model: 'llama-3.1-8b' });
    expect(plain.evaluation).toBeUndefined();
    expect(parseScenario({ model: 'llama-3.1-8b', evaluation: { microBatchSize: 4 } }).evaluation).toEqual({
      microBatchSize: 4,
      batches: 1,
    });
    expect(() => parseScenario({ model: 'llama-3.1-8b', evaluation: { keepLogits: true } })).toThrow(
      expect.objectContaining({ reason: 'eval-needs-batch', path: ['evaluation'] }),
    );
  });

  it('a base loaded in fp32 trains under autocast unless the precision says otherwise', () => {
    const lora = { model: 'llama-3.1-8b', method: 'lora' } as const;
    expect(parseScenario({ ...lora, loadDtype: 'fp32' }).precision).toBe('bf16-mixed');
    expect(parseScenario({ ...lora, loadDtype: 'auto' }).precision).toBe('bf16-true');
    expect(parseScenario({ ...lora, loadDtype: 'fp32', precision: 'bf16-true' }).precision).toBe('bf16-true');
    expect(
      parseScenario({ ...lora, method: 'qlora', quantization: 'nf4', loadDtype: 'fp32' }).precision,
    ).toBe('bf16-true');
  });

  it('every field has words in every language, and every flag and form key is declared once', () => {
    for (const lang of LANGS) {
      for (const path of Object.keys(SCENARIO_FIELDS) as FieldPath[]) {
        expect([lang, path, FIELD_WORDS[lang][path].label.length > 0]).toEqual([lang, path, true]);
      }
    }
    const decls: readonly FieldDecl<never>[] = Object.values(SCENARIO_FIELDS);
    const flags = decls.flatMap((d) => (d.flags ?? []).map((f) => f.name));
    const keys = decls.flatMap((d) => (d.form ? [d.form.key] : []));
    const testIds = decls.flatMap((d) => (d.form ? [d.form.testId] : []));
    for (const list of [flags, keys, testIds]) expect(new Set(list).size).toBe(list.length);
  });

  it('the count fields are those SCENARIO_LIMITS lists, each with its limit and its words', () => {
    const counts = Object.entries(SCENARIO_FIELDS).filter(([, d]) => d.kind.type === 'count');
    expect(counts.map(([p]) => p).sort()).toEqual(Object.keys(SCENARIO_LIMITS).sort());
    for (const [path, decl] of counts) {
      expect(decl.kind.max).toBe(SCENARIO_LIMITS[path as keyof typeof SCENARIO_LIMITS].max);
      for (const lang of LANGS) expect(FIELD_WORDS[lang][path as FieldPath].limit?.why).toBeTruthy();
    }
  });
});
