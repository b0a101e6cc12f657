/** `headroom env capture|show`: record this machine's training environment, or show a recorded one. */
import { type Captured, type EnvGpu, type EnvSnapshot, parseEnvSnapshot } from '../core/env.js';
import { fileError } from '../core/file-errors.js';
import type { MessageOf } from '../core/message.js';
import { formatBytes } from '../core/units.js';
import { captureEnvironment } from '../io/env-capture.js';
import { readUserFile, refuseFolder, type UserFileKind, writeUserFile } from '../io/user-file.js';
import { say } from '../words/catalog.js';
import { ENV_WORDS, type EnvWordParams } from '../words/env.js';
import type { Lang } from '../words/lang.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
import { type Style, styleFor } from './_output.js';
import { columns, padColumns } from './_width.js';

export const help = `headroom env — the training environment of a machine, as JSON

Usage:
  headroom env capture [-o FILE] [--dir DIR] [--no-disk-probe] [--json] [--lang en|zh]
  headroom env show FILE [--json] [--lang en|zh]

capture records: the GPUs (name, memory.total, compute capability, MIG mode and instances, PCIe link)
and the driver and CUDA versions from nvidia-smi; the GPU interconnect (nvidia-smi topo -m); Python
framework versions (torch and its CUDA build, transformers, peft, trl, accelerate, deepspeed,
bitsandbytes, torchao, flash-attn, and the trainers torchtune, litgpt, lightning, axolotl,
llamafactory, ms-swift, unsloth, torchtitan) by asking python3 (estimate --env FILE reads them); the free space of DIR and a quick write-throughput
probe (64 MiB written, synced and removed). A part the machine lacks is recorded as missing, with why.

  -o, --output FILE         write the JSON there (and print a summary); without it the JSON goes to stdout
  --dir DIR                 where checkpoints and data will live                [.]
  --no-disk-probe           skip the write-throughput probe
  --json                    print the JSON (with -o as well)
${LANG_HELP}

Then compare two machines: headroom migrate --from-env a.json --to-env b.json MODEL …`;

const OPTIONS = {
  output: { type: 'string', short: 'o' },
  dir: { type: 'string' },
  'no-disk-probe': { type: 'boolean' },
  ...LANG_OPTIONS,
  json: { type: 'boolean' },
} as const;

type EnvWordCode = keyof EnvWordParams;

/** Renders an environment for the terminal, in a language. */
export function renderEnv(env: EnvSnapshot, style: Style, lang: Lang = 'en'): string {
  const word = <C extends EnvWordCode>(code: C, params: EnvWordParams[C]) =>
    say(ENV_WORDS, lang, { code, params } as MessageOf<EnvWordParams>);
  const part = <T>(captured: Captured<T>, show: (value: T) => string): string =>
    captured.status === 'ok' ? show(captured.value) : style.yellow(word('missing', { part: captured }));
  const h = env.host;
  const lines = [style.bold(word('header', h)), style.dim(word('captured', { at: env.capturedAt })), ''];
  const labels = {
    gpus: word('label-gpus', {}),
    driver: word('label-driver', {}),
    interconnect: word('label-interconnect', {}),
    frameworks: word('label-frameworks', {}),
    disk: word('label-disk', {}),
  };
  const width = Math.max(LABEL_WIDTH, ...Object.values(labels).map(columns));
  const row = (label: string, text: string) => lines.push(`  ${padColumns(label, width)} ${text}`);
  const mig = (g: EnvGpu) =>
    g.migMode === 'enabled'
      ? style.yellow(word('mig-on', { instancesBytes: g.migDevicesMemoryBytes }))
      : g.migMode === 'disabled'
        ? word('mig-off', {})
        : '?';
  row(
    labels.gpus,
    part(env.gpus, (gpus) =>
      gpus
        .map((g) =>
          [
            `${g.index}: ${g.name}${g.catalogId ? style.dim(` (${g.catalogId})`) : ''}`,
            g.memoryTotalBytes === null ? '?' : formatBytes(g.memoryTotalBytes),
            word('compute', { computeCapability: g.computeCapability }),
            `MIG ${mig(g)}`,
            ...(g.pcie ? [`PCIe gen ${g.pcie.gen} x${g.pcie.lanes}`] : []),
          ].join(' · '),
        )
        .join(`\n  ${''.padEnd(width)} `),
    ),
  );
  row(
    labels.driver,
    part(env.driver, (d) => `${d.driverVersion ?? '?'} · CUDA ${d.cudaVersion ?? '?'}`),
  );
  row(
    labels.interconnect,
    part(env.interconnect, (t) =>
      t.kind === 'single'
        ? word('topo-single', {})
        : t.kind === 'nvlink'
          ? word('topo-nvlink', { gpus: t.gpuCount })
          : t.kind === 'partial'
            ? word('topo-partial', { nvlinkPairs: t.nvlinkPairs, pairs: (t.gpuCount * (t.gpuCount - 1)) / 2 })
            : word('topo-pcie', { gpus: t.gpuCount }),
    ),
  );
  row(
    labels.frameworks,
    part(env.frameworks, (f) =>
      [
        `Python ${f.python}`,
        ...Object.entries(f.packages).map(([name, v]) => (v ? `${name} ${v}` : style.dim(`${name} —`))),
        ...(f.torchCuda ? [`torch CUDA ${f.torchCuda}`] : []),
      ].join(' · '),
    ),
  );
  row(
    labels.disk,
    part(env.disk, (d) => word('disk', d)),
  );
  return lines.join('\n');
}

