/**
 * `run`, `runs`, `report` and `probe` in Chinese, as a user runs them: the built binary, the stand-in
 * torch and nvidia-smi (sample 12: an H200 with three other processes on it). The words come from the
 * catalog (src/words/run.ts, runs.ts, report.ts); the figures are the same in both languages.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { visibleWidth } from '../src/cli/_output.js';
import { REPO_ROOT } from './data.js';
import { standinHome } from './standins.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');
const TRAIN = join(REPO_ROOT, 'test', 'fixtures', 'train_standin.py');
const QUICK = ['--steps', '3', '--step-s', '0.02'];

function headroom(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Words of the English catalog that must not be left in the Chinese output. */
const ENGLISH = [
  'already has',
  'Try:',
  'finished',
  'between the layers',
  'recorded as run',
  'steps ·',
  'per-step peak',
  'memory:',
  'compared by',
  'changed',
];

describe('the run commands in Chinese', () => {
  const { dir, env } = standinHome('headroom-run-zh-', { env: { LANG: 'C.UTF-8', LC_ALL: '' } });
  let first: ReturnType<typeof headroom>;

  beforeAll(() => {
    first = headroom(
      env,
      'run',
      '--lang',
      'zh',
      '--name',
      'zh',
      '--interval-ms',
      '50',
      '--',
      'python3',
      TRAIN,
      ...QUICK,
    );
    headroom(
      env,
      'run',
      '--name',
      'b8',
      '--interval-ms',
      '50',
      '--',
      'python3',
      TRAIN,
      '--batch-size',
      '8',
      ...QUICK,
    );
  }, 120_000);

  it('run --lang zh: the warning before launch, its hint, the summary and its last line in Chinese', () => {
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      'headroom：⚠ GPU 0 (NVIDIA H200) 上已有 3 个不属于本次运行的进程：10291 /root/tools/memhog 2.51 GiB、10293 /root/tools/memhog 1.51 GiB、10309 ./gpu_burn 27.57 GiB\n  建议：如果是之前运行遗留的进程，结束它们（kill 10291 10293 10309）；或者用 CUDA_VISIBLE_DEVICES 换一块 GPU\n',
    );
    expect(first.stderr).toMatch(/运行 1 "zh" · 完成 · 退出码 0 · [\d.]+ 秒 · 3 步\n/);
    expect(first.stderr).toMatch(/\n {2}峰值 +大小 {2}时间 +含义\n/);
    expect(first.stderr).toMatch(
      /\n {2}已分配 +2\.88 GiB {2}第 2 步 · 0:0\d · GPU 0 {2}torch 的 max_memory_allocated\n/,
    );
    expect(first.stderr).toContain('各层之间：分配器缓存 16.0 MiB（已保留 − 已分配）');
    expect(first.stderr).toContain('显存增长：3 步不足以判断（需要 8 步）');
    expect(first.stderr).toContain('✓ 已完成');
    expect(first.stderr).toContain('已记录为运行 1：headroom runs show 1');
    for (const words of ENGLISH) expect([words, first.stderr.includes(words)]).toEqual([words, false]);
  });

  it('runs, runs show and runs diff take --lang zh, and a zh locale without it', () => {
    const list = headroom(env, 'runs', '--lang', 'zh');
    const [header, , row] = list.stdout.split('\n');
    expect(header).toMatch(
      /^id {2}名称 {2}状态 {2}模型 {2}方法 {2}批大小 {2}序列 +已分配 +已保留 +nvidia-smi {2}步数 +时长 {2}开始时间（UTC）$/,
    );
    expect(row).toMatch(/^ 1 {2}zh {4}完成 {2}— /);
    // Columns line up on a terminal, where a Chinese character takes two columns.
    const column = (line: string, text: string) => visibleWidth(line.slice(0, line.indexOf(text)));
    expect(column(row!, '完成')).toBe(column(header!, '状态'));
    expect(column(row!, '2.88 GiB') + visibleWidth('2.88 GiB')).toBe(
      column(header!, '已分配') + visibleWidth('已分配'),
    );
    expect(headroom({ ...env, LANG: 'zh_CN.UTF-8' }, 'runs').stdout).toBe(list.stdout);
    const show = headroom(env, 'runs', 'show', '1', '--lang', 'zh').stdout;
    expect(show).toContain('每步峰值（█ 已分配，░ 已保留）');
    expect(show).toMatch(
      /\n {2}事件\n {2}0:00 {2}prelaunch {7}GPU 0 \(NVIDIA H200\) 上已有 3 个不属于本次运行的进程/,
    );
    const diff = headroom(env, 'runs', 'diff', '1', '2', '--lang', 'zh').stdout;
    expect(diff).toContain('按命令行比较');
    expect(diff.split('\n').map((l) => l.trim().split(/ {2,}/))).toContainEqual([
      '--batch-size',
      '—',
      '8',
      '已改变',
    ]);
    for (const words of ENGLISH) expect([words, `${show}${diff}`.includes(words)]).toEqual([words, false]);
  });

  it('runs show --json carries how the run ended as a code, in any language', () => {
    const shown = JSON.parse(headroom(env, 'runs', 'show', '1', '--json', '--lang', 'zh').stdout);
    expect([shown.status, shown.end]).toEqual(['ok', { code: 'finished', params: {} }]);
    const warning = shown.events.find((e: { kind: string }) => e.kind === 'prelaunch');
    expect(warning.message).toMatch(/^GPU 0 \(NVIDIA H200\) already has 3 processes that are not this run's/);
    expect(warning.data).toMatchObject({ code: 'foreign-processes', check: 'foreign-processes' });
    expect(warning.data.params.processes.map((p: { pid: number }) => p.pid)).toEqual([10291, 10293, 10309]);
  });

  it('--lang en speaks English under a zh locale; the English is what it was', () => {
    const show = headroom({ ...env, LANG: 'zh_CN.UTF-8' }, 'runs', 'show', '1', '--lang', 'en').stdout;
    expect(show).toMatch(/^run 1 "zh" · ok · exit 0 · [\d.]+ s · 3 steps\n/);
    expect(show).toContain('memory growth: not judged on 3 steps (needs 8)');
  });

  it('report --lang zh writes a Chinese report and says so in Chinese', () => {
    const file = join(dir, 'run.zh.html');
    const r = headroom(env, 'report', '1', '-o', file, '--lang', 'zh');
    expect(r.stdout).toBe(`已写入 ${file}（运行 #1 zh）\n`);
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('<html lang="zh-Hans">');
    expect(html).toContain('<h2>估算与实测（单卡）</h2>');
  });

  it('a language Headroom does not speak is a user error naming --lang', () => {
    const r = headroom(env, 'probe', 'path', '--lang', 'fr');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: --lang fr: Headroom speaks en (English) and zh (简体中文)\nTry: --lang zh or --lang en\n',
    );
  });
});
