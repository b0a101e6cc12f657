/** Black-box tests of `headroom diagnose`, spawning the built binary as a user runs it. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataFile, REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');

function headroom(args: readonly string[], input?: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    input: input ?? '',
    env: {
      ...process.env,
      NO_COLOR: '1',
      HF_ENDPOINT: 'http://127.0.0.1:9',
      LC_ALL: '',
      LANG: 'C.UTF-8',
      ...extraEnv,
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const diagnose = (args: readonly string[], input?: string) => headroom(['diagnose', ...args], input);

const CORPUS: readonly { id: string; text: string; expected: Record<string, unknown> }[] = readFileSync(
  dataFile('validation', 'oom_corpus.jsonl'),
  'utf8',
)
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const caseText = (id: string) => CORPUS.find((c) => c.id === id)!.text;

function logFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'headroom-diagnose-'));
  const file = join(dir, 'train.log');
  writeFileSync(file, text);
  return file;
}

describe('headroom diagnose', () => {
  it('reads a log file and prints numbered findings under their group, evidence under each', () => {
    const r = diagnose([logFile(caseText('kaito-976-private-pools'))]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([
      'PyTorch caching allocator (2.x layout) · GPU 0 · phase: forward (from the log)',
      '  requested 546 MiB · total 15.77 GiB · free 514 MiB · allocated by PyTorch 13.73 GiB · reserved-unallocated 737 MiB',
    ]);
    expect(r.stdout).toMatch(
      /\nEnvironment\n 1\. "Process 562167" is most likely this process, seen from a container \[note\]\n/,
    );
    expect(r.stdout).toMatch(
      /\nConfiguration\n 2\. It failed in the forward pass: the activations do not fit \[warning\]\n/,
    );
    expect(r.stdout).toMatch(
      /\nCode\n 3\. 737 MiB reserved by PyTorch but unusable: fragmentation \[warning\]\n/,
    );
    expect(r.stdout).toContain('     free + reserved-unallocated: 514 MiB + 737 MiB = 1.22 GiB ≥ 546 MiB');
  });

  it('reads a pasted traceback on standard input, with or without "-"', () => {
    const text = caseText('grpo-2776-optimizer-step');
    for (const args of [['-'], []]) {
      const r = diagnose(args, text);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('rank 0 · phase: optimizer step (from the traceback)');
    }
  });

  it('--json prints { oom, phase, findings } with the corpus’s names and bytes', () => {
    const c = CORPUS.find((x) => x.id === 'pt-2.x-16417-batch')!;
    const r = diagnose(['-', '--json'], c.text.replace(/\n/g, '\r\n'));
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(Object.keys(json)).toEqual(['oom', 'phase', 'findings']);
    expect(json.oom).toEqual(c.expected);
    expect(json.phase).toBe('forward');
    expect(json.findings.map((f: { code: string }) => f.code)).toEqual(['activations']);
  });

  it('with a scenario, each change carries the estimator’s figure against the card in the message', () => {
    const r = diagnose([
      logFile(caseText('pt-2.x-16417-batch')),
      '--model',
      'llama-3.1-8b',
      '--method',
      'lora',
      '--precision',
      'bf16-true',
      '--micro-batch',
      '4',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const remedies = JSON.parse(r.stdout).findings[0].remedies;
    expect(remedies.at(-1)).toMatchObject({
      flags: '--micro-batch 1 --grad-accum 4 --gradient-checkpointing full --loss fused',
      fitsAfter: true,
    });
    const human = diagnose([
      logFile(caseText('pt-2.x-16417-batch')),
      '--model',
      'llama-3.1-8b',
      '--method',
      'lora',
      '--precision',
      'bf16-true',
      '--micro-batch',
      '4',
    ]);
    expect(human.stdout).toMatch(
      /• gradient checkpointing \(none → full\): −[\d.]+ GiB, still [\d.]+ GiB short/,
    );
    expect(human.stdout).toContain('try --gradient-checkpointing full');
  });

  it('says so when a text has no out-of-memory message, or a look-alike', () => {
    expect(diagnose(['-'], 'Epoch 3: loss 1.2\nall good').stdout).toContain(
      'No out-of-memory message in this text',
    );
    const r = diagnose(['-', '--json'], caseText('xtuner-247-paged-unsupported'));
    expect(JSON.parse(r.stdout).oom.family).toBe('not-oom');
  });

  it.each([
    [
      ['/nonexistent/train.log'],
      '',
      /log file \/nonexistent\/train\.log does not exist/,
      /Try: give the path of a log file/,
    ],
    [['-'], '   \n', /standard input is empty/, /Try: give the log of the failed run/],
    [
      ['-', '--micro-batch', '4'],
      'x',
      /--micro-batch describes a setup, but no model was given/,
      /Try: add --model ID/,
    ],
    [['-', '--gpu', 'a100'], 'x', /gpu "a100" is not in the catalog/, /did you mean/],
    [['-', '--model', 'llama-9b'], 'x', /model "llama-9b" is not a catalog model/, /Try: a catalog id/],
    [['a.log', 'b.log'], '', /diagnose: unexpected argument "b.log"/, /Try: headroom diagnose --help/],
  ])(
    'a user mistake (%j) gets a message and a Try line, never a stack trace',
    (args, input, message, hint) => {
      const r = diagnose(args, input);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(hint);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
  );

  it('--lang zh: the same findings with Chinese words, from the Chinese catalog', () => {
    const file = logFile(caseText('kaito-976-private-pools'));
    const r = diagnose([file, '--lang', 'zh']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([
      'PyTorch 缓存分配器（2.x 格式） · GPU 0 · 阶段：前向传播（根据日志）',
      '  请求 546 MiB · 总量 15.77 GiB · 空闲 514 MiB · PyTorch 已分配 13.73 GiB · 已预留未分配 737 MiB',
    ]);
    expect(r.stdout).toContain('\n环境\n 1. “Process 562167”很可能就是本进程（从容器内看到的） [提示]\n');
    expect(r.stdout).toContain('\n配置\n 2. 在前向传播中失败：激活值放不下 [警告]\n');
    expect(r.stdout).toContain('\n代码\n 3. 737 MiB 被 PyTorch 预留却无法使用：碎片化 [警告]\n');
    expect(r.stdout).toContain('     空闲 + 已预留未分配：514 MiB + 737 MiB = 1.22 GiB ≥ 546 MiB\n');
    // The JSON keeps its codes and numbers; only the words change.
    const en = JSON.parse(diagnose([file, '--json']).stdout);
    const zh = JSON.parse(diagnose([file, '--json', '--lang', 'zh']).stdout);
    expect(zh.oom).toEqual(en.oom);
    expect(zh.findings.map((f: { code: string }) => f.code)).toEqual(
      en.findings.map((f: { code: string }) => f.code),
    );
    expect(zh.findings.map((f: { words: { title: string } }) => f.words.title)).toEqual([
      '“Process 562167”很可能就是本进程（从容器内看到的）',
      '在前向传播中失败：激活值放不下',
      '737 MiB 被 PyTorch 预留却无法使用：碎片化',
    ]);
  });

  it('takes the language from LC_ALL or LANG when it starts with zh, else English', () => {
    const text = caseText('pt-2.x-16417-batch');
    const title = (env: NodeJS.ProcessEnv) =>
      JSON.parse(headroom(['diagnose', '-', '--json'], text, env).stdout).findings[0].words.title;
    expect(title({ LANG: 'zh_CN.UTF-8' })).toBe('在前向传播中失败：激活值放不下');
    expect(title({ LANG: 'en_US.UTF-8', LC_ALL: 'zh_CN.UTF-8' })).toBe('在前向传播中失败：激活值放不下');
    expect(title({ LANG: 'de_DE.UTF-8' })).toBe('It failed in the forward pass: the activations do not fit');
  });

  it('explains itself and is listed', () => {
    expect(headroom(['--help']).stdout).toContain('diagnose [RUN|FILE|-]');
    const help = diagnose(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--micro-batch N');
  });
});
