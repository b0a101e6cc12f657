/**
 * One field added to the table, and nothing else edited: a fixture table with two made-up fields is
 * parsed, flagged (options, merge, drop, "which flag set this"), helped and drawn in the form, by the
 * same derivations the real table goes through.
 */
import { describe, expect, it } from 'vitest';
import { mergeScenarioFlags, named, scenarioFlagsHelp, scenarioOptions } from '../src/cli/_scenario-flags.js';
import { count, flag } from '../src/core/scenario/kinds.js';
import { parserOf } from '../src/core/scenario/parse.js';
import { type AnyTable, type FieldDecl, loose, type View } from '../src/core/scenario/table.js';
import { SCENARIO_TABLE } from '../src/core/scenario.js';
import { userErrorOf } from '../src/core/test-helpers/user-error.js';
import { FIELD_WORDS, type FieldWordsTable } from '../src/words/fields.js';
import { formDefaults, formModel } from '../web/src/scenario-form.js';
import { formFromQuery, queryFromForm, scenarioFromForm } from '../web/src/scenario-url.js';

/** Made up: an exponential moving average of the trained layers, which only method freeze keeps here. */
const ema: FieldDecl<View> = {
  kind: flag(),
  off: false,
  keep: (value) => value === true,
  rules: [
    {
      reason: 'only-freeze-method',
      kind: 'applies',
      ok: (v) => v.method === 'freeze',
      params: (v) => ({ method: String(v.method) }),
    },
  ],
  flags: [{ name: 'ema' }, { name: 'no-ema', sets: false }],
  form: { key: 'ema', control: 'checkbox', testId: 'ema' },
};

/** Made up: data loader workers per GPU, a count with a limit and a default. */
const dataWorkers: FieldDecl<View> = {
  kind: count(64),
  default: 2,
  flags: [{ name: 'data-workers', metavar: 'N', example: '4' }],
  form: { key: 'dataWorkers', control: 'number', testId: 'data-workers' },
};

const real = loose(SCENARIO_TABLE);
const TABLE: AnyTable = { fields: { ...real.fields, ema, dataWorkers }, groups: real.groups };
const WORDS: FieldWordsTable = {
  ...FIELD_WORDS.en,
  ema: {
    label: 'EMA of the trained layers',
    help: 'keep an exponential moving average of the trained layers',
  },
  dataWorkers: { label: 'Data workers', help: 'data loader workers per GPU' },
};
const parse = parserOf(TABLE);

