/**
 * The parsers' properties, shared by the suites in test/fuzz (a fixed seed, a bounded count) and
 * `npm run bench:fuzz` (the same properties, longer): whatever the input — random, or a real sample
 * from data/ mutated — each parser returns a typed value or throws a HeadroomUserError, never another
 * exception. Inputs are the real samples (nvidia-smi captures, the OOM corpus, the trainer configs,
 * catalog model configs) mutated by text edits and by replacing values with hostile ones.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { styleFor } from '../../src/cli/_output.js';
import { renderEnv } from '../../src/cli/env.js';
import { shapeFromConfig } from '../../src/core/architecture.js';
import { findGpu, MODELS } from '../../src/core/catalog/index.js';
import { diagnose } from '../../src/core/diagnose/diagnose.js';
import { type EnvSnapshot, parseEnvGpus, parseEnvSnapshot } from '../../src/core/env.js';
import { isUserError } from '../../src/core/errors.js';
import { estimate } from '../../src/core/estimate.js';
import { importConfig } from '../../src/core/import/import-config.js';
import { checkMigration } from '../../src/core/migrate.js';
import { parseNvidiaSmiCsv } from '../../src/core/nvidia-smi.js';
import { parseNvidiaSmiTable } from '../../src/core/nvidia-smi-table.js';
import { parseProbeLine } from '../../src/core/probe-log.js';
import { parseSafetensorsHeader } from '../../src/core/safetensors.js';
import { parseSafetensorsIndex } from '../../src/core/safetensors-index.js';
import { parseScenario } from '../../src/core/scenario.js';
import { findOomInStderr } from '../../src/core/stderr-oom.js';
import { parseConfigText } from '../../src/io/read-config.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

// ---------------------------------------------------------------- the real samples

const SMI_DIR = 'data/validation/nvidia-smi';
const SMI_TEXTS = readdirSync(join(ROOT, SMI_DIR))
  .filter((n) => /\.(txt|csv)$/.test(n))
  .map((n) => read(`${SMI_DIR}/${n}`));
const OOM_TEXTS = read('data/validation/oom_corpus.jsonl')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => (JSON.parse(l) as { text?: unknown }).text)
  .filter((t): t is string => typeof t === 'string' && t.length > 0);
const CONFIG_DIR = 'data/fixtures/configs';
const CONFIG_FILES = readdirSync(join(ROOT, CONFIG_DIR))
  .filter((n) => /\.(ya?ml|json)$/.test(n))
  .map((name) => ({ name, text: read(`${CONFIG_DIR}/${name}`) }));
const MODEL_CONFIGS = MODELS.map((m) => JSON.parse(JSON.stringify(m)) as Record<string, unknown>);
const SCENARIOS = read('data/validation/measurements.jsonl')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => (JSON.parse(l) as { scenario?: unknown }).scenario)
  .filter((s): s is Record<string, unknown> => s !== null && typeof s === 'object')
  .slice(0, 60);
const BASE = '"v":1,"t":1700000000.5,"pid":4242,"rank":0,"localRank":0,"worldSize":1';
const DEVICE =
  '{"index":0,"allocatedBytes":1000,"reservedBytes":2000,"peakAllocatedBytes":1500,"peakReservedBytes":2500}';
const PROBE_LINES = [
  `{${BASE},"event":"start","probeVersion":"1","host":"gpu1","argv":["train.py","--lr","1e-4"],"python":"3.11.7","torch":"2.5.1","cuda":"12.4","bitsandbytes":"0.42.0","cudaVisibleDevices":"0,1"}`,
  `{${BASE},"event":"step","step":12,"phase":"train","loss":2.5,"lr":0.0001,"batchSize":4,"seqLen":512,"durationS":0.41,"devices":[${DEVICE}]}`,
  `{${BASE},"event":"phase","phase":"eval","previous":"train","step":3,"devices":[]}`,
  `{${BASE},"event":"end","reason":"exit","steps":3}`,
];

/** A real environment file, built by the env parsers from the nvidia-smi captures. */
function envSample(): EnvSnapshot {
  const gpus = parseEnvGpus(read(`${SMI_DIR}/12_h200_query_gpu_full.csv`));
  return {
    kind: 'headroom-env',
    version: 1,
    capturedAt: '2026-07-01T00:00:00.000Z',
    host: { hostname: 'h', platform: 'linux', arch: 'x64', cpus: 64, memoryBytes: 512 * 1024 ** 3 },
    gpus: { status: 'ok', value: gpus },
    driver: { status: 'ok', value: { driverVersion: '590.48.01', cudaVersion: '13.1' } },
    frameworks: {
      status: 'ok',
      value: { python: '3.11.7', packages: { torch: '2.5.1', transformers: '4.46.0' }, torchCuda: '12.4' },
    },
    interconnect: {
      status: 'ok',
      value: {
        kind: 'nvlink',
        gpuCount: 2,
        nvlinkPairs: 1,
        matrix: [
          ['X', 'NV18'],
          ['NV18', 'X'],
        ],
      },
    },
    disk: {
      status: 'missing',
      reason: 'df failed',
      code: 'failed',
      params: { command: 'df', args: ['-k'], output: 'x' },
    },
  };
}
const ENV_SAMPLES = [JSON.parse(JSON.stringify(envSample())) as Record<string, unknown>];

