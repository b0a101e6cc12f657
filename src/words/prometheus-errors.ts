/**
 * The words of the errors of the Prometheus server `headroom fleet` asks (src/io/prometheus.ts), in
 * English and Chinese: each reason's message and what to do. src/words/file-errors.ts gathers them
 * with the other families of file errors. The server's own words (`detail`, `start`) stay as it wrote them.
 */
import type { PrometheusErrorParams } from '../core/file-errors.js';
import { defineDomain } from './catalog.js';

const URL_HINT = 'headroom fleet --prometheus http://prometheus.example:9090 (or set HEADROOM_PROMETHEUS)';
const URL_HINT_ZH =
  'headroom fleet --prometheus http://prometheus.example:9090（或设置 HEADROOM_PROMETHEUS）';
const BASE_URL_HINT =
  'give --prometheus the base URL of a Prometheus server (http://host:9090), not of an exporter or a proxy page';
const BASE_URL_HINT_ZH =
  '给 --prometheus 一个 Prometheus 服务器的基础 URL（http://host:9090），而不是导出器或代理页面的';

type Unreached = PrometheusErrorParams['prom-unreachable'];

function unreachedEn(p: Unreached): string {
  if (p.why === 'refused') return `nothing listens at ${p.host} (connection refused)`;
  if (p.why === 'unknown-host') return `the host ${p.hostname} is not known (${p.detail})`;
  if (p.why === 'closed') return `the connection to ${p.host} was closed before an answer`;
  return `cannot reach ${p.host} (${p.detail})`;
}

function unreachedZh(p: Unreached): string {
  if (p.why === 'refused') return `${p.host} 上没有服务在监听（连接被拒绝）`;
  if (p.why === 'unknown-host') return `无法解析主机 ${p.hostname}（${p.detail}）`;
  if (p.why === 'closed') return `与 ${p.host} 的连接在应答前就被关闭了`;
  return `无法连接 ${p.host}（${p.detail}）`;
}

type Shape = PrometheusErrorParams['prom-bad-shape'];

function shapeEn(p: Shape): string {
  const words: Readonly<Record<Shape['problem'], () => string>> = {
    'not-object': () => 'the body is not a JSON object',
    status: () => `status is ${p.value}`,
    'no-data': () => 'no data object',
    'result-type': () => `resultType is ${p.value}, not "vector"`,
    'result-not-list': () => 'data.result is not a list',
    'too-many-series': () => `${p.count} series, more than the ${p.max} read`,
    'series-shape': () => `series ${p.index} has no metric object and value pair`,
    'series-value': () => `series ${p.index}'s value is not [timestamp, "number"]`,
    'label-not-string': () => `series ${p.index}'s label ${p.label} is not a string`,
  };
  return words[p.problem]();
}
function shapeZh(p: Shape): string {
  const words: Readonly<Record<Shape['problem'], () => string>> = {
    'not-object': () => '响应体不是 JSON 对象',
    status: () => `status 为 ${p.value}`,
    'no-data': () => '没有 data 对象',
    'result-type': () => `resultType 为 ${p.value}，而不是 "vector"`,
    'result-not-list': () => 'data.result 不是列表',
    'too-many-series': () => `有 ${p.count} 条序列，超过了读取上限 ${p.max}`,
    'series-shape': () => `第 ${p.index} 条序列缺少 metric 对象和 value 值对`,
    'series-value': () => `第 ${p.index} 条序列的 value 不是 [timestamp, "number"]`,
    'label-not-string': () => `第 ${p.index} 条序列的标签 ${p.label} 不是字符串`,
  };
  return words[p.problem]();
}

const ANSWER_HINT_EN = (type: string) =>
  type === 'timeout'
    ? 'the query ran past the server’s own limit (--query.timeout): ask a smaller Prometheus, or raise that limit'
    : type === 'bad_data'
      ? 'the query was rejected: this headroom and that Prometheus may disagree on PromQL; report it with the server’s version'
      : 'look at the Prometheus server’s log; try again once it answers queries';
const ANSWER_HINT_ZH = (type: string) =>
  type === 'timeout'
    ? '查询超出了服务器自身的时限（--query.timeout）：换一个规模更小的 Prometheus，或调高该时限'
    : type === 'bad_data'
      ? '查询被拒绝：这个 headroom 与该 Prometheus 对 PromQL 的理解可能不一致；请附上服务器版本报告此问题'
      : '查看 Prometheus 服务器的日志；等它能正常应答查询后再试';

const WHERE = 'http://prometheus:9090 (query DCGM_FI_DEV_FB_USED)';

