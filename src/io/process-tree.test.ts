import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parentPid, RunProcesses } from './process-tree.js';

describe('process tree (Linux /proc)', () => {
  it('reads a parent PID', () => {
    expect(parentPid(process.pid)).toBe(process.ppid);
    expect(parentPid(2 ** 22 + 12345)).toBeNull();
  });

  it('a grandchild of the command is the run’s; an unrelated process is not', async () => {
    const shell = spawn('sh', ['-c', 'sleep 5 & echo $!; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const grandchild = await new Promise<number>((resolve) =>
      shell.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
    );
    const ours = new RunProcesses();
    ours.addRoot(shell.pid!);
    expect(ours.isOurs(grandchild)).toBe(true);
    expect(ours.isOurs(shell.pid!)).toBe(true);
    expect(ours.isOurs(process.pid)).toBe(false);
    expect(ours.isOurs(2 ** 22 + 12345)).toBe(false);
    // A process the probe reports later makes its own descendants the run's.
    const later = new RunProcesses();
    expect(later.isOurs(grandchild)).toBe(false);
    later.addRoot(grandchild);
    expect(later.isOurs(grandchild)).toBe(true);
    process.kill(grandchild);
    shell.kill();
  });
});
