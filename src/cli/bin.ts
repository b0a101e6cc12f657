#!/usr/bin/env node
/** The executable: runs main() on the process's streams. Anything thrown here is a bug, not a user error. */
import { main } from './main.js';

// `headroom models | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `headroom: internal error (a bug; please report it with this trace):\n${(error as Error)?.stack ?? String(error)}\n`,
    );
    process.exitCode = 2;
  },
);