/** A safetensors header of a small model, as the JSON object a file holds. */
const SAFETENSORS_SAMPLE: Record<string, unknown> = {
  __metadata__: { format: 'pt' },
  'model.embed_tokens.weight': { dtype: 'BF16', shape: [32, 8], data_offsets: [0, 512] },
  'model.layers.0.self_attn.q_proj.weight': { dtype: 'BF16', shape: [8, 8], data_offsets: [512, 640] },
  'model.norm.weight': { dtype: 'F32', shape: [8], data_offsets: [640, 672] },
};
const INDEX_SAMPLE = {
  metadata: { total_size: 672 },
  weight_map: {
    'model.embed_tokens.weight': 'model-00001-of-00002.safetensors',
    'model.norm.weight': 'model-00002-of-00002.safetensors',
  },
};

// ---------------------------------------------------------------- mutations

/** Values that broke the parsers before (issue 22), beside fast-check's random JSON. */
const HOSTILE_VALUES: readonly unknown[] = [
  -22017,
  -1,
  0,
  0.5,
  1e308,
  -1e308,
  2 ** 53,
  'x',
  '',
  ' ',
  '-1',
  '1e400',
  null,
  true,
  false,
  [],
  {},
  [1, 2],
  ['a', 1],
  [{}],
  { toString: 1 },
  { valueOf: 1, toString: 1 },
  [{ toString: 1 }],
  { status: 'ok' },
  { status: 'ok', value: {} },
  nestedList(200),
  '__proto__',
  'constructor',
];

function nestedList(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_VALUES) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

type Edit =
  | { readonly kind: 'set'; readonly path: readonly number[]; readonly value: unknown }
  | { readonly kind: 'delete'; readonly path: readonly number[] }
  | { readonly kind: 'add'; readonly path: readonly number[]; readonly key: string; readonly value: unknown };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({
    kind: fc.constant('set' as const),
    path: fc.array(fc.nat(), { maxLength: 5 }),
    value: hostileValue,
  }),
  fc.record({
    kind: fc.constant('delete' as const),
    path: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
  }),
  fc.record({
    kind: fc.constant('add' as const),
    path: fc.array(fc.nat(), { maxLength: 4 }),
    key: fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('toString', '__proto__', 'text_config', 'moe', 'mla'),
    ),
    value: hostileValue,
  }),
);

