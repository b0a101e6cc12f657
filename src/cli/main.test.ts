/** main's one catch: a user error becomes its words in the command's language and exit 1; a bug goes on. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { HeadroomUserError } from '../core/errors.js';
import { parseScenario } from '../core/scenario.js';
import type { CommandContext } from './_command.js';
import { mergeScenarioFlags } from './_scenario-flags.js';
import { type CommandModule, main, runCommand } from './main.js';

function context(env: NodeJS.ProcessEnv = {}): { ctx: CommandContext; err: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { ctx: { stdout: sink, stderr: sink, env }, err: () => text };
}

const throwing = (error: unknown): CommandModule => ({
  help: '',
  run: async () => {
    throw error;
  },
});

describe('runCommand', () => {
  it('rethrows a bug: a TypeError is never shown as a user error', async () => {
    const { ctx, err } = context();
    const bug = new TypeError("Cannot read properties of undefined (reading 'rank')");
    await expect(runCommand(throwing(bug), 'estimate', [], ctx)).rejects.toBe(bug);
    expect(err()).toBe('');
  });

  it('a user error: its message and hint, exit 1', async () => {
    const { ctx, err } = context();
    const error = new HeadroomUserError({
      code: 'bad-flag',
      message: 'estimate needs a model',
      hint: 'headroom models',
    });
    expect(await runCommand(throwing(error), 'estimate', [], ctx)).toBe(1);
    expect(err()).toBe('error: estimate needs a model\nTry: headroom models\n');
  });

  it('a field error that leaves the command unnamed is named by the flag that set it, in the language asked for', async () => {
    const module: CommandModule = {
      help: '',
      run: async () => {
        parseScenario(mergeScenarioFlags({}, { model: 'x', 'grad-accum': '0' }).raw);
        return 0;
      },
    };
    const en = context();
    expect(await runCommand(module, 'fit', [], en.ctx, 'en')).toBe(1);
    expect(en.err()).toBe(
      'error: --grad-accum 0 must be a whole number from 1 to 65536\nTry: e.g. --grad-accum 8\n',
    );
    const zh = context();
    expect(await runCommand(module, 'fit', [], zh.ctx, 'zh')).toBe(1);
    expect(zh.err()).toBe('错误：--grad-accum 0 必须是 1 到 65536 之间的整数\n建议：例如 --grad-accum 8\n');
  });
});

describe('main', () => {
  it('gives the scenario section of --help in Chinese for --lang zh and a zh locale, English otherwise', async () => {
    const zh = context();
    await main(['estimate', '--help', '--lang', 'zh'], zh.ctx);
    expect(zh.err()).toContain('场景（参数覆盖 --scenario 中的设置；默认值见 docs/scenario.md）：');
    expect(zh.err()).toContain('headroom estimate — will it fit');
    const locale = context({ LANG: 'zh_CN.UTF-8' });
    await main(['plan', '--help'], locale.ctx);
    expect(locale.err()).toContain('每块 GPU 每步的序列数');
    const en = context({ LANG: 'zh_CN.UTF-8' });
    await main(['estimate', '--help', '--lang=en'], en.ctx);
    expect(en.err()).toContain('Scenario (flags override --scenario; defaults as in docs/scenario.md):');
    expect(en.err()).not.toMatch(/[\u4e00-\u9fff]/);
  });
});
