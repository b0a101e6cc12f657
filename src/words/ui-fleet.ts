/** The words of the fleet's table, in `headroom fleet` and on the dashboard's fleet page. */
import type { MessageOf, NoParams } from '../core/message.js';
import { defineDomain, say } from './catalog.js';
import type { Lang } from './lang.js';

export interface UiFleetParams {
  readonly nav: NoParams;
  readonly title: NoParams;
  readonly host: NoParams;
  readonly gpu: NoParams;
  readonly uuid: NoParams;
  readonly model: NoParams;
  readonly used: NoParams;
  readonly free: NoParams;
  readonly total: NoParams;
  readonly runs: NoParams;
  readonly findings: NoParams;
  readonly 'no-findings': NoParams;
  readonly summary: {
    readonly cards: number;
    readonly hosts: number;
    readonly runs: number;
    readonly findings: number;
  };
  readonly source: { readonly url: string };
  readonly 'run-rank': { readonly run: string; readonly rank: string | null };
  readonly 'not-configured': NoParams;
  readonly refresh: NoParams;
  readonly loading: NoParams;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export const UI_FLEET = defineDomain<UiFleetParams>({
  name: 'ui-fleet',
  words: {
    en: {
      nav: () => 'Fleet',
      title: () => 'The fleet: every card Prometheus sees',
      host: () => 'Host',
      gpu: () => 'GPU',
      uuid: () => 'UUID',
      model: () => 'Model',
      used: () => 'Used',
      free: () => 'Free',
      total: () => 'Total',
      runs: () => 'Headroom runs',
      findings: () => 'Findings',
      'no-findings': () => 'No findings: no full card without a run, no outlier, nothing unaccounted.',
      summary: (p) =>
        `${plural(p.cards, 'card', 'cards')} on ${plural(p.hosts, 'host', 'hosts')}, ${plural(p.runs, 'running Headroom run', 'running Headroom runs')}, ${plural(p.findings, 'finding', 'findings')}`,
      source: (p) => `from ${p.url}`,
      'run-rank': (p) => `run ${p.run}${p.rank === null ? '' : ` rank ${p.rank}`}`,
      'not-configured': () =>
        'This server has no Prometheus to ask: start it with headroom serve --prometheus URL (or set HEADROOM_PROMETHEUS).',
      refresh: () => 'Refresh',
      loading: () => 'Asking Prometheus…',
    },
    zh: {
      nav: () => '集群',
      title: () => '集群：Prometheus 看到的每一张卡',
      host: () => '主机',
      gpu: () => 'GPU',
      uuid: () => '卡的 UUID',
      model: () => '型号',
      used: () => '已用',
      free: () => '空闲',
      total: () => '总量',
      runs: () => 'Headroom 任务',
      findings: () => '发现',
      'no-findings': () => '没有发现：没有无任务却已满的卡，没有离群的卡，也没有无法解释的显存。',
      summary: (p) =>
        `${p.hosts} 台主机上的 ${p.cards} 张卡，${p.runs} 个正在运行的 Headroom 任务，${p.findings} 项发现`,
      source: (p) => `来自 ${p.url}`,
      'run-rank': (p) => `任务 ${p.run}${p.rank === null ? '' : ` 的 rank ${p.rank}`}`,
      'not-configured': () =>
        '此服务器没有可查询的 Prometheus：请用 headroom serve --prometheus URL 启动（或设置 HEADROOM_PROMETHEUS）。',
      refresh: () => '刷新',
      loading: () => '正在查询 Prometheus…',
    },
  },
  examples: {
    nav: {},
    title: {},
    host: {},
    gpu: {},
    uuid: {},
    model: {},
    used: {},
    free: {},
    total: {},
    runs: {},
    findings: {},
    'no-findings': {},
    summary: { cards: 12, hosts: 2, runs: 1, findings: 3 },
    source: { url: 'http://127.0.0.1:9090' },
    'run-rank': { run: '7', rank: '3' },
    'not-configured': {},
    refresh: {},
    loading: {},
  },
});

/**
 * The fleet's words in one language, as a function of a code and its params (none for a label).
 * @example fleetWords('zh')('summary', { cards: 12, hosts: 2, runs: 1, findings: 3 })
 */
export function fleetWords(lang: Lang) {
  return <C extends keyof UiFleetParams>(
    code: C,
    ...params: UiFleetParams[C] extends NoParams ? [] : [UiFleetParams[C]]
  ): string => say(UI_FLEET, lang, { code, params: params[0] ?? {} } as MessageOf<UiFleetParams>);
}
