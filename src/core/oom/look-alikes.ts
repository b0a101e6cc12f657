/**
 * Errors that look like out-of-memory errors and are not: another CUDA error in the same shape
 * (`CUDA error: an illegal memory access was encountered`, `cuda runtime error (59)`, THC `error=59`,
 * `CUDA_ERROR_ILLEGAL_ADDRESS`), cuBLAS/cuDNN statuses other than allocation failures, a bitsandbytes C
 * error with another message (`Error operation not supported at line 380 in file …pythonInterface.c`,
 * xtuner #247), `RESOURCE_EXHAUSTED` that is not about memory (gRPC message size), an NCCL CUDA failure
 * other than memory, a DataLoader worker killed by a signal other than SIGKILL/SIGBUS.
 */
import { BNB_ERROR } from './bitsandbytes.js';
import { type GrammarHit, quoteOf } from './grammar-hit.js';
import { emptyOom } from './oom-message.js';

const PATTERNS: readonly RegExp[] = [
  /\bCUDA\s+error\s*:\s*(?!out\s+of\s+memory)\S[^\n]{0,200}/gi,
  /\bcuda\s+runtime\s+error\s*\(\s*(?!2\s*\))\d+\s*\)[^\n]{0,200}/gi,
  /\bTHCudaCheck\s+FAIL\b[^\n]{0,300}?\berror=(?!2\b)\d+[^\n]{0,200}/g,
  /\bCUDA_ERROR_(?!OUT_OF_MEMORY\b)[A-Z_]+\b/g,
  /\bCUBLAS_STATUS_(?!ALLOC_FAILED\b|SUCCESS\b)[A-Z_]+\b/g,
  /\bCUDNN_STATUS_(?!ALLOC_FAILED\b|NOT_INITIALIZED\b|SUCCESS\b)[A-Z_]+\b/g,
  /\bRESOURCE_EXHAUSTED\b(?![^\n]{0,300}?\b(?:memory|allocat\w*|OOM)\b)[^\n]{0,200}/g,
  /\bCuda\s+failure\s+(?:\d+\s+)?'(?!out\s+of\s+memory')[^'\n]+'/gi,
  /\bkilled\s+by\s+signal\s*:\s*(?!Killed\b|Bus\s+error\b)\w[^\n.]{0,100}/gi,
];

/** Every look-alike error in `text` (family `not-oom`). Use only when no real OOM message is found. */
export function findLookAlikes(text: string): GrammarHit[] {
  const hits: GrammarHit[] = [];
  const push = (at: number, matched: string) => {
    hits.push({
      start: at,
      oom: emptyOom('not-oom'),
      backend: null,
      layout: null,
      requestUnbounded: false,
      signature: matched.trim().replace(/\s+/g, ' ').slice(0, 200),
      quote: quoteOf(matched),
    });
  };
  for (const pattern of PATTERNS) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) push(m.index, m[0]);
  }
  BNB_ERROR.lastIndex = 0;
  for (let m = BNB_ERROR.exec(text); m !== null; m = BNB_ERROR.exec(text)) {
    if (!/^out\s+of\s+memory$/i.test(m[1]!.trim())) push(m.index, m[0]);
  }
  return hits.sort((a, b) => a.start - b.start);
}
