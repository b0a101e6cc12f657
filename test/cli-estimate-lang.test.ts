/**
 * `headroom estimate --lang`: the terminal view in English or Chinese, every word from the catalog
 * (src/words: estimate-view, peak-terms, advice, estimate-notes), the figures the same as --json's.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatBytes } from '../src/core/units.js';
import { FORMATS } from '../src/words/format.js';
import { REPO_ROOT } from './data.js';

const BIN = join(REPO_ROOT, 'dist', 'cli', 'bin.js');

function headroom(args: readonly string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      LC_ALL: '',
      LC_MESSAGES: '',
      LANG: 'C',
      NO_COLOR: '1',
      HF_ENDPOINT: 'http://127.0.0.1:9',
      ...env,
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const QLORA_4090 = [
  'estimate',
  'llama-3.1-8b',
  '--method',
  'qlora',
  '--quantization',
  'nf4',
  '--gpu',
  'rtx-4090',
];

interface EstimateJson {
  readonly peak: { allocatedBytes: number; reservedBytes: number; deviceBytes: number };
  readonly peakPhase: string;
  readonly components: Record<string, number>;
  readonly fits: { requiredBytes: number; usableBytes: number; budgetBytes: number };
  readonly upper?: { allocatedBytes: number; reservedBytes: number; deviceBytes: number };
  readonly peakTerms: { term: string; bytes: number }[];
}

describe('headroom estimate --lang', () => {
  const json = JSON.parse(headroom([...QLORA_4090, '--json']).stdout) as EstimateJson;

  it('zh: the parts, the peak line, the verdict, the attacks and the terms in Chinese, with the JSON figures', () => {
    const r = headroom([...QLORA_4090, '--explain', '--lang', 'zh']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(json.peakPhase).toBe('backward');
    // Each part's label padded to twelve columns (a Chinese character takes two), then its bar and bytes.
    expect(r.stdout).toMatch(
      new RegExp(`^ {2}激活值 {7}█.* ${formatBytes(json.components.activations!)}$`, 'm'),
    );
    expect(r.stdout).toMatch(
      new RegExp(`^ {2}运行时开销 {3}█.* ${formatBytes(json.components.runtime!)}$`, 'm'),
    );
    const { allocatedBytes, reservedBytes, deviceBytes } = json.peak;
    const up = json.upper!;
    const range = FORMATS.zh.bytesRange;
    expect(r.stdout).toContain(
      `  峰值在反向传播：已分配 ${range(allocatedBytes, up.allocatedBytes)}  ·  已保留 ${range(reservedBytes, up.reservedBytes)}  ·  nvidia-smi ${range(deviceBytes, up.deviceBytes)}`,
    );
    // The point (22.3 GiB) is inside the card; the upper bound, which the verdict judges, is over it.
    expect(r.stdout).toContain(
      `  ✗ NVIDIA GeForce RTX 4090 放不下：最多需要 ${formatBytes(json.fits.requiredBytes)}（上界），比它的 ${formatBytes(json.fits.usableBytes)} 多 ${formatBytes(json.fits.requiredBytes - json.fits.usableBytes)}`,
    );
    expect(r.stdout).toContain('  优先削减：\n   1. 激活值（');
    expect(r.stdout).toContain('梯度检查点；分块或融合的交叉熵；把激活卸载到 CPU');
    expect(r.stdout).toContain('  反向传播峰值的构成（先是 torch 已分配的各项，再往上）：');
    const saved = json.peakTerms.find((t) => t.term === 'saved-activations')!;
    expect(r.stdout).toMatch(new RegExp(`^ {4}保存的激活 +${formatBytes(saved.bytes)}  █`, 'm'));
    expect(r.stdout).not.toMatch(/attack first|peak at|does not fit|saved activations/);
  });

  it('en is the default, and a zh locale speaks Chinese unless --lang says otherwise', () => {
    const plain = headroom(QLORA_4090).stdout;
    expect(plain).toContain(
      `  peak at backward:  allocated ${FORMATS.en.bytesRange(json.peak.allocatedBytes, json.upper!.allocatedBytes)}`,
    );
    expect(headroom([...QLORA_4090, '--lang', 'en']).stdout).toBe(plain);
    expect(headroom(QLORA_4090, { LANG: 'zh_CN.UTF-8' }).stdout).toBe(
      headroom([...QLORA_4090, '--lang', 'zh']).stdout,
    );
    expect(headroom([...QLORA_4090, '--lang', 'en'], { LANG: 'zh_CN.UTF-8' }).stdout).toBe(plain);
  });

  it('--json is the same in every language', () => {
    expect(headroom([...QLORA_4090, '--json', '--lang', 'zh']).stdout).toBe(
      headroom([...QLORA_4090, '--json']).stdout,
    );
  });

  it('an unknown language is a user error naming --lang', () => {
    const r = headroom([...QLORA_4090, '--lang', 'fr']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--lang fr: Headroom speaks en (English) and zh (简体中文)');
    expect(r.stderr).toContain('Try: --lang zh or --lang en');
  });
});
