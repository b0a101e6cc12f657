/**
 * The words of the errors of a command line the CLI cannot parse (src/cli/_command.ts, src/cli/_lang.ts),
 * in English and Chinese. Node's parseArgs words (`detail`) are the English message as it always was;
 * the Chinese names the flag an unknown-option error is about and keeps Node's words for the rest.
 */
import type { CliErrorParams, Needed } from '../core/file-errors.js';
import { defineDomain } from './catalog.js';

type Missing = CliErrorParams['missing-argument'];
type FlagValue = CliErrorParams['flag-value'];
type Sub = CliErrorParams['unknown-subcommand'];

/** What a command cannot go without, after `COMMAND needs`. */
const NEEDS_EN: Readonly<Record<Needed, string>> = {
  'run-id': 'a run id',
  'snapshot-file': 'the .pickle file of a memory snapshot',
  command: 'a command after --',
  run: 'a run',
  output: 'an output file',
  'log-source': 'a recorded run, a log file, or a traceback on standard input',
  'env-file': 'an environment file',
  'recorded-run': 'a recorded run',
  'trainer-config': 'a trainer config file',
  model: 'a model',
  'target-gpu': 'a target GPU',
  'probe-log': '--log FILE, the probe log of the run',
  prometheus: 'a Prometheus server to ask: --prometheus URL, or HEADROOM_PROMETHEUS',
  'migrate-target': 'a target: --to-env FILE (captured there) or --to-gpu ID (a catalog GPU)',
};
const NEEDS_ZH: Readonly<Record<Needed, string>> = {
  'run-id': '一个运行 id',
  'snapshot-file': '内存快照的 .pickle 文件',
  command: '在 -- 之后给出要运行的命令',
  run: '一个运行',
  output: '一个输出文件（-o）',
  'log-source': '一个已记录的运行、一个日志文件，或从标准输入传入的报错信息',
  'env-file': '一个环境文件',
  'recorded-run': '一个已记录的运行',
  'trainer-config': '一个训练配置文件',
  model: '一个模型',
  'target-gpu': '指定目标 GPU',
  // The space keeps the flag apart from 需要.
  'probe-log': ' --log FILE（该运行的探针日志）',
  prometheus: '一个可查询的 Prometheus 服务器：--prometheus URL，或设置 HEADROOM_PROMETHEUS',
  'migrate-target': '一个迁移目标：--to-env FILE（在目标机器上采集）或 --to-gpu ID（目录中的 GPU）',
};

const MODEL_HINT_EN = (p: Missing) =>
  p.command === 'estimate'
    ? 'headroom estimate llama-3.1-8b --method lora --gpu rtx-4090   (headroom models lists the catalog)'
    : `headroom ${p.command} llama-3.1-8b …, or --model ID with --from (headroom models lists the catalog)`;
const MODEL_HINT_ZH = (p: Missing) =>
  p.command === 'estimate'
    ? 'headroom estimate llama-3.1-8b --method lora --gpu rtx-4090（headroom models 列出目录中的模型）'
    : `headroom ${p.command} llama-3.1-8b …，或配合 --from 使用 --model ID（headroom models 列出目录中的模型）`;

