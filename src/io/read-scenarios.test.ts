import { describe, expect, it } from 'vitest';
import { userErrorOf } from '../core/test-helpers/user-error.js';
import { parseScenarioText } from './read-scenarios.js';

describe('parseScenarioText', () => {
  it('reads one object, an array of objects, and JSON Lines with their line numbers', () => {
    expect(parseScenarioText('{\n  "model": "llama-3.1-8b"\n}\n', 'a.json')).toEqual([
      { line: 1, value: { model: 'llama-3.1-8b' } },
    ]);
    expect(parseScenarioText('[{"model": "a"}, {"model": "b"}]', 'a.json').map((e) => e.value)).toEqual([
      { model: 'a' },
      { model: 'b' },
    ]);
    const lines = parseScenarioText('{"model": "a"}\n\n{"model": "b"}\n', 'a.jsonl');
    expect(lines.map((e) => [e.line, e.value])).toEqual([
      [1, { model: 'a' }],
      [3, { model: 'b' }],
    ]);
  });

  it('keeps a bad JSON Lines line as an error of its own, and the other lines', () => {
    const entries = parseScenarioText('{"model": "a"}\n{"model": \n{"model": "c"}\n', 'runs.jsonl');
    expect(entries.map((e) => e.line)).toEqual([1, 2, 3]);
    expect(entries[1]!.error?.message).toMatch(/^runs\.jsonl:2: not valid JSON/);
    expect(entries[2]!.value).toEqual({ model: 'c' });
  });

  it('a pretty-printed object with a mistake is one error that says the line and column, not one per line', () => {
    const error = userErrorOf(() =>
      parseScenarioText('{\n  "model": "llama-3.1-8b",\n  "method": "lora",\n}\n', 'run.json'),
    );
    expect(error.where).toBe('run.json');
    // Node 20 reports the offset of the closing brace after the trailing comma: line 4, column 1.
    expect(error.message).toMatch(/^run\.json is not valid JSON at line 4, column 1 \(/);
    expect(error.hint).toMatch(/one JSON object .* or JSON Lines/);
  });

  it('loses no line to a null, a BOM or a bad first line (issue 22)', () => {
    const withNull = parseScenarioText('{"model": "a"}\nnull\n{"model": "c"}\n7\n', 'runs.jsonl');
    expect(withNull.map((e) => e.line)).toEqual([1, 2, 3, 4]);
    expect(withNull.map((e) => (e.value as { model?: string } | undefined)?.model ?? null)).toEqual([
      'a',
      null,
      'c',
      null,
    ]);
    expect(withNull[1]!.error!.message).toBe('runs.jsonl:2: null, not a scenario object');
    expect(withNull[3]!.error!.message).toBe('runs.jsonl:4: a number, not a scenario object');
    const bom = parseScenarioText('\ufeff{"model": "a"}\n{"model": "b"}\n', 'runs.jsonl');
    expect(bom.map((e) => (e.value as { model: string }).model)).toEqual(['a', 'b']);
    expect(parseScenarioText('\ufeff{"model": "a"}', 'one.json')).toEqual([
      { line: 1, value: { model: 'a' } },
    ]);
    const badFirst = parseScenarioText('{"model": \n{"model": "b"}\n{"model": "c"}\n', 'runs.jsonl');
    expect(badFirst.map((e) => e.error === undefined)).toEqual([false, true, true]);
    expect(badFirst[0]!.error!.where).toBe('runs.jsonl:1');
    expect(parseScenarioText('[{"model": "a"}, null]', 'a.json')[1]!.error!.message).toBe(
      'a.json:2: null, not a scenario object',
    );
  });

  it('an empty file is an error naming it', () => {
    expect(userErrorOf(() => parseScenarioText(' \n', 'empty.json')).message).toBe('empty.json is empty');
  });
});
