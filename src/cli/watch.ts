/** `headroom watch --log FILE`: record a run started elsewhere, or resume one whose recorder died. */
import { existsSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { fileError } from '../core/file-errors.js';
import { watchedStatus } from '../core/run/status.js';
import { findOomInStderr } from '../core/stderr-oom.js';
import { probeLogFiles, waitForProbeLog } from '../io/follow-log.js';
import { headroomHome, LEDGER_FILE, Ledger } from '../io/ledger.js';
import { ledgerError } from '../io/ledger-open.js';
import { claimLogLock } from '../io/log-lock.js';
import { alive } from '../io/recorder.js';
import { requireRun } from '../io/run-context.js';
import { DEFAULT_SAMPLE_INTERVAL_MS, queryNvidiaSmi } from '../io/sampler.js';
import { readFileTail } from '../io/stderr-capture.js';
import { refuseFolder, type UserFileKind } from '../io/user-file.js';
import { type CommandContext, parseFlags } from './_command.js';
import { LANG_HELP, LANG_OPTIONS, langFromFlag } from './_lang.js';
import { liveTimings, samplerWarning, startLiveView } from './_live-view.js';
import { styleFor } from './_output.js';
import { runGrowth } from './_run-steps.js';
import { renderRunSummary, runJson, storedEvent, w } from './render-run.js';
import { visibleGpus } from './run.js';

/** Seconds watch waits for a probe log that is not there yet: a training takes a while to import torch. */
export const DEFAULT_WAIT_S = 30;

export const help = `headroom watch — record a run started elsewhere, from its probe log

Usage:
  headroom watch --log FILE [options]

Follows FILE (the HEADROOM_LOG the training was started with; ranks' FILE.rankN siblings too) and
samples the GPUs with nvidia-smi, into the ledger, until every probe writer has ended. When a run
of this log is already in the ledger and its recorder is gone (headroom run was killed), watch
resumes it where the ledger stopped: no line is lost or counted twice.

Options:
  --log FILE                the probe log to follow (required)
  --name NAME               a name for a new run
  --run ID                  add FILE's ranks to run ID (one node of a multi-node run: its ranks join
                            the run by rank and host; the run's status stays its recorder's)
  --interval-ms N           nvidia-smi sampling period in milliseconds        [${DEFAULT_SAMPLE_INTERVAL_MS}]
  --no-smi                  do not run nvidia-smi (probe layer only)
  --status-every S          without a terminal: a status line every S seconds [30]
  --wait S                  how long to wait for FILE to appear before giving up, in seconds
                            (nothing is recorded then)                      [${DEFAULT_WAIT_S}]
  --json                    print the run's record as JSON at the end
${LANG_HELP}

Start the training with the probe's log named, e.g.:
  HEADROOM_LOG=/tmp/probe.jsonl PYTHONPATH=$(headroom probe path) python train.py &
  headroom watch --log /tmp/probe.jsonl

Ctrl-C stops watching (the training goes on); the run stays "running" and watch --log resumes it.`;

/** The probe log, for the messages about the path itself. */
const PROBE_LOG: UserFileKind = {
  role: 'probe-log',
  advice: 'watch-log',
  example: 'probe.jsonl',
  extensions: ['.jsonl'],
};

/** --wait: seconds, 0 or more. */
function waitSeconds(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_WAIT_S;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw fileError(
      'flag-value',
      { flag: '--wait', value: raw, expected: 'seconds', min: 0, example: String(DEFAULT_WAIT_S) },
      '--wait',
      'out-of-range',
    );
  }
  return n;
}

