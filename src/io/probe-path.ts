/** Where the Python probe ships: `probe/` at the package root (package.json "files" lists it). */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The folder to put on PYTHONPATH so that `import headroom_probe` works. */
export function probeDir(): string {
  // dist/io/probe-path.js and src/io/probe-path.ts both sit two levels below the package root.
  return fileURLToPath(new URL('../../probe/', import.meta.url)).replace(/\/$/, '');
}

/** The probe module file itself. */
export function probeFile(): string {
  return `${probeDir()}/headroom_probe.py`;
}

/** True when the probe is where it should be (a broken install lacks it). */
export function probeInstalled(): boolean {
  return existsSync(probeFile());
}
