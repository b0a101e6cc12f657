/**
 * The command-line mistakes a user meets before any work starts — an unknown command or subcommand,
 * an argument a command cannot go without, a flag value it cannot take, flags that do not go together,
 * a GPU the catalog does not have — and the run, snapshot and probe-log errors, through the built CLI
 * in both languages: with --lang zh each reads in Chinese from the catalog (src/words/cli-errors.ts,
 * run-errors.ts, snapshot-errors.ts), and in English as it always has. Every one exits 1, with no stack.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const home = mkdtempSync(join(tmpdir(), 'headroom-cli-errors-zh-'));
/** A home with no ledger in it, for `diagnose RUN` when nothing is recorded. */
const empty = mkdtempSync(join(tmpdir(), 'headroom-cli-errors-zh-empty-'));

function headroom(dir: string, args: readonly string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 60_000,
    env: {
      ...process.env,
      NO_COLOR: '1',
      HF_ENDPOINT: 'http://127.0.0.1:9',
      HEADROOM_HOME: dir,
      LC_ALL: 'en_US.UTF-8',
    },
  });
  return { code: r.status, stderr: r.stderr };
}

// A pickle whose top is a list (PROTO 2, EMPTY_LIST, STOP), a JSON file, and a gzip file.
const listPickle = join(home, 'list.pickle');
writeFileSync(listPickle, Buffer.from([0x80, 0x02, 0x5d, 0x2e]));
const jsonFile = join(home, 'snap.json');
writeFileSync(jsonFile, '{"a": 1}');
const gz = join(home, 'snap.pickle.gz');
writeFileSync(gz, gzipSync('x'));
const log = join(home, 'nope.jsonl');

type Case = {
  name: string;
  args: readonly string[];
  en: readonly string[];
  zh: readonly string[];
  dir?: string;
  /** A line the command writes before the error (`watch` says what it waits for). */
  before?: { en: string; zh: string };
};

