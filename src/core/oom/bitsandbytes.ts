/**
 * bitsandbytes' C-side errors: `Error <message> at line N in file …/csrc/pythonInterface.c` (paged and
 * managed memory, csrc/ops.cu). `out of memory` is an OOM; any other message in the same shape
 * (`operation not supported`, xtuner #247) is a look-alike and reported as such by look-alikes.ts.
 */
import { type GrammarHit, quoteOf } from './grammar-hit.js';
import { emptyOom } from './oom-message.js';

/** The shape of a bitsandbytes C error; group 1 is its message. */
export const BNB_ERROR =
  /\bError[ \t]+(?=\S)([^\n]{0,199}?\S)[ \t]+at[ \t]+line[ \t]+\d+[ \t]+in[ \t]+file[ \t]+\S{0,300}?(?:csrc|pythonInterface|bitsandbytes)\S{0,300}/g;

/** Every bitsandbytes out-of-memory error in `text`. */
export function findBitsandbytesMessages(text: string): GrammarHit[] {
  const hits: GrammarHit[] = [];
  BNB_ERROR.lastIndex = 0;
  for (let m = BNB_ERROR.exec(text); m !== null; m = BNB_ERROR.exec(text)) {
    if (!/^out\s+of\s+memory$/i.test(m[1]!.trim())) continue;
    hits.push({
      start: m.index,
      oom: emptyOom('bitsandbytes'),
      backend: 'cuda',
      layout: null,
      requestUnbounded: false,
      signature: 'Error out of memory',
      quote: quoteOf(m[0]),
    });
  }
  return hits;
}