/** A copy of `value` with one edit made at a path chosen by child index (modulo each level's size). */
function applyEdit(value: unknown, edit: Edit): unknown {
  const root = structuredClone(value);
  const holder = { root } as Record<string, unknown>;
  let parent: Record<string, unknown> | unknown[] = holder;
  let key: string | number = 'root';
  for (const step of edit.path) {
    const here: unknown = (parent as Record<string | number, unknown>)[key];
    if (here === null || typeof here !== 'object') break;
    const keys: (string | number)[] = Array.isArray(here) ? here.map((_, i) => i) : Object.keys(here);
    if (keys.length === 0) break;
    parent = here as Record<string, unknown>;
    key = keys[step % keys.length]!;
  }
  const target = parent as Record<string | number, unknown>;
  if (edit.kind === 'set') target[key] = edit.value;
  else if (edit.kind === 'delete') {
    if (Array.isArray(target)) target.splice(Number(key), 1);
    else delete target[key];
  } else {
    const here = target[key];
    if (here !== null && typeof here === 'object' && !Array.isArray(here))
      Object.defineProperty(here, edit.key, {
        value: edit.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else target[key] = edit.value;
  }
  return holder.root;
}

/** A real object with up to `max` edits: values replaced by hostile ones, keys deleted or added. */
export function mutatedObject(samples: readonly unknown[], max = 4): fc.Arbitrary<unknown> {
  return fc
    .tuple(fc.constantFrom(...samples), fc.array(editArb, { minLength: 1, maxLength: max }))
    .map(([sample, edits]) => edits.reduce<unknown>((v, e) => applyEdit(v, e), sample));
}

/** Strings that broke a regex or a reader before: long runs, control bytes, half a JSON. */
const HOSTILE_TEXT = [
  ' '.repeat(5000),
  '1'.repeat(5000),
  '\t'.repeat(100),
  '\u0000\u001b[31m\r',
  '\r\n',
  '\n\n\n',
  '{"a":',
  '[[[[[[',
  '&a [*a, *a]',
  '*undefined_alias',
  '- - - - - x',
  'MiB / ',
  'out of memory',
  'Tried to allocate 1e400 GiB',
  '\uFEFF',
  '\uD800',
  '| ',
];

type TextEdit = {
  readonly at: number;
  readonly cut: number;
  readonly insert: string;
  readonly times: number;
};
const textEditArb: fc.Arbitrary<TextEdit> = fc.record({
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  cut: fc.nat({ max: 200 }),
  insert: fc.oneof(fc.constantFrom(...HOSTILE_TEXT), fc.string({ maxLength: 40 }), fc.constant('')),
  times: fc.integer({ min: 1, max: 3 }),
});

/** A real text with up to `max` edits: a slice cut, hostile or random text put in its place (repeated). */
export function mutatedText(samples: readonly string[], max = 4): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...samples), fc.array(textEditArb, { minLength: 1, maxLength: max }))
    .map(([sample, edits]) =>
      edits.reduce((text, e) => {
        const at = Math.floor(e.at * text.length);
        return `${text.slice(0, at)}${e.insert.repeat(e.times)}${text.slice(at + e.cut)}`;
      }, sample),
    );
}

/** Random text, mostly, with the real samples mutated in equal measure. */
function textOf(samples: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(mutatedText(samples), fc.string({ maxLength: 300 }), fc.constantFrom(...HOSTILE_TEXT));
}