const CASES: readonly Case[] = [
  {
    name: 'an unknown command',
    args: ['frob'],
    en: ['error: unknown command "frob"', 'Try: headroom --help'],
    zh: ['错误：未知命令 "frob"', '建议：headroom --help 列出全部命令'],
  },
  {
    name: 'runs: an unknown subcommand',
    args: ['runs', 'frob'],
    en: [
      'error: runs: unknown subcommand "frob"',
      'Try: headroom runs [show|diff|export|rm] (headroom runs --help)',
    ],
    zh: [
      '错误：runs：未知子命令 "frob"',
      '建议：headroom runs [show|diff|export|rm]（详见 headroom runs --help）',
    ],
  },
  {
    name: 'env: an unknown subcommand',
    args: ['env', 'frob'],
    en: [
      'error: env: unknown subcommand "frob"',
      'Try: headroom env capture -o env.json, or headroom env show env.json',
    ],
    zh: [
      '错误：env：未知子命令 "frob"',
      '建议：headroom env capture -o env.json，或 headroom env show env.json',
    ],
  },
  {
    // Raised by the estimator, which knows the model's modules, not by the scenario's parser.
    name: 'estimate: a LoRA target the model has no linear module of',
    args: ['estimate', 'llama-3.1-8b', '--method', 'lora', '--lora-targets', 'c_attn'],
    en: [
      'error: --lora-targets c_attn is not a linear module of llama models',
      'Try: use "all-linear" or some of: q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, lm_head',
    ],
    zh: [
      '错误：--lora-targets c_attn 不是 llama 模型的线性模块',
      '建议：使用 "all-linear"，或以下模块中的若干个：q_proj、k_proj、v_proj、o_proj、gate_proj、up_proj、down_proj、lm_head',
    ],
  },
  {
    name: 'estimate: a module to save Headroom cannot size',
    args: ['estimate', 'llama-3.1-8b', '--method', 'lora', '--modules-to-save', 'norm'],
    en: [
      'error: --modules-to-save norm is not a module Headroom can size',
      'Try: use embed_tokens and/or lm_head',
    ],
    zh: [
      '错误：--modules-to-save norm 不是 Headroom 能计算大小的模块',
      '建议：使用 embed_tokens 和/或 lm_head',
    ],
  },
  {
    // Chinese words run on from 标准输入 without a space; a path keeps one (below, the pickle's).
    name: 'diagnose: nothing on standard input',
    args: ['diagnose', '-'],
    en: [
      'error: standard input is empty',
      'Try: give the log of the failed run, or paste the traceback: headroom diagnose - < error.txt',
    ],
    zh: ['错误：标准输入是空的', '建议：给出失败运行的日志，或粘贴报错信息：headroom diagnose - < error.txt'],
  },
  {
    // --lang before the subcommand is not the subcommand.
    name: 'env without a subcommand',
    args: ['env'],
    en: [
      'error: env needs a subcommand',
      'Try: headroom env capture -o env.json, or headroom env show env.json',
    ],
    zh: ['错误：env 需要一个子命令', '建议：headroom env capture -o env.json，或 headroom env show env.json'],
  },
  {
    name: 'probe without a subcommand',
    args: ['probe'],
    en: ['error: probe needs a subcommand', 'Try: headroom probe path'],
    zh: ['错误：probe 需要一个子命令', '建议：用 headroom probe path'],
  },
  {
    name: 'runs show without a run id',
    args: ['runs', 'show'],
    en: [
      'error: runs show needs a run id',
      'Try: headroom runs lists them; headroom runs show last works too',
    ],
    zh: [
      '错误：runs show 需要一个运行 id',
      '建议：headroom runs 列出全部运行；也可以用 headroom runs show last',
    ],
  },
  {
    name: 'report without an output file',
    args: ['report', '3'],
    en: ['error: report needs an output file', 'Try: headroom report 3 -o run-3.html'],
    zh: [
      '错误：report 需要一个输出文件（-o）',
      '建议：用 -o 指定要写入的 HTML 文件：headroom report 3 -o run-3.html',
    ],
  },
  {
    name: 'calibrate without a run',
    args: ['calibrate'],
    en: ['error: calibrate needs a recorded run', 'Try: headroom calibrate last (headroom runs lists them)'],
    zh: [
      '错误：calibrate 需要一个已记录的运行',
      '建议：headroom calibrate last（headroom runs 列出全部运行）',
    ],
  },
  {
    name: 'watch without --log',
    args: ['watch'],
    en: [
      'error: watch needs --log FILE, the probe log of the run',
      'Try: headroom watch --log /tmp/probe.jsonl (the HEADROOM_LOG the training was started with)',
    ],
    zh: [
      '错误：watch 需要 --log FILE（该运行的探针日志）',
      '建议：headroom watch --log /tmp/probe.jsonl（即训练启动时使用的 HEADROOM_LOG）',
    ],
  },
  {
    name: 'run without a command',
    args: ['run'],
    en: ['error: run needs a command after --', 'Try: headroom run -- python train.py'],
    zh: [
      '错误：run 需要在 -- 之后给出要运行的命令',
      '建议：在 -- 之后写出训练命令：headroom run -- python train.py',
    ],
  },
  {
    name: 'plan without a GPU',
    args: ['plan', 'llama-3.1-8b'],
    en: [
      'error: plan needs a target GPU',
      'Try: add --gpu ID (headroom gpus lists them), and --gpus N for several',
    ],
    zh: [
      '错误：plan 需要指定目标 GPU',
      '建议：加上 --gpu ID（headroom gpus 列出全部 GPU），多卡再加 --gpus N',
    ],
  },
  {
    name: 'fleet without a Prometheus server',
    args: ['fleet'],
    en: [
      'error: fleet needs a Prometheus server to ask: --prometheus URL, or HEADROOM_PROMETHEUS',
      'Try: headroom fleet --prometheus http://127.0.0.1:9090',
    ],
    zh: [
      '错误：fleet 需要一个可查询的 Prometheus 服务器：--prometheus URL，或设置 HEADROOM_PROMETHEUS',
      '建议：例如 headroom fleet --prometheus http://127.0.0.1:9090',
    ],
  },
  {
    name: 'runs --last 0',
    args: ['runs', '--last', '0'],
    en: ['error: --last 0: not a whole number of at least 1', 'Try: e.g. --last 10'],
    zh: ['错误：--last 0：应为不小于 1 的整数', '建议：例如 --last 10'],
  },
  {
    name: 'gpus --max-gpus out of range',
    args: ['gpus', '--for', 'llama-3.1-8b', '--max-gpus', '-3'],
    en: ['error: --max-gpus -3: not a whole number from 1 to 100000', 'Try: e.g. --max-gpus 8'],
    zh: ['错误：--max-gpus -3：应为 1 到 100000 之间的整数', '建议：例如 --max-gpus 8'],
  },
  {
    name: 'gpus --sort that is neither cost nor time',
    args: ['gpus', '--for', 'llama-3.1-8b', '--sort', 'price'],
    en: ['error: --sort price: cost or time', 'Try: --sort time'],
    zh: ['错误：--sort price：应为 cost 或 time', '建议：例如 --sort time'],
  },
  {
    name: 'gpus --tokens that is not a count',
    args: ['gpus', '--for', 'llama-3.1-8b', '--tokens', 'lots'],
    en: ['error: --tokens lots: not a token count', 'Try: e.g. --tokens 2e9, --tokens 500M or --tokens 1.5B'],
    zh: [
      '错误：--tokens lots：不是有效的 token 数',
      '建议：例如 --tokens 2e9、--tokens 500M 或 --tokens 1.5B',
    ],
  },
  {
    name: 'plan --headroom that is not a margin',
    args: ['plan', 'llama-3.1-8b', '--gpu', 'h100-sxm', '--headroom', 'lots'],
    en: ['error: --headroom lots: not a margin between 0 % and 90 %', 'Try: e.g. --headroom 10%'],
    zh: ['错误：--headroom lots：应为 0 % 到 90 % 之间的余量', '建议：例如 --headroom 10%'],
  },
  {
    name: 'serve --port that is not a port',
    args: ['serve', '--port', 'x'],
    en: ['error: --port x: not a port number', 'Try: --port 7777'],
    zh: ['错误：--port x：不是有效的端口号', '建议：例如 --port 7777'],
  },
  {
    name: 'run --metrics-port out of range',
    args: ['run', '--metrics-port', '99999', '--', 'true'],
    en: ['error: --metrics-port 99999: not a port number (0 to 65535)', 'Try: --metrics-port 9464'],
    zh: ['错误：--metrics-port 99999：不是有效的端口号（0 到 65535）', '建议：例如 --metrics-port 9464'],
  },
  {
    name: 'run --snapshot-entries above its limit',
    args: ['run', '--snapshot-entries', '20000000', '--', 'true'],
    en: [
      'error: --snapshot-entries 20000000: not a whole number from 1 to 10000000',
      "Try: e.g. --snapshot-entries 100000 (each entry keeps one allocation's stack on the host)",
    ],
    zh: [
      '错误：--snapshot-entries 20000000：应为 1 到 10000000 之间的整数',
      '建议：例如 --snapshot-entries 100000（每个条目都会在主机内存中保存一次分配的调用栈）',
    ],
  },
  {
    name: 'run --interval-ms that is not a number',
    args: ['run', '--interval-ms', 'fast', '--', 'true'],
    en: ['error: --interval-ms fast: not a positive number', 'Try: e.g. --interval-ms 500'],
    zh: ['错误：--interval-ms fast：应为正数', '建议：例如 --interval-ms 500'],
  },
  {
    name: 'watch --wait below 0',
    args: ['watch', '--log', log, '--wait', '-3'],
    en: ['error: --wait -3: not a number of seconds (0 or more)', 'Try: e.g. --wait 30'],
    zh: ['错误：--wait -3：应为不小于 0 的秒数', '建议：例如 --wait 30'],
  },
  {
    name: '--scenario with --from',
    args: ['plan', 'llama-3.1-8b', '--scenario', 'a.json', '--from', 'b.yaml'],
    en: [
      'error: plan: give --scenario or --from, not both',
      'Try: --scenario takes a Headroom scenario JSON; --from takes a trainer config',
    ],
    zh: [
      '错误：plan：--scenario 和 --from 只能给出其中之一',
      '建议：--scenario 接收 Headroom 场景 JSON；--from 接收训练配置',
    ],
  },
  {
    name: 'diagnose: a setup flag without a model',
    args: ['diagnose', 'train.log', '--micro-batch', '4'],
    en: [
      'error: --micro-batch describes a setup, but no model was given',
      'Try: add --model ID (headroom models lists them) or --scenario FILE',
    ],
    zh: [
      '错误：--micro-batch 描述的是训练配置，但没有给出模型',
      '建议：加上 --model ID（headroom models 列出全部模型）或 --scenario FILE',
    ],
  },
  {
    name: 'snapshot A B with a scenario',
    args: ['snapshot', 'a.pickle', 'b.pickle', '--model', 'llama-3.1-8b'],
    en: [
      'error: snapshot A B compares two snapshots; a scenario goes with one',
      'Try: headroom snapshot b.pickle --model ID …',
    ],
    zh: [
      '错误：snapshot A B 比较两个快照；场景只能配合单个快照使用',
      '建议：配合场景时只给一个快照：headroom snapshot b.pickle --model ID …',
    ],
  },
  {
    name: 'a GPU the catalog does not have',
    args: ['estimate', 'llama-3.1-8b', '--gpu', 'h1000'],
    en: [
      'error: gpu "h1000" is not in the catalog',
      'Try: did you mean h100-sxm, h100-nvl, h100-pcie? headroom gpus lists them all',
    ],
    zh: [
      '错误：gpu "h1000" 不在目录中',
      '建议：你是不是想用 h100-sxm、h100-nvl、h100-pcie？headroom gpus 列出全部 GPU',
    ],
  },
  {
    name: 'serve beyond loopback without a token',
    args: ['serve', '--host', '0.0.0.0'],
    en: [
      'error: --host 0.0.0.0 exposes your runs beyond this machine, and no --token was given',
      'Try: headroom serve --host 0.0.0.0 --token "$(openssl rand -hex 16)"',
    ],
    zh: [
      '错误：--host 0.0.0.0 会把你的运行暴露到本机之外，但没有给出 --token',
      '建议：加上访问令牌：headroom serve --host 0.0.0.0 --token "$(openssl rand -hex 16)"',
    ],
  },
  {
    name: 'diagnose RUN with nothing recorded and no file of that name',
    args: ['diagnose', '7'],
    dir: empty,
    en: [
      `error: no run "7": nothing is recorded in ${empty}, and there is no file of that name`,
      'Try: record a run with headroom run -- python train.py, or give the path of a log file',
    ],
    zh: [
      `错误：没有运行 "7"：${empty} 中没有任何记录，也没有同名文件`,
      '建议：用 headroom run -- python train.py 记录一次运行，或给出日志文件的路径',
    ],
  },
  {
    name: 'a probe log that does not appear',
    args: ['watch', '--log', log, '--wait', '0'],
    before: {
      en: `headroom: waiting up to 0 s for ${log} …`,
      zh: `headroom：最多等待 0 秒，直到 ${log} 出现…`,
    },
    en: [
      `error: ${log} did not appear within 0 s; is the training writing its probe log there? (HEADROOM_LOG=${log})`,
      `Try: start the training with HEADROOM_LOG=${log} PYTHONPATH="$(headroom probe path)", or wait longer: --wait 120`,
    ],
    zh: [
      `错误：${log} 在 0 秒内没有出现；训练是否把探针日志写到了那里？（HEADROOM_LOG=${log}）`,
      `建议：用 HEADROOM_LOG=${log} PYTHONPATH="$(headroom probe path)" 启动训练，或等待更久：--wait 120`,
    ],
  },
  {
    name: 'a pickle that is not a memory snapshot',
    args: ['snapshot', listPickle],
    en: [
      `error: ${listPickle}: the top is a list, not a dict: not a PyTorch memory snapshot`,
      'Try: write the snapshot with torch.cuda.memory._dump_snapshot("snapshot.pickle")',
    ],
    zh: [
      `错误：${listPickle}：顶层是 list，而不是 dict——不是 PyTorch 内存快照`,
      '建议：用 torch.cuda.memory._dump_snapshot("snapshot.pickle") 写出快照',
    ],
  },
  {
    name: 'a JSON file given as a snapshot',
    args: ['snapshot', jsonFile],
    en: [
      `error: ${jsonFile}: byte 0: not a pickle of protocol 2 or later (it begins with bytes 7b 22 61 22, not PROTO 0x80)`,
      'Try: write the snapshot with torch.cuda.memory._dump_snapshot("snapshot.pickle") (or pickle.dump of torch.cuda.memory._snapshot())',
    ],
    zh: [
      `错误：${jsonFile}：不是协议 2 或更高版本的 pickle（开头字节为 7b 22 61 22，而不是 PROTO 0x80）`,
      '建议：用 torch.cuda.memory._dump_snapshot("snapshot.pickle")（或对 torch.cuda.memory._snapshot() 调用 pickle.dump）写出快照',
    ],
  },
  {
    name: 'a gzipped snapshot',
    args: ['snapshot', gz],
    en: [
      `error: ${gz}: byte 0: this is a gzip file, not a pickle`,
      `Try: gunzip it first, then: headroom snapshot ${join(home, 'snap.pickle')}`,
    ],
    zh: [
      `错误：${gz}：这是 gzip 压缩文件，不是 pickle`,
      `建议：先用 gunzip 解压，再运行：headroom snapshot ${join(home, 'snap.pickle')}`,
    ],
  },
];

