/** docs/fields.md is generated from the field table: a field added there is documented, or this fails. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fieldsDoc } from '../scripts/fields-doc.js';
import { SCENARIO_FIELDS } from '../src/core/scenario/fields.js';
import { REPO_ROOT } from './data.js';

describe('docs/fields.md', () => {
  it('is what npm run docs:fields writes from the table today', () => {
    expect(readFileSync(join(REPO_ROOT, 'docs', 'fields.md'), 'utf8')).toBe(fieldsDoc());
  });
  it('has one row per field, with its flag', () => {
    const doc = fieldsDoc();
    for (const path of Object.keys(SCENARIO_FIELDS)) expect(doc).toContain(`| \`${path}\` |`);
    expect(doc).toContain('| `parallelism.fsdpVersion` | `--fsdp-version` |');
  });
});