export const PROMETHEUS_ERRORS = defineDomain<PrometheusErrorParams>({
  name: 'prometheus-errors',
  words: {
    en: {
      'prom-not-url': (p) => `${p.where} ${p.raw}: not a URL`,
      'prom-scheme': (p) => `${p.where} ${p.raw}: Prometheus is asked over http or https, not ${p.scheme}`,
      'prom-timeout-flag': (p) => `--timeout ${p.raw}: seconds from above 0 to 600`,
      'prom-token-unreadable': (p) => `--token-file ${p.file}: cannot read it (${p.detail})`,
      'prom-token-empty': (p) => `--token-file ${p.file} is empty`,
      'prom-two-auths': () =>
        'both a bearer token and a basic-auth user are set for Prometheus; a request carries one',
      'prom-too-large': (p) => `${p.where} answered more than ${p.mib} MiB; nothing was read`,
      'prom-no-answer': (p) => `${p.where}: Prometheus did not answer within ${p.seconds} s`,
      'prom-unreachable': (p) => `${p.where}: ${unreachedEn(p)}`,
      'prom-refused': (p) =>
        `${p.where}: Prometheus refused the request (HTTP ${p.status}${p.anonymous ? ', and none was given' : ''})`,
      'prom-not-json': (p) =>
        `${p.where} answered HTTP ${p.status} ${p.statusText} with no JSON (${JSON.stringify(p.start)})`,
      'prom-no-dcgm': (p) =>
        `${p.url} has no DCGM series: ${p.used} returned nothing (also asked: ${p.free}, ${p.reserved})`,
      'prom-bad-shape': (p) => `${p.where} answered, but not with Prometheus' query API JSON: ${shapeEn(p)}`,
      'prom-error-answer': (p) =>
        `${p.where}: Prometheus answered an error (${p.errorType}): ${p.error || 'no message'}`,
    },
    zh: {
      'prom-not-url': (p) => `${p.where} ${p.raw}：不是 URL`,
      'prom-scheme': (p) => `${p.where} ${p.raw}：Prometheus 通过 http 或 https 访问，而不是 ${p.scheme}`,
      'prom-timeout-flag': (p) => `--timeout ${p.raw}：应为大于 0、不超过 600 的秒数`,
      'prom-token-unreadable': (p) => `--token-file ${p.file}：无法读取（${p.detail}）`,
      'prom-token-empty': (p) => `--token-file ${p.file} 是空的`,
      'prom-two-auths': () => 'Prometheus 同时设置了 bearer 令牌和 basic-auth 用户；一个请求只能带其中之一',
      'prom-too-large': (p) => `${p.where} 的应答超过 ${p.mib} MiB；没有读取任何内容`,
      'prom-no-answer': (p) => `${p.where}：Prometheus 在 ${p.seconds} 秒内没有应答`,
      'prom-unreachable': (p) => `${p.where}：${unreachedZh(p)}`,
      'prom-refused': (p) =>
        `${p.where}：Prometheus 拒绝了请求（HTTP ${p.status}${p.anonymous ? '，且请求未带任何凭据' : ''}）`,
      'prom-not-json': (p) =>
        `${p.where} 返回了 HTTP ${p.status} ${p.statusText}，但不是 JSON（${JSON.stringify(p.start)}）`,
      'prom-no-dcgm': (p) =>
        `${p.url} 上没有 DCGM 序列：${p.used} 没有返回任何数据（也查询了 ${p.free}、${p.reserved}）`,
      'prom-bad-shape': (p) => `${p.where} 有应答，但不是 Prometheus 查询 API 的 JSON：${shapeZh(p)}`,
      'prom-error-answer': (p) =>
        `${p.where}：Prometheus 返回了错误（${p.errorType}）：${p.error || '（无说明）'}`,
    },
  },
  examples: {
    'prom-not-url': { where: '--prometheus', raw: 'prometheus:9090' },
    'prom-scheme': { where: 'HEADROOM_PROMETHEUS', raw: 'ftp://prometheus', scheme: 'ftp' },
    'prom-timeout-flag': { raw: '0' },
    'prom-token-unreadable': { file: 'token.txt', detail: 'ENOENT' },
    'prom-token-empty': { file: 'token.txt' },
    'prom-two-auths': { where: '--prometheus' },
    'prom-too-large': { where: WHERE, mib: 64 },
    'prom-no-answer': { where: WHERE, seconds: 10, suggest: 30 },
    'prom-unreachable': {
      where: WHERE,
      why: 'refused',
      host: 'prometheus:9090',
      hostname: 'prometheus',
      detail: 'ECONNREFUSED',
    },
    'prom-refused': { where: WHERE, status: 401, anonymous: true },
    'prom-not-json': { where: WHERE, status: 502, statusText: 'Bad Gateway', start: '<html>' },
    'prom-no-dcgm': {
      url: 'http://prometheus:9090',
      used: 'DCGM_FI_DEV_FB_USED',
      free: 'DCGM_FI_DEV_FB_FREE',
      reserved: 'DCGM_FI_DEV_FB_RESERVED',
    },
    'prom-bad-shape': {
      where: WHERE,
      problem: 'result-type',
      value: '"matrix"',
      index: 0,
      label: '',
      count: 0,
      max: 200_000,
    },
    'prom-error-answer': {
      where: WHERE,
      errorType: 'bad_data',
      error: 'parse error: unclosed left parenthesis',
    },
  },
});

