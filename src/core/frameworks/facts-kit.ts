/**
 * What the fact tables share: how a source is written, the assumption for an unknown version, the
 * bitsandbytes 4-bit types, and the one bitsandbytes fact every stack that quantizes with it inherits.
 */
import type { Fact, IfUnknown, Source } from './types.js';

/** An unknown version is taken as today's release. */
export const CURRENT: IfUnknown = { assume: true, why: 'current-release' };
/** bitsandbytes' 4-bit quantizations (the ones MatMul4Bit runs). */
export const BNB_4BIT = ['nf4', 'nf4-dq', 'fp4'] as const;

/** A source: repository, file, the ref read, and the symbol where it helps. */
export function src(repo: string, path: string, ref: string, symbol?: string): Source {
  return { repo, path, ref, ...(symbol === undefined ? {} : { symbol }) };
}

/**
 * bitsandbytes ≥ 0.43.2 keeps no 4-bit layer input for backward, whoever trains; `id` is the stack's
 * fact id (`bnb.inputs-kept-none`, `litgpt.inputs-kept-none`).
 */
export function inputsKeptNone(id: string): Fact {
  return {
    id,
    kind: 'sets',
    field: 'quantizedInputsKept',
    value: 'none',
    when: [{ package: 'bitsandbytes', atLeast: '0.43.2' }],
    ifUnknown: CURRENT,
    applies: { quantizedBy: 'bitsandbytes', quantizations: BNB_4BIT },
    source: src(
      'bitsandbytes-foundation/bitsandbytes',
      'bitsandbytes/autograd/_functions.py',
      '0.43.2',
      'MatMul4Bit.forward',
    ),
    reason: 'ctx.tensors = (None, B) since PR #1270 (commit 9e753741, 2024-07-16)',
  };
}
