/** `headroom models [query]`: list and search the embedded model catalog. */
import { searchModels } from '../core/catalog/index.js';
import { resolveModelRef } from '../core/model-ref.js';
import { formatParams } from '../core/units.js';
import { say } from '../words/catalog.js';
import type { Lang } from '../words/lang.js';
import { MODEL_WORDS } from '../words/models.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
import { resolutionLine } from './_model-words.js';
import { renderTable, styleFor } from './_output.js';

/** The command's --help in a language. */
export function helpFor(lang: Lang): string {
  return `${say(MODEL_WORDS, lang, { code: 'help', params: {} })}
${LANG_HELP}`;
}

export const help = helpFor('en');

const OPTIONS = { json: { type: 'boolean' }, ...LANG_OPTIONS } as const;

const COLUMNS = [
  'column-id',
  'column-repo',
  'column-type',
  'column-params',
  'column-layers',
  'column-hidden',
  'column-heads',
  'column-vocab',
] as const;

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, OPTIONS, 'models', 10);
  const lang = langFromFlag(values.lang, ctx.env);
  const query = positionals.join(' ');
  const models = searchModels(query);
  if (values.json) {
    ctx.stdout.write(`${JSON.stringify(models, null, 2)}\n`);
    return 0;
  }
  const style = styleFor(ctx.stdout);
  if (models.length === 0) {
    ctx.stdout.write(
      `${say(MODEL_WORDS, lang, { code: 'no-match', params: { query, total: searchModels().length } })}\n`,
    );
    return 0;
  }
  const resolved = query.trim() === '' ? null : resolveModelRef(query);
  const line = resolved ? resolutionLine(resolved, lang) : null;
  if (line) ctx.stdout.write(`${style.dim(line)}\n`);
  const rows = models.map((m) => [
    style.bold(m.id),
    m.hfRepo,
    m.model_type,
    formatParams(m.params.total),
    String(m.num_hidden_layers),
    String(m.hidden_size),
    `${m.num_attention_heads}/${m.num_key_value_heads}`,
    String(m.vocab_size),
    m.moe ? 'MoE' : '',
  ]);
  ctx.stdout.write(
    `${renderTable([...COLUMNS.map((code) => say(MODEL_WORDS, lang, { code, params: {} })), ''], rows, [3, 4, 5, 7])}\n`,
  );
  ctx.stdout.write(
    style.dim(
      `${say(MODEL_WORDS, lang, { code: 'count', params: { count: models.length, first: models[0]!.id } })}\n`,
    ),
  );
  return 0;
}
