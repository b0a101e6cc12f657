/** A line on a terminal while a model is read from the Hugging Face Hub. */
import type { HubOptions } from '../io/hub.js';
import { say } from '../words/catalog.js';
import { HUB_PROGRESS } from '../words/hub-progress.js';
import type { Lang } from '../words/lang.js';
import type { CommandContext } from './_command.js';

const CLEAR_LINE = '\r\u001b[2K';

/**
 * Hub options that report the fetch on `stderr` when it is a terminal: which repo, and how many
 * requests have been answered (a sharded checkpoint takes one a shard). The line is cleared when the
 * fetch ends, so the command's own output starts on a clean line. Nothing is written to a pipe or file.
 * `lang`: the command's language (English until a command passes its own).
 */
export function hubProgress(stderr: CommandContext['stderr'], lang: Lang = 'en'): HubOptions {
  if (stderr.isTTY !== true) return {};
  return {
    onProgress: ({ ref, requests, finished }) => {
      stderr.write(
        finished
          ? CLEAR_LINE
          : `${CLEAR_LINE}${say(HUB_PROGRESS, lang, { code: 'reading', params: { ref, requests } })}`,
      );
    },
  };
}