const NEEDS_HINT_EN: Readonly<Record<Needed, (p: Missing) => string>> = {
  'run-id': (p) => `headroom runs lists them; headroom ${p.command} last works too`,
  'snapshot-file': () => 'headroom snapshot snapshot.pickle (written by torch.cuda.memory._dump_snapshot)',
  command: () => 'headroom run -- python train.py',
  run: () => 'headroom report last -o run.html   (headroom runs lists them)',
  output: (p) => `headroom report ${p.ref} -o run-${p.ref}.html`,
  'log-source': () =>
    'headroom diagnose last   or   headroom diagnose train.log   or   headroom diagnose - < error.txt',
  'env-file': () => 'headroom env capture -o env.json, then headroom env show env.json',
  'recorded-run': (p) => `headroom ${p.command} last (headroom runs lists them)`,
  'trainer-config': () => 'headroom import examples/llama-3/qlora.yml',
  model: MODEL_HINT_EN,
  'target-gpu': (p) =>
    p.command === 'plan'
      ? 'add --gpu ID (headroom gpus lists them), and --gpus N for several'
      : 'add --gpu ID (headroom gpus lists them)',
  'probe-log': () => 'headroom watch --log /tmp/probe.jsonl (the HEADROOM_LOG the training was started with)',
  prometheus: () => 'headroom fleet --prometheus http://127.0.0.1:9090',
  'migrate-target': () => 'headroom env capture -o target.json on the target machine, or --to-gpu h100-sxm',
};
const NEEDS_HINT_ZH: Readonly<Record<Needed, (p: Missing) => string>> = {
  'run-id': (p) => `headroom runs 列出全部运行；也可以用 headroom ${p.command} last`,
  'snapshot-file': () => 'headroom snapshot snapshot.pickle（由 torch.cuda.memory._dump_snapshot 写出）',
  command: () => '在 -- 之后写出训练命令：headroom run -- python train.py',
  run: () => 'headroom report last -o run.html（headroom runs 列出全部运行）',
  output: (p) => `用 -o 指定要写入的 HTML 文件：headroom report ${p.ref} -o run-${p.ref}.html`,
  'log-source': () =>
    'headroom diagnose last，或 headroom diagnose train.log，或 headroom diagnose - < error.txt',
  'env-file': () => '先用 headroom env capture -o env.json 采集，再用 headroom env show env.json 查看',
  'recorded-run': (p) => `headroom ${p.command} last（headroom runs 列出全部运行）`,
  'trainer-config': () => '例如 headroom import examples/llama-3/qlora.yml',
  model: MODEL_HINT_ZH,
  'target-gpu': (p) =>
    p.command === 'plan'
      ? '加上 --gpu ID（headroom gpus 列出全部 GPU），多卡再加 --gpus N'
      : '加上 --gpu ID（headroom gpus 列出全部 GPU）',
  'probe-log': () => 'headroom watch --log /tmp/probe.jsonl（即训练启动时使用的 HEADROOM_LOG）',
  prometheus: () => '例如 headroom fleet --prometheus http://127.0.0.1:9090',
  'migrate-target': () => '在目标机器上运行 headroom env capture -o target.json，或使用 --to-gpu h100-sxm',
};

/** What a flag takes, after `--flag VALUE:`. */
function takesEn(p: FlagValue): string {
  const values = p.values ?? [];
  switch (p.expected) {
    case 'whole-number':
      return `not a whole number ${p.max === undefined ? `of at least ${p.min ?? 1}` : `from ${p.min ?? 1} to ${p.max}`}`;
    case 'token-count':
      return 'not a token count';
    case 'size':
      return 'not a size';
    case 'seconds':
      return 'not a number of seconds (0 or more)';
    case 'port':
      return `not a port number${p.max === undefined ? '' : ` (${p.min ?? 0} to ${p.max})`}`;
    case 'positive':
      return 'not a positive number';
    case 'margin':
      return 'not a margin between 0 % and 90 %';
    case 'one-of':
      return values.length === 2 ? `not ${values[0]} or ${values[1]}` : `not one of ${values.join(', ')}`;
    case 'either':
      return values.join(' or ');
  }
}
function takesZh(p: FlagValue): string {
  const values = p.values ?? [];
  switch (p.expected) {
    case 'whole-number':
      return p.max === undefined
        ? `应为不小于 ${p.min ?? 1} 的整数`
        : `应为 ${p.min ?? 1} 到 ${p.max} 之间的整数`;
    case 'token-count':
      return '不是有效的 token 数';
    case 'size':
      return '不是有效的大小';
    case 'seconds':
      return '应为不小于 0 的秒数';
    case 'port':
      return `不是有效的端口号${p.max === undefined ? '' : `（${p.min ?? 0} 到 ${p.max}）`}`;
    case 'positive':
      return '应为正数';
    case 'margin':
      return '应为 0 % 到 90 % 之间的余量';
    case 'one-of':
    case 'either':
      return values.length === 2 ? `应为 ${values[0]} 或 ${values[1]}` : `应为以下之一：${values.join('、')}`;
  }
}

