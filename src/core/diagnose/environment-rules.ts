/**
 * Step 1 of the troubleshooting order: the environment. Other processes on the card (and the container
 * trap, where the one "Process N" is this process), leftovers of earlier runs, memory used that no
 * process accounts for, a request no card holds, host-memory kills, a second model copy. Rules follow
 * data/docs/MONITORING.md's "Rules the corpus suggests" 1, 2, 7 and 8.
 */
import { upgradeFreesInputs } from '../bitsandbytes.js';
import { cudaContextBytes } from '../estimate.js';
import {
  FREE_SLACK_BYTES,
  FREE_SLACK_SHARE,
  foreignProcesses,
  freeCoversRequest,
  type OomMatch,
  RANK_CONTEXT_MAX_BYTES,
  torchHeldBytes,
  UNACCOUNTED_MIN_BYTES,
  UNACCOUNTED_SHARE,
} from '../oom/index.js';
import type { Evidence } from './evidence.js';
import type { Finding } from './finding.js';
import { priceRemedies, UPGRADE_FLAGS } from './remedies.js';
import { bytes, ev, type RuleInput, say, value } from './rule-kit.js';

/** Memory nobody accounts for counts only above these (declared with the phase rules that use them too). */
export { UNACCOUNTED_MIN_BYTES, UNACCOUNTED_SHARE };

const isTorch = (m: OomMatch | null): m is OomMatch =>
  m !== null && (m.oom.family === 'torch-v1' || m.oom.family === 'torch-v2');

function messageEvidence(m: OomMatch): Evidence {
  return ev('message', value('family', { family: m.oom.family }), m.quote);
}

const proc = (pid: number, n: number) => value('process', { pid, name: null, bytes: n });

function processes(m: OomMatch): Finding[] {
  const o = m.oom;
  const list = o.processes ?? [];
  if (list.length === 0) return [];
  const out: Finding[] = [];
  const others = foreignProcesses(m);
  const own = list.filter((p) => !others.includes(p));
  const used = o.totalBytes !== null && o.freeBytes !== null ? o.totalBytes - o.freeBytes : null;
  if (o.thisProcessInUseBytes === undefined && own.length === 1) {
    const self = own[0]!;
    const evidence = [ev('process', proc(self.pid, self.bytes))];
    if (used !== null) evidence.push(ev('card-used', bytes(used)));
    // NVML lists every compute process, this one included: without a "this process" line, the biggest
    // "Process N" is this one. When the sizes do not add up, memory-outside-process reports the rest.
    out.push(say('own-process-in-container', 'info', { pid: self.pid, bytes: self.bytes }, evidence));
  }
  // Small processes are other ranks' contexts: the configuration step (rank imbalance) reports them.
  if (others.length > 0 && !others.every((p) => p.bytes <= RANK_CONTEXT_MAX_BYTES)) {
    const total = others.reduce((s, p) => s + p.bytes, 0);
    const evidence = others.map((p) => ev('process', proc(p.pid, p.bytes)));
    evidence.push(ev('processes-total', bytes(total)));
    if (o.thisProcessInUseBytes !== undefined)
      evidence.push(ev('this-process', bytes(o.thisProcessInUseBytes)));
    if (o.totalBytes !== null) evidence.push(ev('card-total', bytes(o.totalBytes)));
    out.push(
      say(
        'other-processes',
        'error',
        { count: others.length, bytes: total, gpus: o.gpuIndex === null ? [] : [o.gpuIndex] },
        evidence,
      ),
    );
  }
  return out;
}

/** Memory in use on the card that neither this process nor a listed process explains. */
function unaccounted(input: RuleInput, m: OomMatch): Finding[] {
  const o = m.oom;
  if (o.totalBytes === null || o.freeBytes === null) return [];
  if (o.allocatedByTorchBytes !== null && o.allocatedByTorchBytes > o.totalBytes) return [];
  const used = o.totalBytes - o.freeBytes;
  const listed = (o.processes ?? []).reduce((s, p) => s + p.bytes, 0);
  const evidence: Evidence[] = [ev('card-used', bytes(used))];
  let explained: number;
  if (o.thisProcessInUseBytes !== undefined) {
    explained = o.thisProcessInUseBytes + listed;
    evidence.push(ev('this-process', bytes(o.thisProcessInUseBytes)));
  } else if (listed > 0) {
    explained = listed;
  } else {
    // No process lines (NVML unavailable: Windows, some containers): PyTorch's own figures plus a context.
    const torch = torchHeldBytes(m);
    if (torch === null) return []; // a truncated message: too little to add up
    // The context the estimator counts for the card (758 MiB measured on Hopper), 500 MiB when unknown.
    const context = cudaContextBytes(input.gpu);
    explained = torch + context;
    evidence.push(
      // Allocated plus reserved-but-unallocated is what PyTorch holds in total, however the message splits it.
      ev('reserved-total', bytes(torch)),
      ev('cuda-context', bytes(context)),
    );
  }
  if (listed > 0) evidence.push(ev('processes-total', bytes(listed)));
  const rest = used - explained;
  if (rest < Math.max(UNACCOUNTED_MIN_BYTES, UNACCOUNTED_SHARE * o.totalBytes)) return [];
  evidence.push(ev('unaccounted', value('share-of-card', { bytes: rest, cardBytes: o.totalBytes })));
  return [say('memory-outside-process', 'warn', { bytes: rest }, evidence)];
}