/** The width of the labels' column: the English labels' (interconnect), at least. */
const LABEL_WIDTH = 13;

async function capture(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values } = parseFlags(args, OPTIONS, 'env capture', 0);
  const lang = langFromFlag(values.lang, ctx.env);
  // A folder for -o is refused before the capture, which takes seconds.
  if (values.output !== undefined) refuseFolder(values.output, ENV_FILE);
  const env = await captureEnvironment({
    dir: values.dir ?? '.',
    env: ctx.env,
    ...(values['no-disk-probe'] ? { probeBytes: 0 } : {}),
  });
  const json = `${JSON.stringify(env, null, 2)}\n`;
  if (values.output !== undefined) {
    await writeUserFile(values.output, json, ENV_FILE);
  }
  if (values.json || values.output === undefined) {
    ctx.stdout.write(json);
    return 0;
  }
  const style = styleFor(ctx.stdout);
  const written = say(ENV_WORDS, lang, { code: 'written-to', params: { path: values.output } });
  ctx.stdout.write(`${renderEnv(env, style, lang)}\n\n${style.dim(written)}\n`);
  return 0;
}

async function show(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(
    args,
    { ...LANG_OPTIONS, json: { type: 'boolean' } },
    'env show',
    1,
  );
  const lang = langFromFlag(values.lang, ctx.env);
  const file = positionals[0];
  if (file === undefined) {
    throw fileError(
      'missing-argument',
      { command: 'env show', needs: 'env-file', ref: '' },
      'FILE',
      'bad-flag',
    );
  }
  const env = parseEnvSnapshot(await readEnvFile(file), file);
  ctx.stdout.write(
    values.json ? `${JSON.stringify(env, null, 2)}\n` : `${renderEnv(env, styleFor(ctx.stdout), lang)}\n`,
  );
  return 0;
}

/** An environment file (env capture's JSON), for the messages about the file itself. */
const ENV_FILE: UserFileKind = {
  role: 'env-file',
  advice: 'env-file',
  example: 'env.json',
  extensions: ['.json'],
};

/** Reads an environment file's text; a missing file, a folder or an unreadable one is a user error. */
export async function readEnvFile(path: string): Promise<string> {
  return readUserFile(path, ENV_FILE);
}

/**
 * The subcommand wherever --lang stands before it (`env --lang zh show f.json` is `env show f.json
 * --lang zh`); the rest, --lang included, goes to the subcommand, which reads its own flags.
 */
function envSubcommand(args: readonly string[]): { sub: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--lang') {
      rest.push(...args.slice(i, i + 2));
      i++;
    } else if (arg.startsWith('--lang=')) rest.push(arg);
    else break;
  }
  return { sub: args[i], rest: [...rest, ...args.slice(i + 1)] };
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { sub, rest } = envSubcommand(args);
  if (sub === 'capture') return capture(rest, ctx);
  if (sub === 'show') return show(rest, ctx);
  throw fileError('unknown-subcommand', { command: 'env', sub: sub ?? '' }, 'env', 'bad-flag');
}
