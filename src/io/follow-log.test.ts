import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/data.js';
import { MAX_PROBE_LINE_BYTES, parseProbeLine } from '../core/probe-log.js';
import { ProbeLogFollower, probeLogFiles, waitForProbeLog } from './follow-log.js';

let dir: string;
let log: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'headroom-follow-'));
  log = join(dir, 'probe.jsonl');
});

const texts = (f: ProbeLogFollower, final = false) =>
  f.read(final).map((file) => ({
    path: file.path,
    lines: file.lines.map((l) => [l.offset, l.text]),
    end: file.endOffset,
  }));

describe('ProbeLogFollower', () => {
  it('returns complete lines with byte offsets; a line still being written waits for its newline', () => {
    writeFileSync(log, '{"a":1}\n{"b":2}\n{"c":');
    const f = new ProbeLogFollower(log);
    expect(texts(f)).toEqual([
      {
        path: log,
        lines: [
          [0, '{"a":1}'],
          [8, '{"b":2}'],
        ],
        end: 16,
      },
    ]);
    expect(texts(f)).toEqual([]);
    appendFileSync(log, '3}\n');
    expect(texts(f)).toEqual([{ path: log, lines: [[16, '{"c":3}']], end: 24 }]);
  });

  it('on the final read, a last line without newline is returned as it is', () => {
    writeFileSync(log, '{"a":1}\n{"step":12,"dev');
    const f = new ProbeLogFollower(log);
    f.read();
    expect(texts(f, true)).toEqual([{ path: log, lines: [[8, '{"step":12,"dev']], end: 23 }]);
    expect(parseProbeLine('{"step":12,"dev').ok).toBe(false);
  });

  it('resumes from stored offsets: nothing read twice, nothing skipped', () => {
    writeFileSync(log, 'one\ntwo\nthree\n');
    const first = new ProbeLogFollower(log);
    const read = first.read();
    const stored = new Map([[log, read[0]!.lines[1]!.offset + 4]]); // as if killed after committing "two"
    appendFileSync(log, 'four\n');
    expect(texts(new ProbeLogFollower(log, stored))).toEqual([
      {
        path: log,
        lines: [
          [8, 'three'],
          [14, 'four'],
        ],
        end: 19,
      },
    ]);
  });

  it('finds the ranks’ files beside the base path, in rank order, and nothing else', () => {
    for (const name of [
      'probe.rank10.jsonl',
      'probe.rank2.jsonl',
      'probe.rank0.jsonl',
      'probe.jsonl.bak',
      'other.rank1.jsonl',
      'probeXrank1.jsonl',
    ])
      writeFileSync(join(dir, name), `${name}\n`);
    expect(probeLogFiles(log)).toEqual([
      join(dir, 'probe.rank0.jsonl'),
      join(dir, 'probe.rank2.jsonl'),
      join(dir, 'probe.rank10.jsonl'),
    ]);
    const f = new ProbeLogFollower(log);
    expect(f.read().map((r) => r.lines[0]!.text)).toEqual([
      'probe.rank0.jsonl',
      'probe.rank2.jsonl',
      'probe.rank10.jsonl',
    ]);
    expect(probeLogFiles(join(dir, 'missing-dir', 'p.jsonl'))).toEqual([]);
  });

  it('counts bytes, not characters, for offsets', () => {
    writeFileSync(log, '{"loss":"ü→"}\n{"x":1}\n');
    expect(texts(new ProbeLogFollower(log))[0]!.lines).toEqual([
      [0, '{"loss":"ü→"}'],
      [17, '{"x":1}'],
    ]);
  });

  it('a run-on line longer than the limit is cut loose instead of waiting forever', () => {
    writeFileSync(log, `${'x'.repeat(MAX_PROBE_LINE_BYTES + 10)}`);
    const [file] = new ProbeLogFollower(log).read();
    expect(file!.lines).toHaveLength(1);
    expect(file!.lines[0]!.text.length).toBe(MAX_PROBE_LINE_BYTES + 10);
    expect(parseProbeLine(file!.lines[0]!.text).ok).toBe(false);
  });

  it('a file that shrank (replaced) is read again from the start, and says so', () => {
    writeFileSync(log, 'aaaa\nbbbb\n');
    const f = new ProbeLogFollower(log);
    f.read();
    truncateSync(log, 0);
    appendFileSync(log, 'c\n');
    expect(f.read()).toEqual([
      { path: log, lines: [{ text: 'c', offset: 0 }], endOffset: 2, restarted: true },
    ]);
  });

  it('reads what the real probe writes: every line parses', () => {
    const result = spawnSync(
      'python3',
      [
        '-c',
        'import torch, headroom_probe\ntorch.cuda.standin_allocate(2**20)\nfor s in range(1, 4):\n    headroom_probe.step(s, loss=1.0/s)\nwith headroom_probe.phase("eval"):\n    pass\n',
      ],
      {
        encoding: 'utf8',
        env: {
          ...process.env,
          HEADROOM_LOG: log,
          PYTHONPATH: [join(REPO_ROOT, 'probe'), join(REPO_ROOT, 'probe', 'tests', 'standin')].join(
            delimiter,
          ),
        },
      },
    );
    expect(result.status).toBe(0);
    const [file] = new ProbeLogFollower(log).read(true);
    const events = file!.lines.map((l) => parseProbeLine(l.text));
    expect(events.map((e) => (e.ok ? e.event.event : e.problem.message))).toEqual([
      'start',
      'device',
      'step',
      'step',
      'step',
      'phase',
      'phase',
      'end',
    ]);
  });
});

describe('waitForProbeLog', () => {
  it('gives up (false) when no file of the log appears in time', async () => {
    expect(await waitForProbeLog(log, 60, 10)).toBe(false);
    expect(probeLogFiles(log)).toEqual([]);
  });

  it('returns true once a file of the log appears, a rank sibling too', async () => {
    const rank1 = join(dir, 'probe.rank1.jsonl');
    setTimeout(() => writeFileSync(rank1, ''), 50);
    expect(await waitForProbeLog(log, 10_000, 10)).toBe(true);
    expect(probeLogFiles(log)).toEqual([rank1]);
  });

  it('returns true at once for a log that is there, even with no time to wait', async () => {
    writeFileSync(log, '');
    expect(await waitForProbeLog(log, 0)).toBe(true);
  });
});
