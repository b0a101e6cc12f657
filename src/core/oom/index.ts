/** Out-of-memory messages: the grammar of every family, and the phase of the run they failed in. */

export { findLookAlikeErrors, findOomMessages } from './find-oom-messages.js';
export type { LogLine } from './log-lines.js';
export { normalizeLog } from './log-lines.js';
export type { OomBackend, OomFamily, OomLayout, OomMatch, OomMessage, OomProcess } from './oom-message.js';
export { cachedFreeBytes, emptyOom, OOM_FAMILIES } from './oom-message.js';
export { findPrimaryOom, parseOomMessage, primaryOom } from './parse-oom-message.js';
export type { OomPhase, PhaseBasis, PhaseReading, PhaseReason } from './phase.js';
export {
  detectPhase,
  FREE_SLACK_BYTES,
  FREE_SLACK_SHARE,
  foreignProcesses,
  freeCoversRequest,
  RANK_CONTEXT_MAX_BYTES,
  readProcesses,
  torchHeldBytes,
  UNACCOUNTED_MIN_BYTES,
  UNACCOUNTED_SHARE,
} from './phase.js';
