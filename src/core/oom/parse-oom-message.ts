/**
 * The one out-of-memory message a text is about: the most informative of every message found, by family
 * (PyTorch's allocator prints the most), then by how many figures it carries, then the first in the log.
 */
import { findLookAlikeErrors, findOomMessages } from './find-oom-messages.js';
import { emptyOom, type OomFamily, type OomMatch, type OomMessage } from './oom-message.js';

const FAMILY_RANK: Readonly<Record<OomFamily, number>> = {
  'torch-v1': 0,
  'torch-v2': 0,
  xla: 1,
  tensorflow: 2,
  bitsandbytes: 3,
  nccl: 4,
  'cuda-runtime': 5,
  'host-oom': 6,
  'not-oom': 7,
  none: 8,
};

function figures(oom: OomMessage): number {
  let n = 0;
  for (const value of Object.values(oom)) if (typeof value === 'number' || Array.isArray(value)) n++;
  return n;
}

/** The most informative of several matches; undefined for none. */
export function primaryOom(matches: readonly OomMatch[]): OomMatch | undefined {
  let best: OomMatch | undefined;
  for (const m of matches) {
    if (
      !best ||
      FAMILY_RANK[m.oom.family] < FAMILY_RANK[best.oom.family] ||
      (FAMILY_RANK[m.oom.family] === FAMILY_RANK[best.oom.family] && figures(m.oom) > figures(best.oom))
    )
      best = m;
  }
  return best;
}

/** The OOM message a text is about, with its quote, line and rank; null when there is none or a look-alike. */
export function findPrimaryOom(text: string): OomMatch | null {
  return primaryOom(findOomMessages(text)) ?? findLookAlikeErrors(text)[0] ?? null;
}

/**
 * Parses the out-of-memory message in a log or pasted traceback into the corpus's `expected` shape:
 * family `none` when the text has no error message, `not-oom` for a look-alike.
 * @example parseOomMessage('CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; …)').requestedBytes // 20971520
 */
export function parseOomMessage(text: string): OomMessage {
  return findPrimaryOom(text)?.oom ?? emptyOom('none');
}
