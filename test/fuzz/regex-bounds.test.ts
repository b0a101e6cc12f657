/**
 * Every regular expression that reads user text, on the adversarial strings that made the old ones
 * super-linear (issue 22): long runs of spaces or digits, a regex's own words repeated, a 2.6 MB
 * allocator-table line beside an OOM. Each asserts what is read; a super-linear pattern on these
 * inputs takes minutes, so the generous timeout catches a hang (speed itself is bench:fuzz's).
 */
import { describe, expect, it } from 'vitest';
import { tokensFlag } from '../../src/cli/_scenario-input.js';
import { diagnose } from '../../src/core/diagnose/diagnose.js';
import { saysSecondCopy } from '../../src/core/diagnose/environment-rules.js';
import { parseEnvGpus } from '../../src/core/env.js';
import { isUserError } from '../../src/core/errors.js';
import { canonicalField } from '../../src/core/nvidia-smi.js';
import { parseNvidiaSmiTable } from '../../src/core/nvidia-smi-table.js';
import { findOomMessages } from '../../src/core/oom/index.js';
import { findOomInStderr } from '../../src/core/stderr-oom.js';

const HANG = 20_000;
const OOM =
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.20 GiB is free. Including non-PyTorch memory, this process has 77.90 GiB memory in use.';
const ALLOCATOR_ROW = '|       from large pool |  123456 KiB |  234567 KiB |  345678 KiB |  456789 KiB |';
/** The 2.6 MB line: one allocator-table row repeated, with no line break. */
const ALLOCATOR_LINE = ALLOCATOR_ROW.repeat(Math.ceil(2.6e6 / ALLOCATOR_ROW.length));
const SPACES = ' '.repeat(100_000);
const DIGITS = '1'.repeat(100_000);

describe('the environment rules read prose in linear time', () => {
  it('finds a second copy of the model said in words', () => {
    expect(saysSecondCopy('the eval hook loads the model again')).toBe(true);
    expect(saysSecondCopy('it allocates a fresh model twice')).toBe(true);
    expect(saysSecondCopy('a second copy of the model sits on the GPU')).toBe(true);
    expect(saysSecondCopy('the callback loads the model 2 times')).toBe(true);
    expect(saysSecondCopy('the model is loaded once')).toBe(false);
  });

  it(
    'reads a 2.6 MB line of the words without the last one, then with it',
    () => {
      const words = 'load the model into '.repeat(130_000);
      expect(saysSecondCopy(words)).toBe(false);
      expect(saysSecondCopy(`${words} again`)).toBe(true);
      expect(saysSecondCopy(`${'another model '.repeat(150_000)}`)).toBe(false);
    },
    HANG,
  );

  it(
    'diagnoses an OOM beside a 2.6 MB repeated allocator-table line',
    () => {
      const d = diagnose({ text: `${ALLOCATOR_LINE}\n${OOM}` });
      expect(d.oom.family).toBe('torch-v2');
      expect(d.oom.requestedBytes).toBe(2 * 1024 ** 3);
      expect(d.findings.map((f) => f.code)).not.toContain('second-model-copy');
    },
    HANG,
  );

  it(
    'diagnoses an OOM after lines of spaces, digits and "step" runs',
    () => {
      const text = [
        `x${SPACES}x`,
        DIGITS,
        `step${SPACES}x`,
        `epoch ${SPACES}=`,
        `Validation ${DIGITS}`,
        OOM,
      ].join('\n');
      const d = diagnose({ text });
      expect(d.oom.family).toBe('torch-v2');
      expect(d.oom.totalBytes).toBe(Math.round(79.15 * 1024 ** 3));
    },
    HANG,
  );
});

describe('the OOM grammars stay linear', () => {
  it(
    'reads no bitsandbytes error from "Error" and a long run of spaces, and still reads a real one',
    () => {
      expect(findOomMessages(`Error${SPACES}at line 1 in file x`)).toEqual([]);
      const real = findOomMessages('Error out of memory at line 380 in file /git/bitsandbytes/csrc/ops.cu');
      expect(real.map((m) => m.oom.family)).toEqual(['bitsandbytes']);
    },
    HANG,
  );

  it(
    'reads no DataLoader kill from an open "(pid" and spaces, and still reads a real one',
    () => {
      expect(findOomMessages(`DataLoader worker (pid ${SPACES}`)).toEqual([]);
      const real = findOomMessages('RuntimeError: DataLoader worker (pid 4242) is killed by signal: Killed.');
      expect(real.map((m) => m.oom.family)).toEqual(['host-oom']);
    },
    HANG,
  );

  it(
    'finds the OOM line of stderr after a 2.6 MB line',
    () => {
      const found = findOomInStderr(`${ALLOCATOR_LINE}\n${OOM}\n`);
      expect(found?.message).toBe(OOM);
    },
    HANG,
  );
});

describe('the nvidia-smi parsers stay linear', () => {
  it(
    'reads no row from a process, GPU or MIG line with a long run of spaces',
    () => {
      const table = [
        `|    0   N/A  N/A     21180      C   /root/tools/memhog${SPACES}x |`,
        `|    0   N/A  N/A     21180      C   /root/tools/memhog${SPACES}2296MiB${SPACES}x`,
        `|   0  NVIDIA H200${SPACES}x`,
        `|    0    2   0   0  |${SPACES}11091MiB / 40448MiB${SPACES}x`,
        `${DIGITS}MiB / ${DIGITS}`,
        ALLOCATOR_LINE,
      ].join('\n');
      expect(parseNvidiaSmiTable(table)).toEqual({ gpus: [], processes: [], migDevices: [] });
    },
    HANG,
  );

  it('still reads real rows', () => {
    const table = parseNvidiaSmiTable(
      [
        '|   0  NVIDIA H200                    On  |   00000000:83:00.0 Off |                    0 |',
        '| N/A   33C    P0            122W /  700W |   71234MiB / 143771MiB |     45%      Default |',
        '|    0   N/A  N/A     21180      C   /root/tools/memhog                 2296MiB |',
      ].join('\n'),
    );
    expect(table.gpus).toEqual([{ index: 0, name: 'NVIDIA H200', usedMiB: 71234, totalMiB: 143771 }]);
    expect(table.processes.map((p) => [p.pid, p.name, p.usedMiB])).toEqual([
      [21180, '/root/tools/memhog', 2296],
    ]);
  });

  it(
    'names a CSV field without its unit, whatever spaces come before',
    () => {
      expect(canonicalField('memory.total [MiB]')).toBe('memory.total');
      expect(canonicalField(`memory.total${SPACES}x`)).toBe(`memory.total${SPACES}x`);
      expect(canonicalField(`${SPACES}[`)).toBe('[');
      expect(canonicalField(`memory.total${SPACES}[MiB]`)).toBe('memory.total');
      const gpus = parseEnvGpus(`index, name, memory.total [MiB]\n0, NVIDIA H200, 143771 MiB\n`);
      expect(gpus[0]?.memoryTotalBytes).toBe(143771 * 1024 * 1024);
    },
    HANG,
  );
});

describe('size flags stay linear', () => {
  it(
    'refuses a number followed by a long run of spaces and a letter, and reads a padded one',
    () => {
      expect(tokensFlag({ tokens: ' 2e9 ' }, 'tokens')).toBe(2e9);
      expect(tokensFlag({ tokens: '1.5B' }, 'tokens')).toBe(1.5e9);
      let error: unknown;
      try {
        tokensFlag({ tokens: `1${SPACES}x` }, 'tokens');
      } catch (e) {
        error = e;
      }
      expect(isUserError(error)).toBe(true);
    },
    HANG,
  );
});