export const PROMETHEUS_ERROR_HINTS = defineDomain<PrometheusErrorParams>({
  name: 'prometheus-error-hints',
  words: {
    en: {
      'prom-not-url': () => URL_HINT,
      'prom-scheme': () => URL_HINT,
      'prom-timeout-flag': () => '--timeout 30',
      'prom-token-unreadable': () => 'give a file that holds the bearer token on one line',
      'prom-token-empty': () => 'put the bearer token in it, on one line',
      'prom-two-auths': () =>
        'unset HEADROOM_PROMETHEUS_TOKEN (and --token-file), or HEADROOM_PROMETHEUS_USER and the user in the URL',
      'prom-too-large': () => 'the URL may not be a Prometheus query API; check --prometheus',
      'prom-no-answer': (p) =>
        `it may be overloaded or the URL may point at something that never answers: headroom fleet --timeout ${p.suggest}`,
      'prom-unreachable': () =>
        'is Prometheus running there? Check the URL and port (Prometheus listens on 9090 by default)',
      'prom-refused': () =>
        'set HEADROOM_PROMETHEUS_TOKEN (or --token-file) for a bearer token, or HEADROOM_PROMETHEUS_USER and HEADROOM_PROMETHEUS_PASSWORD for basic auth',
      'prom-not-json': (p) =>
        p.status >= 500
          ? 'the server or a proxy in front of it failed; try again, or ask its owner'
          : BASE_URL_HINT,
      'prom-no-dcgm': () =>
        "Prometheus must scrape NVIDIA's dcgm-exporter on every GPU host (port 9400 by default), with its default counters, which include the DCGM_FI_DEV_FB_* fields",
      'prom-bad-shape': () => BASE_URL_HINT,
      'prom-error-answer': (p) => ANSWER_HINT_EN(p.errorType),
    },
    zh: {
      'prom-not-url': () => URL_HINT_ZH,
      'prom-scheme': () => URL_HINT_ZH,
      'prom-timeout-flag': () => '--timeout 30',
      'prom-token-unreadable': () => '给出一个单行存放 bearer 令牌的文件',
      'prom-token-empty': () => '把 bearer 令牌写进去，占一行',
      'prom-two-auths': () =>
        '取消设置 HEADROOM_PROMETHEUS_TOKEN（及 --token-file），或取消 HEADROOM_PROMETHEUS_USER 和 URL 中的用户',
      'prom-too-large': () => '该 URL 可能不是 Prometheus 查询 API；请检查 --prometheus',
      'prom-no-answer': (p) =>
        `它可能负载过重，或者该 URL 指向的东西从不应答：headroom fleet --timeout ${p.suggest}`,
      'prom-unreachable': () => 'Prometheus 在那里运行吗？请检查 URL 和端口（Prometheus 默认监听 9090）',
      'prom-refused': () =>
        '用 HEADROOM_PROMETHEUS_TOKEN（或 --token-file）设置 bearer 令牌，或用 HEADROOM_PROMETHEUS_USER 和 HEADROOM_PROMETHEUS_PASSWORD 设置 basic auth',
      'prom-not-json': (p) =>
        p.status >= 500 ? '服务器或它前面的代理出错了；请重试，或联系其管理员' : BASE_URL_HINT_ZH,
      'prom-no-dcgm': () =>
        'Prometheus 必须在每台 GPU 主机上抓取 NVIDIA 的 dcgm-exporter（默认端口 9400），并使用其默认计数器，其中包含 DCGM_FI_DEV_FB_* 字段',
      'prom-bad-shape': () => BASE_URL_HINT_ZH,
      'prom-error-answer': (p) => ANSWER_HINT_ZH(p.errorType),
    },
  },
  examples: PROMETHEUS_ERRORS.examples,
});