describe('a command-line, run or snapshot error, in both languages', () => {
  it.each(CASES)('$name', ({ args, en, zh, dir, before }) => {
    const english = headroom(dir ?? home, args);
    const lead = (lang: 'en' | 'zh') => (before ? `${before[lang]}\n` : '');
    expect([english.code, english.stderr]).toEqual([1, `${lead('en')}${en.join('\n')}\n`]);
    // Our flags come before `--`: what follows it is the training's.
    const sep = args.includes('--') ? args.indexOf('--') : args.length;
    const chinese = headroom(dir ?? home, [...args.slice(0, sep), '--lang', 'zh', ...args.slice(sep)]);
    expect([chinese.code, chinese.stderr]).toEqual([1, `${lead('zh')}${zh.join('\n')}\n`]);
    expect(`${english.stderr}${chinese.stderr}`).not.toMatch(/\n\s+at |HeadroomUserError/);
  });

  it('a flag without its value, or followed by another flag, in Chinese words rather than Node’s', () => {
    const missing = headroom(home, ['estimate', 'llama-3.1-8b', '--lang', 'zh', '--micro-batch']);
    expect([missing.code, missing.stderr.split('\n')[0]]).toEqual([
      1,
      "错误：estimate：选项 '--micro-batch' 缺少取值",
    ]);
    const ambiguous = headroom(home, ['gpus', '--for', '--lang', 'zh']);
    expect(ambiguous.stderr.split('\n')[0]).toBe(
      "错误：gpus：选项 '--for' 后面紧跟的像是另一个选项；若取值本身以 - 开头，请写成 --for=-XYZ",
    );
    // English keeps Node's own words.
    expect(headroom(home, ['estimate', 'llama-3.1-8b', '--micro-batch']).stderr.split('\n')[0]).toBe(
      "error: estimate: Option '--micro-batch <value>' argument missing",
    );
  });

  it('env takes --lang before its subcommand as well as after it', () => {
    const file = join(home, 'missing-env.json');
    const before = headroom(home, ['env', '--lang', 'zh', 'show', file]);
    const after = headroom(home, ['env', 'show', file, '--lang', 'zh']);
    expect(before.code).toBe(1);
    expect(before.stderr).toBe(after.stderr);
    expect(before.stderr).toContain('错误：');
    expect(before.stderr).not.toContain('未知子命令');
    expect(headroom(home, ['env', '--lang=zh', 'show', file]).stderr).toBe(after.stderr);
  });

  it('a run the ledger does not have, for report: the same words as every command’s', () => {
    const english = headroom(home, ['report', '99', '-o', 'r.html']);
    expect(english.code).toBe(1);
    expect(english.stderr).toMatch(/^error: no run "99" in .*ledger\.db\nTry: /);
    const chinese = headroom(home, ['report', '99', '-o', 'r.html', '--lang', 'zh']);
    expect(chinese.code).toBe(1);
    expect(chinese.stderr).toMatch(/^错误：.*ledger\.db 中没有运行 "99"\n建议：/);
  });

  it('serve on a port that is taken: the same words as --metrics-port', async () => {
    const held = createServer();
    await new Promise<void>((done) => held.listen(0, '127.0.0.1', done));
    const port = (held.address() as { port: number }).port;
    try {
      const english = headroom(home, ['serve', '--port', String(port)]);
      expect([english.code, english.stderr]).toEqual([
        1,
        `error: --port ${port}: the port is already in use (127.0.0.1)\nTry: --port ${port + 1}, or --port 0 for any free port\n`,
      ]);
      const chinese = headroom(home, ['serve', '--port', String(port), '--lang', 'zh']);
      expect([chinese.code, chinese.stderr]).toEqual([
        1,
        `错误：--port ${port}：端口已被占用（127.0.0.1）\n建议：--port ${port + 1}，或用 --port 0 让系统分配空闲端口\n`,
      ]);
    } finally {
      held.close();
    }
  });
});
