/**
 * Which processes belong to a run: the command, anything it started (torchrun's workers, DataLoader
 * workers), and any process the probe reported. Ancestry is read from /proc (Linux); elsewhere, or
 * for PIDs of another namespace (nvidia-smi in a container can print host PIDs), only the known
 * PIDs count.
 */
import { readFileSync } from 'node:fs';

/** Parent PID from /proc/PID/stat; null when the process is gone or /proc is not there. */
export function parentPid(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "PID (comm) STATE PPID ...": comm may contain spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

/** Remembers the run's processes and answers whether a PID is one of them. */
export class RunProcesses {
  private readonly roots = new Set<number>();
  private readonly known = new Map<number, boolean>();

  /** Adds a PID whose descendants are the run's too (the command, a probe writer). */
  addRoot(pid: number): void {
    this.roots.add(pid);
    this.known.set(pid, true);
  }

  /** True when `pid` is a root or descends from one. */
  isOurs(pid: number): boolean {
    const cached = this.known.get(pid);
    if (cached === true) return true;
    let current: number | null = pid;
    for (let depth = 0; current !== null && current > 1 && depth < 64; depth++) {
      if (this.roots.has(current)) {
        this.known.set(pid, true);
        return true;
      }
      current = parentPid(current);
    }
    // Not cached as false: a root the probe reports later may adopt it.
    return false;
  }
}