/** A good value of the flag: `e.g. --flag 8`, or the flag as it is best written. */
function exampleEn(p: FlagValue): string {
  if (p.expected === 'token-count') return `e.g. ${p.flag} 2e9, ${p.flag} 500M or ${p.flag} 1.5B`;
  if (p.expected === 'size') return `e.g. ${p.flag} 40GB or ${p.flag} 1.5TiB`;
  if (p.expected === 'port' || p.expected === 'one-of' || p.expected === 'either')
    return `${p.flag} ${p.example}`;
  const entries =
    p.flag === '--snapshot-entries' ? " (each entry keeps one allocation's stack on the host)" : '';
  return `e.g. ${p.flag} ${p.example}${entries}`;
}
function exampleZh(p: FlagValue): string {
  if (p.expected === 'token-count') return `例如 ${p.flag} 2e9、${p.flag} 500M 或 ${p.flag} 1.5B`;
  if (p.expected === 'size') return `例如 ${p.flag} 40GB 或 ${p.flag} 1.5TiB`;
  const entries = p.flag === '--snapshot-entries' ? '（每个条目都会在主机内存中保存一次分配的调用栈）' : '';
  return `例如 ${p.flag} ${p.example}${entries}`;
}

const SUB_HINT_EN: Readonly<Record<Sub['command'], string>> = {
  runs: 'headroom runs [show|diff|export|rm] (headroom runs --help)',
  env: 'headroom env capture -o env.json, or headroom env show env.json',
  probe: 'headroom probe path',
};
const SUB_HINT_ZH: Readonly<Record<Sub['command'], string>> = {
  runs: 'headroom runs [show|diff|export|rm]（详见 headroom runs --help）',
  env: 'headroom env capture -o env.json，或 headroom env show env.json',
  probe: '用 headroom probe path',
};

const SPEAKER_EN = { headroom: 'Headroom speaks', findings: 'the findings speak' } as const;
const SPEAKER_ZH = { headroom: 'Headroom 支持', findings: '诊断结论支持' } as const;

/** Node's codes of a flag error, in Chinese; any other keeps Node's own words. */
function parseZh(p: CliErrorParams['flag-parse']): string {
  if (p.nodeCode === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && p.option !== '') return `未知选项 '${p.option}'`;
  if (p.nodeCode === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && p.option !== '') {
    // Node's two cases (util.parseArgs): nothing after the flag, or a value that looks like a flag.
    if (p.detail.includes('argument missing')) return `选项 '${p.option}' 缺少取值`;
    if (p.detail.includes('argument is ambiguous'))
      return `选项 '${p.option}' 后面紧跟的像是另一个选项；若取值本身以 - 开头，请写成 ${p.option}=-XYZ`;
    return `选项 '${p.option}' 的取值有误（${p.detail}）`;
  }
  return `参数有误（${p.detail}）`;
}