/**
 * Free memory well above the request is more than rounding (bounds declared with the phase rules,
 * which read the same: phase-bytes.ts freeCoversRequest); a memory-fraction cap explains it.
 */
export { FREE_SLACK_BYTES, FREE_SLACK_SHARE };

function freeExceedsRequest(m: OomMatch): Finding[] {
  const o = m.oom;
  if (o.requestedBytes === null || o.freeBytes === null || !freeCoversRequest(o)) return [];
  return [
    say('free-exceeds-request', 'warn', { freeBytes: o.freeBytes, requestedBytes: o.requestedBytes }, [
      ev('requested', bytes(o.requestedBytes)),
      ev('card-free', bytes(o.freeBytes)),
      messageEvidence(m),
    ]),
  ];
}

function requestTooLarge(input: RuleInput, m: OomMatch): Finding[] {
  const o = m.oom;
  const card = o.totalBytes ?? input.capacityBytes;
  const out: Finding[] = [];
  if (m.requestUnbounded) {
    out.push(
      say('request-exceeds-card', 'error', { requestedBytes: null, totalBytes: card, unbounded: true }, [
        ev('requested', value('more-than-exabyte', {})),
        messageEvidence(m),
      ]),
    );
  } else if (o.requestedBytes !== null && card !== null && o.requestedBytes >= card) {
    out.push(
      say(
        'request-exceeds-card',
        'error',
        { requestedBytes: o.requestedBytes, totalBytes: card, unbounded: false },
        [ev('requested', bytes(o.requestedBytes)), ev('card-total', bytes(card)), messageEvidence(m)],
      ),
    );
  }
  if (o.allocatedByTorchBytes !== null && o.totalBytes !== null && o.allocatedByTorchBytes > o.totalBytes) {
    out.push(
      say(
        'allocated-exceeds-card',
        'warn',
        { allocatedBytes: o.allocatedByTorchBytes, totalBytes: o.totalBytes },
        [ev('torch-allocated', bytes(o.allocatedByTorchBytes)), ev('card-total', bytes(o.totalBytes))],
      ),
    );
  }
  return out;
}

function hostMemory(input: RuleInput, m: OomMatch): Finding[] {
  const before = input.lines
    .slice(0, m.line + 1)
    .map((l) => l.text)
    .join('\n');
  const kind = /shared\s+memory|Bus\s+error/i.test(m.quote)
    ? 'shared-memory'
    : /DataLoader\s+worker/i.test(m.quote)
      ? 'dataloader'
      : /Loading\s+checkpoint\s+shards|from_pretrained|load_state_dict|\bloading\b/i.test(before)
        ? 'loading'
        : 'kill';
  const evidence = [ev('message', value('family', { family: 'host-oom' }), m.quote)];
  if (m.oom.requestedBytes !== null) evidence.push(ev('requested', bytes(m.oom.requestedBytes)));
  return [say('host-memory', 'error', { kind }, evidence)];
}

// Prose that says the model is on the card twice: "loads the model again", "a second model … on the
// GPU", "loads the model 2 times". Each `A … B … C` is read as three searches, each from where the one
// before ended (the first A, then the first B after it, then any C after that): linear on any line,
// where one regex with two `[^\n]*` is cubic on a long one.
const MOVE_VERB = /\b(?:allocat|load|mov|put)\w*/i;
const MODEL_WORD = /\bmodel\b/i;
const AGAIN_WORD = /\b(?:again|twice)\b/i;
const SECOND_MODEL = /\b(?:second|another|extra)\s+(?:copy\s+of\s+the\s+)?model\b/i;
const ON_CARD = /\b(?:eval|GPU|card)/i;
const LOADS_TIMES = /\bloads?\s+(?:the\s+)?model\s+\d+\s+times\b/i;

/** The end of the first match of `regex` in `text` from `from`, or -1. */
function endOf(regex: RegExp, text: string, from: number): number {
  const m = regex.exec(text.slice(from));
  return m ? from + m.index + m[0].length : -1;
}

