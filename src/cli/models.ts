/** `headroom models [query]`: list and search the embedded model catalog. */
import { searchModels } from '../core/catalog/index.js';
import { resolveModelRef } from '../core/model-ref.js';
import { formatParams } from '../core/units.js';
import { type CommandContext, parseFlags } from './_command.js';
import { resolutionLine } from './_model-words.js';
import { renderTable, styleFor } from './_output.js';

export const help = `headroom models [QUERY] [--json]

Lists the embedded model catalog; QUERY keeps models whose id, repo or architecture contain every word,
and a Hub id of a catalog model under another spelling (an instruct variant, a re-upload, a
pre-quantized copy) finds that model.
  headroom models qwen3
  headroom models llama 8b --json
  headroom models unsloth/Llama-3.2-3B-Instruct-bnb-4bit`;

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, { json: { type: 'boolean' } }, 'models', 10);
  const query = positionals.join(' ');
  const models = searchModels(query);
  if (values.json) {
    ctx.stdout.write(`${JSON.stringify(models, null, 2)}\n`);
    return 0;
  }
  const style = styleFor(ctx.stdout);
  if (models.length === 0) {
    ctx.stdout.write(
      `no catalog model matches "${query}"; headroom models lists all ${searchModels().length}\n`,
    );
    return 0;
  }
  const resolved = query.trim() === '' ? null : resolveModelRef(query);
  const line = resolved ? resolutionLine(resolved) : null;
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
    `${renderTable(['id', 'Hugging Face repo', 'type', 'params', 'layers', 'hidden', 'heads/kv', 'vocab', ''], rows, [3, 4, 5, 7])}\n`,
  );
  ctx.stdout.write(
    style.dim(
      `${models.length} model${models.length === 1 ? '' : 's'}. Estimate one: headroom estimate ${models[0]!.id} --gpu rtx-4090\n`,
    ),
  );
  return 0;
}