export const CLI_ERRORS = defineDomain<CliErrorParams>({
  name: 'cli-errors',
  words: {
    en: {
      'flag-parse': (p) => `${p.command}: ${p.detail}`,
      'extra-argument': (p) => `${p.command}: unexpected argument "${p.arg}"`,
      'bad-lang': (p) => `--lang ${p.value}: ${SPEAKER_EN[p.speaker]} en (English) and zh (简体中文)`,
      'unknown-command': (p) => `unknown command "${p.command}"`,
      'unknown-subcommand': (p) =>
        p.sub === '' ? `${p.command} needs a subcommand` : `${p.command}: unknown subcommand "${p.sub}"`,
      'missing-argument': (p) => `${p.command} needs ${NEEDS_EN[p.needs]}`,
      'flag-value': (p) => `${p.flag} ${p.value}: ${takesEn(p)}`,
      'scenario-and-from': (p) => `${p.command}: give --scenario or --from, not both`,
      'setup-without-model': (p) => `${p.flag} describes a setup, but no model was given`,
      'snapshot-pair-scenario': () => 'snapshot A B compares two snapshots; a scenario goes with one',
      'scenario-count': (p) => `${p.command} takes one scenario; ${p.file} has ${p.count}`,
      'names-no-model': (p) => `${p.file} names no model (${p.format} config)`,
      'gpu-unknown': (p) => `${p.flag} "${p.id}" is not in the catalog`,
      'host-without-token': (p) =>
        `--host ${p.host} exposes your runs beyond this machine, and no --token was given`,
      'probe-missing': (p) => `the probe is missing from this installation (${p.file})`,
      'port-unavailable': (p) =>
        `${p.flag} ${p.port}: ${p.busy ? 'the port is already in use' : 'not allowed to listen on it'} (${p.host})`,
    },
    zh: {
      'flag-parse': (p) => `${p.command}：${parseZh(p)}`,
      'extra-argument': (p) => `${p.command}：多余的参数 "${p.arg}"`,
      'bad-lang': (p) => `--lang ${p.value}：${SPEAKER_ZH[p.speaker]} en（English）和 zh（简体中文）`,
      'unknown-command': (p) => `未知命令 "${p.command}"`,
      'unknown-subcommand': (p) =>
        p.sub === '' ? `${p.command} 需要一个子命令` : `${p.command}：未知子命令 "${p.sub}"`,
      'missing-argument': (p) => `${p.command} 需要${NEEDS_ZH[p.needs]}`,
      'flag-value': (p) => `${p.flag} ${p.value}：${takesZh(p)}`,
      'scenario-and-from': (p) => `${p.command}：--scenario 和 --from 只能给出其中之一`,
      'setup-without-model': (p) => `${p.flag} 描述的是训练配置，但没有给出模型`,
      'snapshot-pair-scenario': () => 'snapshot A B 比较两个快照；场景只能配合单个快照使用',
      'scenario-count': (p) => `${p.command} 只接受一个场景；${p.file} 中有 ${p.count} 个`,
      'names-no-model': (p) => `${p.file} 中没有指定模型（${p.format} 配置）`,
      'gpu-unknown': (p) => `${p.flag} "${p.id}" 不在目录中`,
      'host-without-token': (p) => `--host ${p.host} 会把你的运行暴露到本机之外，但没有给出 --token`,
      'probe-missing': (p) => `此次安装中缺少探针（${p.file}）`,
      'port-unavailable': (p) =>
        `${p.flag} ${p.port}：${p.busy ? '端口已被占用' : '没有权限监听该端口'}（${p.host}）`,
    },
  },
  examples: {
    'flag-parse': {
      command: 'estimate',
      detail: "Unknown option '--micro-batches'",
      nodeCode: 'ERR_PARSE_ARGS_UNKNOWN_OPTION',
      option: '--micro-batches',
    },
    'extra-argument': { command: 'estimate', arg: 'llama-3.1-70b' },
    'bad-lang': { value: 'fr', speaker: 'headroom' },
    'unknown-command': { command: 'estimat' },
    'unknown-subcommand': { command: 'runs', sub: 'frob' },
    'missing-argument': { command: 'report', needs: 'output', ref: '3' },
    'flag-value': {
      flag: '--max-gpus',
      value: '-3',
      expected: 'whole-number',
      min: 1,
      max: 100_000,
      example: '8',
    },
    'scenario-and-from': { command: 'plan' },
    'setup-without-model': { command: 'diagnose', flag: '--micro-batch' },
    'snapshot-pair-scenario': { second: 'after.pickle' },
    'scenario-count': { command: 'plan', file: 'runs.jsonl', count: 3 },
    'names-no-model': { command: 'plan', file: 'ds.json', format: 'deepspeed' },
    'gpu-unknown': { flag: 'gpu', id: 'h1000', nearest: ['h100-sxm', 'h100-pcie'] },
    'host-without-token': { host: '0.0.0.0' },
    'probe-missing': { file: '/usr/lib/headroom/probe/headroom_probe.py' },
    'port-unavailable': { flag: '--metrics-port', port: 9464, host: '127.0.0.1', busy: true, next: 9465 },
  },
});

