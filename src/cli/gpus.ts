/** `headroom gpus [query]`: list and search the embedded GPU catalog. */
import { searchGpus } from '../core/catalog/index.js';
import { usableBytes } from '../core/estimate.js';
import { GIB } from '../core/units.js';
import { type CommandContext, parseFlags } from './_command.js';
import { renderTable, styleFor } from './_output.js';

export const help = `headroom gpus [QUERY] [--json]

Lists the embedded GPU catalog. "usable" is what nvidia-smi reports as memory.total, not the marketed size.
  headroom gpus a100
  headroom gpus nvidia hopper --json`;

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, { json: { type: 'boolean' } }, 'gpus', 10);
  const query = positionals.join(' ');
  const gpus = searchGpus(query);
  if (values.json) {
    ctx.stdout.write(
      `${JSON.stringify(
        gpus.map((g) => ({ ...g, usableBytes: usableBytes(g) })),
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const style = styleFor(ctx.stdout);
  if (gpus.length === 0) {
    ctx.stdout.write(`no catalog GPU matches "${query}"; headroom gpus lists all ${searchGpus().length}\n`);
    return 0;
  }
  const rows = gpus.map((g) => [
    style.bold(g.id),
    g.name,
    `${(usableBytes(g) / GIB).toFixed(1)} GiB`,
    `${g.memoryGiB} GB`,
    g.bf16 ? 'yes' : style.yellow('no'),
    g.denseBf16Tflops === null ? '—' : String(g.denseBf16Tflops),
    g.interconnect?.type ?? '—',
  ]);
  ctx.stdout.write(
    `${renderTable(['id', 'name', 'usable', 'marketed', 'bf16', 'bf16 TFLOP/s', 'interconnect'], rows, [2, 3, 5])}\n`,
  );
  ctx.stdout.write(
    style.dim(
      `${gpus.length} GPUs. Check a fit: headroom estimate llama-3.1-8b --method qlora --quantization nf4 --gpu ${gpus[0]!.id}\n`,
    ),
  );
  return 0;
}