describe('a field added to the table', () => {
  it('is parsed: its default filled, its rule and its limit checked, its key known', () => {
    expect(parse({ model: 'x', method: 'freeze', ema: true })).toMatchObject({ ema: true, dataWorkers: 2 });
    expect('ema' in parse({ model: 'x', method: 'freeze', ema: false })).toBe(false);
    const refused = userErrorOf(() => parse({ model: 'x', method: 'lora', ema: true }));
    expect([refused.reason, refused.path, refused.message]).toEqual([
      'only-freeze-method',
      ['ema'],
      'ema: is only used with method "freeze", not "lora"',
    ]);
    const tooMany = userErrorOf(() => parse({ model: 'x', dataWorkers: 65 }));
    expect([tooMany.code, tooMany.params]).toEqual(['out-of-range', { value: 65, min: 1, max: 64 }]);
    expect(userErrorOf(() => parse({ model: 'x', batch: 1 })).hint).toMatch(/, ema, dataWorkers$/);
    // The real table knows neither.
    expect(userErrorOf(() => parserOf(real)({ model: 'x', ema: true })).reason).toBe('unknown-field');
  });

  it('is flagged: its options, its merge over a file, the drop a method change makes, and errors named by the flag', () => {
    const options: Readonly<Record<string, { type: string }>> = scenarioOptions(TABLE.fields);
    expect([options.ema, options['no-ema'], options['data-workers']]).toEqual([
      { type: 'boolean' },
      { type: 'boolean' },
      { type: 'string' },
    ]);
    const merged = mergeScenarioFlags(
      { model: 'x' },
      { method: 'freeze', ema: true, 'data-workers': '8' },
      undefined,
      {
        table: TABLE,
      },
    );
    expect(parse(merged.raw)).toMatchObject({ method: 'freeze', ema: true, dataWorkers: 8 });
    expect(
      mergeScenarioFlags({ model: 'x', ema: true }, { 'no-ema': true }, undefined, { table: TABLE }).raw.ema,
    ).toBe(false);
    // A file's EMA goes with a flag that leaves method freeze; asked for on the command line, it is refused.
    const file = { model: 'x', method: 'freeze', ema: true };
    const moved = mergeScenarioFlags(file, { method: 'lora' }, undefined, {
      table: TABLE,
      baseSource: () => ({ kind: 'file', file: 'run.json' }),
    });
    expect('ema' in moved.raw).toBe(false);
    const both = mergeScenarioFlags({ model: 'x' }, { method: 'lora', ema: true }, undefined, {
      table: TABLE,
    });
    const error = named(
      userErrorOf(() => parse(both.raw)),
      both.sources,
      'estimate',
      TABLE,
    ) as Error & { hint?: string };
    expect(error.message).toBe('--ema is only used with method "freeze", not "lora"');
    const notANumber = userErrorOf(() =>
      mergeScenarioFlags({ model: 'x' }, { 'data-workers': 'many' }, undefined, { table: TABLE }),
    );
    expect([notANumber.where, notANumber.message, notANumber.hint]).toEqual([
      '--data-workers',
      '--data-workers many: not a number; give a whole number from 1 to 64',
      'e.g. --data-workers 4',
    ]);
  });

  it('is helped: a line for the flag and for its negation, with the words and the default', () => {
    const help = scenarioFlagsHelp('en', TABLE, WORDS).split('\n');
    expect(help.find((l) => l.includes('--ema '))).toMatch(
      /^ {2}--ema {21}keep an exponential moving average/,
    );
    expect(help.find((l) => l.includes('--no-ema'))).toMatch(/--no-ema\s+keep an exponential/);
    expect(help.find((l) => l.includes('--data-workers'))).toMatch(
      /^ {2}--data-workers N\s+data loader workers per GPU\s+\[2\]$/,
    );
    // The real help has neither.
    expect(scenarioFlagsHelp('en')).not.toContain('--data-workers');
  });

  it('is in the form: its control where it applies, its default, the URL and the scenario it makes', () => {
    const defaults = formDefaults(TABLE);
    expect([defaults.ema, defaults.dataWorkers]).toEqual(['false', '2']);
    const freeze = formModel({ ...defaults, method: 'freeze', ema: 'true' }, null, {
      table: TABLE,
      words: WORDS,
    });
    expect(freeze.controls.find((c) => c.key === 'ema')).toMatchObject({
      control: 'checkbox',
      testId: 'ema',
      label: 'EMA of the trained layers',
      value: 'true',
    });
    expect(freeze.controls.find((c) => c.key === 'dataWorkers')).toMatchObject({
      control: 'number',
      label: 'Data workers',
      value: '2',
      min: 1,
    });
    expect(parse(freeze.scenario)).toMatchObject({ method: 'freeze', ema: true, dataWorkers: 2 });
    // Under LoRA the form neither shows it nor sends it.
    const lora = formModel({ ...defaults, ema: 'true' }, null, { table: TABLE, words: WORDS });
    expect(lora.controls.some((c) => c.key === 'ema')).toBe(false);
    expect('ema' in lora.scenario).toBe(false);
    // A link carries it.
    const { form } = formFromQuery('method=freeze&ema=true&dataWorkers=6', TABLE);
    expect(parse(scenarioFromForm(form, null, TABLE))).toMatchObject({ ema: true, dataWorkers: 6 });
    expect(queryFromForm(form, null, { ...defaults, headroom: '10' })).toBe(
      'method=freeze&ema=true&dataWorkers=6',
    );
  });
});
