/** `headroom env capture|show`: record this machine's training environment, or show a recorded one. */
import { type Captured, type EnvSnapshot, parseEnvSnapshot } from '../core/env.js';
import { HeadroomUserError } from '../core/errors.js';
import { formatBytes } from '../core/units.js';
import { captureEnvironment } from '../io/env-capture.js';
import { readUserFile, refuseFolder, type UserFileKind, writeUserFile } from '../io/user-file.js';
import { type CommandContext, parseFlags } from './_command.js';
import { type Style, styleFor } from './_output.js';

export const help = `headroom env — the training environment of a machine, as JSON

Usage:
  headroom env capture [-o FILE] [--dir DIR] [--no-disk-probe] [--json]
  headroom env show FILE [--json]

capture records: the GPUs (name, memory.total, compute capability, MIG mode and instances, PCIe link)
and the driver and CUDA versions from nvidia-smi; the GPU interconnect (nvidia-smi topo -m); Python
framework versions (torch and its CUDA build, transformers, peft, trl, accelerate, deepspeed,
bitsandbytes, torchao, flash-attn) by asking python3; the free space of DIR and a quick write-throughput
probe (64 MiB written, synced and removed). A part the machine lacks is recorded as missing, with why.

  -o, --output FILE         write the JSON there (and print a summary); without it the JSON goes to stdout
  --dir DIR                 where checkpoints and data will live                [.]
  --no-disk-probe           skip the write-throughput probe
  --json                    print the JSON (with -o as well)

Then compare two machines: headroom migrate --from-env a.json --to-env b.json MODEL …`;

const OPTIONS = {
  output: { type: 'string', short: 'o' },
  dir: { type: 'string' },
  'no-disk-probe': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

function part<T>(style: Style, captured: Captured<T>, show: (value: T) => string): string {
  return captured.status === 'ok' ? show(captured.value) : style.yellow(`missing — ${captured.reason}`);
}

/** Renders an environment for the terminal. */
export function renderEnv(env: EnvSnapshot, style: Style): string {
  const h = env.host;
  const lines = [
    style.bold(
      `environment of ${h.hostname} (${h.platform} ${h.arch}, ${h.cpus} CPUs, ${formatBytes(h.memoryBytes)} RAM)`,
    ),
    style.dim(`captured ${env.capturedAt}`),
    '',
  ];
  const row = (label: string, text: string) => lines.push(`  ${label.padEnd(13)} ${text}`);
  row(
    'GPUs',
    part(style, env.gpus, (gpus) =>
      gpus
        .map(
          (g) =>
            `${g.index}: ${g.name}${g.catalogId ? style.dim(` (${g.catalogId})`) : ''} · ${g.memoryTotalBytes === null ? '?' : formatBytes(g.memoryTotalBytes)} · compute ${g.computeCapability ?? '?'} · MIG ${g.migMode === 'enabled' ? style.yellow(`on (${g.migDevicesMemoryBytes.map((b) => formatBytes(b)).join(', ') || 'instances unknown'})`) : (g.migMode ?? '?') === 'disabled' ? 'off' : '?'}${g.pcie ? ` · PCIe gen ${g.pcie.gen} x${g.pcie.lanes}` : ''}`,
        )
        .join(`\n  ${''.padEnd(13)} `),
    ),
  );
  row(
    'driver',
    part(style, env.driver, (d) => `${d.driverVersion ?? '?'} · CUDA ${d.cudaVersion ?? '?'}`),
  );
  row(
    'interconnect',
    part(style, env.interconnect, (t) =>
      t.kind === 'single'
        ? 'one GPU'
        : t.kind === 'nvlink'
          ? `NVLink between all ${t.gpuCount} GPUs`
          : t.kind === 'partial'
            ? `NVLink on ${t.nvlinkPairs} of ${(t.gpuCount * (t.gpuCount - 1)) / 2} GPU pairs, PCIe for the rest`
            : `PCIe only between ${t.gpuCount} GPUs`,
    ),
  );
  row(
    'frameworks',
    part(style, env.frameworks, (f) =>
      [
        `Python ${f.python}`,
        ...Object.entries(f.packages).map(([name, v]) => (v ? `${name} ${v}` : style.dim(`${name} —`))),
        ...(f.torchCuda ? [`torch CUDA ${f.torchCuda}`] : []),
      ].join(' · '),
    ),
  );
  row(
    'disk',
    part(
      style,
      env.disk,
      (d) =>
        `${d.path} · ${formatBytes(d.freeBytes)} free of ${formatBytes(d.totalBytes)}${d.writeBytesPerSecond ? ` · writes ${formatBytes(d.writeBytesPerSecond)}/s` : ''}`,
    ),
  );
  return lines.join('\n');
}

async function capture(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values } = parseFlags(args, OPTIONS, 'env capture', 0);
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
  ctx.stdout.write(`${renderEnv(env, style)}\n\n${style.dim(`written to ${values.output}`)}\n`);
  return 0;
}

async function show(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, { json: { type: 'boolean' } }, 'env show', 1);
  const file = positionals[0];
  if (file === undefined) {
    throw new HeadroomUserError({
      code: 'bad-flag',
      where: 'FILE',
      message: 'env show needs an environment file',
      hint: 'headroom env capture -o env.json, then headroom env show env.json',
    });
  }
  const env = parseEnvSnapshot(await readEnvFile(file), file);
  ctx.stdout.write(
    values.json ? `${JSON.stringify(env, null, 2)}\n` : `${renderEnv(env, styleFor(ctx.stdout))}\n`,
  );
  return 0;
}

/** An environment file (env capture's JSON), for the messages about the file itself. */
const ENV_FILE: UserFileKind = {
  what: 'environment file',
  example: 'env.json',
  extensions: ['.json'],
  hint: 'capture one with: headroom env capture -o env.json',
};

/** Reads an environment file's text; a missing file, a folder or an unreadable one is a user error. */
export async function readEnvFile(path: string): Promise<string> {
  return readUserFile(path, ENV_FILE);
}

export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'capture') return capture(rest, ctx);
  if (sub === 'show') return show(rest, ctx);
  throw new HeadroomUserError({
    code: 'bad-flag',
    where: 'env',
    message: sub === undefined ? 'env needs a subcommand' : `env: unknown subcommand "${sub}"`,
    hint: 'headroom env capture -o env.json, or headroom env show env.json',
  });
}