const OPTIONS = {
  ...LANG_OPTIONS,
  wait: { type: 'string' },
  log: { type: 'string' },
  name: { type: 'string' },
  run: { type: 'string' },
  'interval-ms': { type: 'string' },
  'no-smi': { type: 'boolean' },
  'status-every': { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** The log's lock; a home it cannot be made in (a file, no permission) is named as the ledger's would be. */
function lockIn(home: string, logPath: string): ReturnType<typeof claimLogLock> {
  try {
    return claimLogLock(home, logPath);
  } catch (error) {
    throw ledgerError(join(home, LEDGER_FILE), error) ?? error;
  }
}

/** Runs the command; returns the exit code. */
export async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  const { values } = parseFlags(args, OPTIONS, 'watch', 0);
  const lang = langFromFlag(values.lang, ctx.env);
  if (typeof values.log !== 'string') {
    throw fileError(
      'missing-argument',
      { command: 'watch', needs: 'probe-log', ref: '' },
      '--log',
      'bad-flag',
    );
  }
  const logPath = resolve(values.log);
  refuseFolder(values.log, PROBE_LOG, 'read');
  const waitS = waitSeconds(values.wait);
  const { intervalMs, statusEveryMs, queryTimeoutMs } = liveTimings(values, ctx.env);
  const err = styleFor(ctx.stderr, ctx.env);
  const say = (text: string) => ctx.stderr.write(`${text}\n`);

  const home = headroomHome(ctx.env);
  // One watcher per log: a second one started at the same moment would record the run twice. The lock
  // comes before the ledger, so the one refused never waits on the ledger the other is writing.
  const claim = lockIn(home, logPath);
  if ('heldBy' in claim) {
    throw fileError(
      'log-watched',
      { path: logPath, pid: claim.heldBy.pid, host: claim.heldBy.host },
      '--log',
      'bad-flag',
    );
  }
  const lock = claim;
  let ledger: Ledger | null = null;
  try {
    ledger = Ledger.open(home);
    // --run: this node's files join a run recorded elsewhere; whoever recorded it keeps its status.
    const attachTo = typeof values.run === 'string' ? requireRun(ledger, values.run, '--run') : undefined;
    let run = attachTo ?? ledger.findRunByLog(logPath);
    if (
      !attachTo &&
      run &&
      run.status === 'running' &&
      run.monitorPid !== null &&
      run.monitorPid !== process.pid &&
      alive(run.monitorPid) &&
      run.host === hostname()
    ) {
      throw fileError(
        'run-being-recorded',
        { id: run.id, path: logPath, pid: run.monitorPid },
        '--log',
        'bad-flag',
      );
    }
    if (!attachTo && run && run.status !== 'running') {
      throw fileError('log-recorded', { id: run.id, path: logPath, status: run.status }, '--log', 'bad-flag');
    }
    // Nothing goes into the ledger until the log is there: a path that never appears (a typo, a training
    // that failed before its first step) leaves no run "running" for ever.
    if (probeLogFiles(logPath).length === 0) {
      say(err.dim(w(lang, { code: 'waiting-for-log', params: { seconds: waitS, path: logPath } })));
      if (!(await waitForProbeLog(logPath, waitS * 1000))) {
        throw fileError(
          'log-timeout',
          { log: values.log, path: logPath, seconds: waitS, suggest: Math.max(120, waitS * 4) },
          '--log',
          'timeout',
        );
      }
    }
    const resumed = run !== undefined;
    if (attachTo) {
      run = attachTo;
      say(err.dim(w(lang, { code: 'attaching', params: { runId: attachTo.id, log: logPath } })));
    } else if (run) {
      ledger.updateRun(run.id, { monitorPid: process.pid });
      ledger.addEvent(run.id, {
        tMs: Date.now(),
        ...storedEvent(
          { code: 'resumed', params: { pid: process.pid } },
          { offsets: Object.fromEntries(ledger.logOffsets(run.id)) },
        ),
      });
      say(err.dim(w(lang, { code: 'resuming', params: { runId: run.id } })));
    } else {
      run = ledger.createRun({
        name: values.name ?? null,
        command: [],
        cwd: process.cwd(),
        host: hostname(),
        scenario: null,
        estimate: null,
        env: {
          platform: process.platform,
          node: process.version,
          cudaVisibleDevices: ctx.env.CUDA_VISIBLE_DEVICES ?? null,
        },
        startedAtMs: Date.now(),
        monitorPid: process.pid,
      });
      ledger.updateRun(run.id, { logPath });
    }
    const runId = run.id;

    const query = values['no-smi'] ? null : await queryNvidiaSmi({ env: ctx.env }, queryTimeoutMs);
    if (query && !query.ok) {
      say(samplerWarning(query.problem, err, lang));
      ledger.addEvent(runId, {
        tMs: Date.now(),
        kind: 'sampler-problem',
        source: 'sampler',
        message: query.problem.message,
        data: { ...query.problem },
      });
    }
    const startedAtMs = run.startedAtMs;
    const childPid = run.childPid;
    const { recorder, bar, tick } = startLiveView({
      ctx,
      err,
      say,
      lang,
      ledger,
      runId,
      logPath,
      query,
      intervalMs,
      visibleGpus: visibleGpus(ctx.env),
      startedAtMs,
      statusEveryMs,
      pid: childPid,
    });
    let stopped = false;
    // Files this run has already read to their end (a node's ranks added before) have nothing to wait for.
    const offsets = ledger.logOffsets(runId);
    const consumed =
      attachTo !== undefined &&
      probeLogFiles(logPath).every(
        (path) => offsets.get(path) === statSync(path, { throwIfNoEntry: false })?.size,
      );
    const finished =
      consumed ||
      (await new Promise<boolean>((settle) => {
        const timer = setInterval(() => {
          tick();
          // Done when the command headroom run started has exited, else when every probe writer ended.
          const done =
            !attachTo && childPid !== null && run!.host === hostname()
              ? !alive(childPid)
              : recorder.writersDone();
          if (done || stopped) {
            clearInterval(timer);
            process.off('SIGINT', onStop);
            process.off('SIGTERM', onStop);
            settle(done);
          }
        }, 250);
        const onStop = () => {
          stopped = true;
        };
        process.on('SIGINT', onStop);
        process.on('SIGTERM', onStop);
      }));
    bar?.stop();
    // A writer that is still going may be mid-line: only a finished run's last line counts as truncated.
    await recorder.finish(finished);

    const othersRecord =
      attachTo !== undefined &&
      (attachTo.status !== 'running' ||
        (attachTo.monitorPid !== null && attachTo.monitorPid !== process.pid && alive(attachTo.monitorPid)));
    if (othersRecord) {
      // Another recorder owns the run's status: this watch only added its node's ranks.
    } else if (!finished) {
      ledger.updateRun(runId, { monitorPid: null });
      say(err.yellow(w(lang, { code: 'stopped-watching', params: { runId, log: values.log } })));
    } else {
      const events = ledger.events(runId);
      const ends = events.filter((e) => e.kind === 'end');
      const stderrTail = run.stderrPath && existsSync(run.stderrPath) ? readFileTail(run.stderrPath) : '';
      const oomText = stderrTail ? findOomInStderr(stderrTail) : null;
      if (oomText) {
        ledger.addEvent(runId, {
          tMs: Date.now(),
          kind: 'oom-text',
          source: 'stderr',
          message: oomText.message,
          data: { ...oomText },
        });
      }
      const status = watchedStatus({
        oomSeen: recorder.live.oomSeen || oomText !== null,
        endReasons: ends.map((e) => e.data.reason),
        allWritersEnded: [...recorder.writers.values()].every((writer) => writer.ended),
      });
      ledger.updateRun(runId, { status, endedAtMs: Date.now(), monitorPid: null });
    }
    const final = ledger.getRun(runId)!;
    if (values.json) ctx.stdout.write(`${JSON.stringify(runJson(final))}\n`);
    else {
      say('');
      say(renderRunSummary(final, runGrowth(ledger, final), ledger.events(runId), err, Date.now(), lang));
      say(err.dim(w(lang, { code: resumed ? 'resumed-as' : 'recorded-as', params: { runId } })));
    }
    return 0;
  } finally {
    lock.release();
    ledger?.close();
  }
}
