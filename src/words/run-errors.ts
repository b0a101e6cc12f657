/**
 * The words of the errors of a run being recorded, or recorded already, that a command cannot take
 * over (`headroom watch`, `runs rm`, `calibrate`, `diagnose RUN`), in English and Chinese: each reason's
 * message and what to do. src/words/file-errors.ts gathers them with the other families of errors.
 */
import type { RunErrorParams } from '../core/file-errors.js';
import { defineDomain } from './catalog.js';

export const RUN_ERRORS = defineDomain<RunErrorParams>({
  name: 'run-errors',
  words: {
    en: {
      'log-watched': (p) => `${p.path} is being watched already (headroom pid ${p.pid} on ${p.host})`,
      'run-being-recorded': (p) =>
        p.path === ''
          ? `run ${p.id} is being recorded (headroom pid ${p.pid})`
          : `run ${p.id} of ${p.path} is being recorded by headroom (pid ${p.pid})`,
      'log-recorded': (p) => `run ${p.id} already recorded ${p.path} (${p.status})`,
      'log-timeout': (p) =>
        `${p.log} did not appear within ${p.seconds} s; is the training writing its probe log there? (HEADROOM_LOG=${p.path})`,
      'run-no-scenario': (p) =>
        p.use === 'calibrate'
          ? `run ${p.id} was recorded without a scenario, so there is no estimate to compare with`
          : `run ${p.id} was recorded without a scenario and has not been calibrated`,
      'no-run-no-file': (p) =>
        `no run "${p.ref}": nothing is recorded in ${p.home}, and there is no file of that name`,
      'api-no-run': (p) => `no run ${p.ref} in the ledger`,
      'api-bad-window': () => 'from and to must be seconds since the run started, from ≤ to',
    },
    zh: {
      'log-watched': (p) => `${p.path} 已经有人在监视（headroom 进程 ${p.pid}，主机 ${p.host}）`,
      'run-being-recorded': (p) =>
        p.path === ''
          ? `运行 ${p.id} 正在记录中（headroom 进程 ${p.pid}）`
          : `${p.path} 的运行 ${p.id} 正由 headroom 记录中（进程 ${p.pid}）`,
      'log-recorded': (p) => `运行 ${p.id} 已经记录过 ${p.path}（${p.status}）`,
      'log-timeout': (p) =>
        `${p.log} 在 ${p.seconds} 秒内没有出现；训练是否把探针日志写到了那里？（HEADROOM_LOG=${p.path}）`,
      'run-no-scenario': (p) =>
        p.use === 'calibrate'
          ? `运行 ${p.id} 记录时没有场景，因此没有可对比的估算`
          : `运行 ${p.id} 记录时没有场景，也还没有校准过`,
      'no-run-no-file': (p) => `没有运行 "${p.ref}"：${p.home} 中没有任何记录，也没有同名文件`,
      'api-no-run': (p) => `记录中没有运行 ${p.ref}`,
      'api-bad-window': () => 'from 和 to 须为自运行开始起的秒数，且 from ≤ to',
    },
  },
  examples: {
    'log-watched': { path: '/tmp/probe.jsonl', pid: 4242, host: 'gpu-node-1' },
    'run-being-recorded': { id: 3, path: '/tmp/probe.jsonl', pid: 4242 },
    'log-recorded': { id: 3, path: '/tmp/probe.jsonl', status: 'ok' },
    'log-timeout': { log: 'probe.jsonl', path: '/tmp/probe.jsonl', seconds: 30, suggest: 120 },
    'run-no-scenario': { id: 3, ref: 'last', use: 'calibrate' },
    'no-run-no-file': { ref: '7', home: '/home/me/.headroom' },
    'api-no-run': { ref: '99' },
    'api-bad-window': { id: '3' },
  },
});

export const RUN_ERROR_HINTS = defineDomain<RunErrorParams>({
  name: 'run-error-hints',
  words: {
    en: {
      'log-watched': () =>
        'headroom runs shows the run it records; stop that watch first to watch the log here',
      'run-being-recorded': (p) =>
        p.path === ''
          ? `wait for it to end, or headroom runs rm ${p.id} --force`
          : `headroom runs show ${p.id} shows it so far`,
      'log-recorded': (p) =>
        `headroom runs show ${p.id}; to record the log again, headroom runs rm ${p.id} first`,
      'log-timeout': (p) =>
        `start the training with HEADROOM_LOG=${p.path} PYTHONPATH="$(headroom probe path)", or wait longer: --wait ${p.suggest}`,
      'run-no-scenario': (p) =>
        p.use === 'calibrate'
          ? `give its setup: headroom calibrate ${p.ref} --model ID --method … --micro-batch N --seq-len N`
          : `calibrate it with its setup first: headroom calibrate ${p.id} --model ID --method … --micro-batch N`,
      'no-run-no-file': () =>
        'record a run with headroom run -- python train.py, or give the path of a log file',
      'api-no-run': () => 'headroom runs lists them',
      'api-bad-window': (p) => `/api/runs/${p.id}/window?from=0&to=60`,
    },
    zh: {
      'log-watched': () => 'headroom runs 会显示它正在记录的运行；要在这里监视该日志，请先停止那个 watch',
      'run-being-recorded': (p) =>
        p.path === ''
          ? `等它结束，或使用 headroom runs rm ${p.id} --force`
          : `headroom runs show ${p.id} 可以查看目前为止的记录`,
      'log-recorded': (p) => `headroom runs show ${p.id}；要重新记录该日志，请先 headroom runs rm ${p.id}`,
      'log-timeout': (p) =>
        `用 HEADROOM_LOG=${p.path} PYTHONPATH="$(headroom probe path)" 启动训练，或等待更久：--wait ${p.suggest}`,
      'run-no-scenario': (p) =>
        p.use === 'calibrate'
          ? `给出它的训练配置：headroom calibrate ${p.ref} --model ID --method … --micro-batch N --seq-len N`
          : `先带上训练配置校准它：headroom calibrate ${p.id} --model ID --method … --micro-batch N`,
      'no-run-no-file': () => '用 headroom run -- python train.py 记录一次运行，或给出日志文件的路径',
      'api-no-run': () => 'headroom runs 会列出已有的运行',
      'api-bad-window': (p) => `/api/runs/${p.id}/window?from=0&to=60`,
    },
  },
  examples: RUN_ERRORS.examples,
});