/** A JSON text of a mutated object, sometimes cut or edited as text too. */
function jsonTextOf(samples: readonly unknown[]): fc.Arbitrary<string> {
  const texts = mutatedObject(samples).map((v) => JSON.stringify(v) ?? 'null');
  return fc.oneof(
    { weight: 3, arbitrary: texts },
    { weight: 1, arbitrary: texts.chain((t) => mutatedText([t], 2)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null') },
  );
}

// ---------------------------------------------------------------- the properties

/** One parser: the inputs it is tried on and what a typed result must satisfy. */
export interface ParserProperty<I> {
  readonly name: string;
  readonly input: fc.Arbitrary<I>;
  /** Parses the input (and reads the result the way the commands do); throws on a broken result. */
  readonly run: (input: I) => void;
}

function finiteShape(shape: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(shape)) {
    if (typeof value === 'number' && (!Number.isFinite(value) || value < 0))
      throw new Error(`shape.${key} is ${value}`);
  }
}

const H100 = findGpu('h100-sxm')!;
const plainStyle = styleFor({ isTTY: false }, {});
const FIXED_SCENARIO = parseScenario({ model: 'llama-3.2-1b', microBatchSize: 1, seqLen: 512 });

export const PROPERTIES: readonly ParserProperty<never>[] = [
  {
    name: 'config.json',
    input: fc.oneof(
      { weight: 4, arbitrary: mutatedObject(MODEL_CONFIGS) },
      { weight: 1, arbitrary: fc.jsonValue() },
    ),
    run: (config: unknown) => {
      if (config === null || typeof config !== 'object' || Array.isArray(config)) return;
      const shape = shapeFromConfig(config as Record<string, unknown>);
      finiteShape(shape as unknown as Record<string, unknown>);
      const result = estimate({ scenario: FIXED_SCENARIO, shape, gpu: H100 });
      if (!Number.isFinite(result.peak.deviceBytes) || result.peak.deviceBytes <= 0)
        throw new Error(`peak ${result.peak.deviceBytes}`);
    },
  },
  {
    name: 'env snapshot',
    input: jsonTextOf(ENV_SAMPLES),
    run: (text: string) => {
      const env = parseEnvSnapshot(text, 'env.json');
      renderEnv(env, plainStyle, 'en');
      renderEnv(env, plainStyle, 'zh');
      const side = { label: 'env.json', env, gpu: H100 };
      checkMigration({ scenario: FIXED_SCENARIO, shape: LLAMA_1B, from: side, to: side });
    },
  },
  {
    name: 'trainer config (object)',
    input: fc.tuple(fc.constantFrom(...CONFIG_FILES), fc.array(editArb, { minLength: 1, maxLength: 4 })),
    run: ([file, edits]: [(typeof CONFIG_FILES)[number], Edit[]]) => {
      const parsed = file.name.endsWith('.json') ? JSON.parse(file.text) : parseYaml(file.text);
      const config = edits.reduce<unknown>((v, e) => applyEdit(v, e), parsed);
      importConfig({ config, text: file.text, fileName: file.name, deepspeed: null });
    },
  },
  {
    name: 'trainer config (text)',
    input: fc.tuple(fc.constantFrom(...CONFIG_FILES), fc.array(textEditArb, { minLength: 1, maxLength: 4 })),
    run: ([file, edits]: [(typeof CONFIG_FILES)[number], TextEdit[]]) => {
      const text = edits.reduce((t, e) => {
        const at = Math.floor(e.at * t.length);
        return `${t.slice(0, at)}${e.insert.repeat(e.times)}${t.slice(at + e.cut)}`;
      }, file.text);
      const config = parseConfigText(text, file.name);
      importConfig({ config, text, fileName: file.name, deepspeed: null });
    },
  },
  {
    name: 'probe line',
    input: fc.oneof(jsonTextOf(PROBE_LINES.map((l) => JSON.parse(l) as unknown)), textOf(PROBE_LINES)),
    run: (line: string) => {
      const parsed = parseProbeLine(line);
      if (parsed.ok !== true && parsed.ok !== false) throw new Error('neither ok nor a problem');
    },
  },
  {
    name: 'safetensors header',
    input: jsonTextOf([SAFETENSORS_SAMPLE]),
    run: (text: string) => {
      parseSafetensorsHeader(new TextEncoder().encode(text), 'model.safetensors', text.length + 8 + 4096);
    },
  },
  {
    name: 'safetensors index',
    input: jsonTextOf([INDEX_SAMPLE]),
    run: (text: string) => {
      parseSafetensorsIndex(text, 'model.safetensors.index.json');
    },
  },
  {
    name: 'nvidia-smi',
    input: textOf(SMI_TEXTS),
    run: (text: string) => {
      parseNvidiaSmiTable(text);
      parseNvidiaSmiCsv(text, { kind: 'gpu' });
      parseNvidiaSmiCsv(text, { kind: 'apps' });
      parseEnvGpus(text, text);
    },
  },
  {
    name: 'OOM text',
    input: textOf(OOM_TEXTS),
    run: (text: string) => {
      const d = diagnose({ text });
      if (!Array.isArray(d.findings)) throw new Error('no findings list');
      findOomInStderr(text);
    },
  },
  {
    name: 'scenario',
    input: mutatedObject(SCENARIOS),
    run: (input: unknown) => {
      parseScenario(input);
    },
  },
] as unknown as readonly ParserProperty<never>[];

const LLAMA_1B = shapeFromConfig(MODEL_CONFIGS.find((m) => m.id === 'llama-3.2-1b')!);

/** What one input did: nothing, a user error, or a failure (another exception). */
export function tryInput<I>(property: ParserProperty<I>, input: I): { failure: unknown } | null {
  try {
    property.run(input);
    return null;
  } catch (error) {
    return isUserError(error) ? null : { failure: error };
  }
}

/** The fast-check property of a parser: every input gives a typed result or a user error. */
export function propertyOf<I>(property: ParserProperty<I>): fc.IProperty<[I]> {
  return fc.property(property.input, (input) => {
    const outcome = tryInput(property, input);
    if (outcome) throw outcome.failure;
  });
}

/** The seed every suite runs with: a failure in `npm test` is the same failure on every machine. */
export const FUZZ_SEED = 22;
