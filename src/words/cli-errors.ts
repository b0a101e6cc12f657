/**
 * The words of the errors of a command line the CLI cannot parse (src/cli/_command.ts, src/cli/_lang.ts),
 * in English and Chinese. Node's parseArgs words (`detail`) are the English message as it always was;
 * the Chinese names the flag an unknown-option error is about and keeps Node's words for the rest.
 */
import type { CliErrorParams } from '../core/file-errors.js';
import { defineDomain } from './catalog.js';

const SPEAKER_EN = { headroom: 'Headroom speaks', findings: 'the findings speak' } as const;
const SPEAKER_ZH = { headroom: 'Headroom 支持', findings: '诊断结论支持' } as const;

/** Node's codes of a flag error, in Chinese; any other keeps Node's own words. */
function parseZh(p: CliErrorParams['flag-parse']): string {
  if (p.nodeCode === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && p.option !== '') return `未知选项 '${p.option}'`;
  if (p.nodeCode === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && p.option !== '')
    return `选项 '${p.option}' 的取值有误（${p.detail}）`;
  return `参数有误（${p.detail}）`;
}

export const CLI_ERRORS = defineDomain<CliErrorParams>({
  name: 'cli-errors',
  words: {
    en: {
      'flag-parse': (p) => `${p.command}: ${p.detail}`,
      'extra-argument': (p) => `${p.command}: unexpected argument "${p.arg}"`,
      'bad-lang': (p) => `--lang ${p.value}: ${SPEAKER_EN[p.speaker]} en (English) and zh (简体中文)`,
    },
    zh: {
      'flag-parse': (p) => `${p.command}：${parseZh(p)}`,
      'extra-argument': (p) => `${p.command}：多余的参数 "${p.arg}"`,
      'bad-lang': (p) => `--lang ${p.value}：${SPEAKER_ZH[p.speaker]} en（English）和 zh（简体中文）`,
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
  },
});

export const CLI_ERROR_HINTS = defineDomain<CliErrorParams>({
  name: 'cli-error-hints',
  words: {
    en: {
      'flag-parse': (p) => `headroom ${p.command} --help`,
      'extra-argument': (p) => `headroom ${p.command} --help`,
      'bad-lang': () => '--lang zh or --lang en',
    },
    zh: {
      'flag-parse': (p) => `headroom ${p.command} --help 列出全部选项`,
      'extra-argument': (p) => `headroom ${p.command} --help 列出它接受的参数`,
      'bad-lang': () => '用 --lang zh 或 --lang en',
    },
  },
  examples: CLI_ERRORS.examples,
});