export const CLI_ERROR_HINTS = defineDomain<CliErrorParams>({
  name: 'cli-error-hints',
  words: {
    en: {
      'flag-parse': (p) => `headroom ${p.command} --help`,
      'extra-argument': (p) => `headroom ${p.command} --help`,
      'bad-lang': () => '--lang zh or --lang en',
      'unknown-command': () => 'headroom --help',
      'unknown-subcommand': (p) => SUB_HINT_EN[p.command],
      'missing-argument': (p) => NEEDS_HINT_EN[p.needs](p),
      'flag-value': exampleEn,
      'scenario-and-from': () => '--scenario takes a Headroom scenario JSON; --from takes a trainer config',
      'setup-without-model': (p) =>
        p.command === 'snapshot'
          ? 'add --model ID (headroom models lists them), --scenario FILE or --from CONFIG'
          : 'add --model ID (headroom models lists them) or --scenario FILE',
      'snapshot-pair-scenario': (p) => `headroom snapshot ${p.second} --model ID …`,
      'scenario-count': (p) => `headroom estimate --scenario ${p.file} runs each line`,
      'names-no-model': (p) =>
        p.command === 'estimate'
          ? `headroom estimate llama-3.1-8b --from ${p.file}`
          : `headroom ${p.command} llama-3.1-8b …, or --model ID with --from (headroom models lists the catalog)`,
      'gpu-unknown': (p) => `did you mean ${p.nearest.join(', ')}? headroom gpus lists them all`,
      'host-without-token': (p) => `headroom serve --host ${p.host} --token "$(openssl rand -hex 16)"`,
      'probe-missing': () => 'reinstall headroom (npm install -g headroom)',
      'port-unavailable': (p) => `${p.flag} ${p.next}, or ${p.flag} 0 for any free port`,
    },
    zh: {
      'flag-parse': (p) => `headroom ${p.command} --help 列出全部选项`,
      'extra-argument': (p) => `headroom ${p.command} --help 列出它接受的参数`,
      'bad-lang': () => '用 --lang zh 或 --lang en',
      'unknown-command': () => 'headroom --help 列出全部命令',
      'unknown-subcommand': (p) => SUB_HINT_ZH[p.command],
      'missing-argument': (p) => NEEDS_HINT_ZH[p.needs](p),
      'flag-value': exampleZh,
      'scenario-and-from': () => '--scenario 接收 Headroom 场景 JSON；--from 接收训练配置',
      'setup-without-model': (p) =>
        p.command === 'snapshot'
          ? '加上 --model ID（headroom models 列出全部模型）、--scenario FILE 或 --from CONFIG'
          : '加上 --model ID（headroom models 列出全部模型）或 --scenario FILE',
      'snapshot-pair-scenario': (p) => `配合场景时只给一个快照：headroom snapshot ${p.second} --model ID …`,
      'scenario-count': (p) => `headroom estimate --scenario ${p.file} 会逐行估算`,
      'names-no-model': (p) =>
        p.command === 'estimate'
          ? `在命令行给出模型：headroom estimate llama-3.1-8b --from ${p.file}`
          : `headroom ${p.command} llama-3.1-8b …，或配合 --from 使用 --model ID（headroom models 列出目录中的模型）`,
      'gpu-unknown': (p) => `你是不是想用 ${p.nearest.join('、')}？headroom gpus 列出全部 GPU`,
      'host-without-token': (p) =>
        `加上访问令牌：headroom serve --host ${p.host} --token "$(openssl rand -hex 16)"`,
      'probe-missing': () => '重新安装 headroom（npm install -g headroom）',
      'port-unavailable': (p) => `${p.flag} ${p.next}，或用 ${p.flag} 0 让系统分配空闲端口`,
    },
  },
  examples: CLI_ERRORS.examples,
});