/** A line of prose saying the model was put on the card a second time. */
export function saysSecondCopy(line: string): boolean {
  const verb = endOf(MOVE_VERB, line, 0);
  const model = verb < 0 ? -1 : endOf(MODEL_WORD, line, verb);
  if (model >= 0 && AGAIN_WORD.test(line.slice(model))) return true;
  const second = endOf(SECOND_MODEL, line, 0);
  if (second >= 0 && ON_CARD.test(line.slice(second))) return true;
  return LOADS_TIMES.test(line);
}
const LOAD_CALL = /\.from_pretrained\s*\(|copy\.deepcopy\s*\(\s*(?:self\.)?model|\bload_state_dict\s*\(/;

function secondModelCopy(input: RuleInput): Finding[] {
  const prose = input.lines.findIndex((l) => saysSecondCopy(l.text));
  if (prose >= 0)
    return [
      say('second-model-copy', 'warn', {}, [
        ev('log', value('log-line', { line: prose + 1 }), input.lines[prose]!.text.trim()),
      ]),
    ];
  if (input.phase.phase !== 'evaluation') return [];
  const load = input.lines.findIndex((l) => LOAD_CALL.test(l.text));
  if (load >= 0)
    return [
      say('second-model-copy', 'warn', {}, [
        ev('phase', value('phase-name', { phase: 'evaluation' })),
        ev('log', value('log-line', { line: load + 1 }), input.lines[load]!.text.trim()),
      ]),
    ];
  // The allocator holds at least two copies of the weights the scenario's estimate needs.
  const weights = input.baseline?.breakdown.weightsBytes;
  const allocated = input.match?.oom.allocatedByTorchBytes ?? null;
  if (weights !== undefined && weights > 0 && allocated !== null && allocated >= 2 * weights)
    return [
      say('second-model-copy', 'warn', {}, [
        ev('phase', value('phase-name', { phase: 'evaluation' })),
        ev('torch-allocated', bytes(allocated)),
        ev('estimate-part', value('part', { part: 'weights', bytes: weights })),
      ]),
    ];
  return [];
}

/**
 * A 4-bit base on a bitsandbytes before 0.43.2 (recorded by the probe, or said by the scenario): every
 * layer keeps its input, which an upgrade frees with the same training.
 */
function oldBitsandbytes(input: RuleInput): Finding[] {
  const ctx = input.scenario;
  if (!ctx || !upgradeFreesInputs(ctx.scenario)) return [];
  const upgrade = priceRemedies('activations', ctx, input.capacityBytes).filter(
    (r) => r.flags === UPGRADE_FLAGS,
  );
  if (upgrade.length === 0) return [];
  return [
    say(
      'old-bitsandbytes',
      'warn',
      { version: input.bitsandbytes },
      [ev('kept-inputs', bytes(upgrade[0]!.savedBytes))],
      upgrade,
    ),
  ];
}

/** The environment findings, in the order. */
export function environmentFindings(input: RuleInput): Finding[] {
  const out: Finding[] = [];
  const m = input.match;
  if (!m && !input.lookAlike && input.lines.some((l) => l.text.trim() !== ''))
    out.push(say('no-oom-message', 'info', {}, []));
  if (!m && input.lookAlike) {
    const sig = input.lookAlike.signature;
    const kind = /\bat\s+line\s+\d+\s+in\s+file\b/.test(input.lookAlike.quote)
      ? 'bitsandbytes'
      : /CUDA|THCudaCheck|CUBLAS|CUDNN/i.test(sig)
        ? 'cuda'
        : /RESOURCE_EXHAUSTED/.test(sig)
          ? 'resource'
          : /signal/i.test(sig)
            ? 'signal'
            : 'other';
    out.push(
      say('not-an-oom', 'error', { error: sig, kind }, [
        ev('message', value('family', { family: 'not-oom' }), input.lookAlike.quote),
      ]),
    );
  }
  if (isTorch(m)) out.push(...processes(m));
  const read = input.phase;
  if (read.phase === 'other-process' && (read.basis === 'log' || read.basis === 'smi') && read.line !== null)
    out.push(
      say('leftover-process', 'error', {}, [
        ev('log', value('log-line', { line: read.line + 1 }), read.quote),
      ]),
    );
  if (isTorch(m)) out.push(...unaccounted(input, m), ...freeExceedsRequest(m));
  if (m && (m.oom.family === 'cuda-runtime' || m.oom.family === 'nccl' || m.oom.family === 'bitsandbytes'))
    out.push(say('numberless-oom', 'warn', { family: m.oom.family }, [messageEvidence(m)]));
  if (m && (m.oom.family === 'xla' || m.oom.family === 'tensorflow')) {
    const evidence = [messageEvidence(m)];
    if (m.oom.requestedBytes !== null) evidence.push(ev('requested', bytes(m.oom.requestedBytes)));
    out.push(say('framework-preallocation', 'info', { framework: m.oom.family }, evidence));
  }
  if (isTorch(m)) out.push(...requestTooLarge(input, m));
  if (m?.oom.family === 'host-oom') out.push(...hostMemory(input, m));
  out.push(...secondModelCopy(input), ...oldBitsandbytes(input));
  return out;
}
