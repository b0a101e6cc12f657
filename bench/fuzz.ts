/**
 * `npm run bench:fuzz`: the parsers' properties (test/fuzz/properties.ts) run longer than `npm test`
 * runs them, then every regex literal in src/ scanned for super-linear time (bench/fuzz/regex-scan.ts).
 * Prints, per parser: inputs tried, failures (an exception other than a user error) and the slowest
 * input. FUZZ_MINUTES sets the total time (default 2, shared by the parsers); FUZZ_RUNS instead sets
 * a count per parser; FUZZ_SEED the seed (default: a new one, printed, so a failure can be replayed).
 */
import fc from 'fast-check';
import { type ParserProperty, PROPERTIES, tryInput } from '../test/fuzz/properties.js';
import { regexSites, sampleLines, superLinear } from './fuzz/regex-scan.js';

const minutes = Number(process.env.FUZZ_MINUTES ?? 2);
const runs = process.env.FUZZ_RUNS === undefined ? null : Number(process.env.FUZZ_RUNS);
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const BATCH = 200;

interface Tally {
  name: string;
  tried: number;
  failures: number;
  first: string | null;
  slowestMs: number;
  slowestChars: number;
}

function sizeOf(input: unknown): number {
  try {
    return (typeof input === 'string' ? input : (JSON.stringify(input) ?? '')).length;
  } catch {
    return 0;
  }
}

function fuzz(property: ParserProperty<unknown>, index: number, budgetMs: number): Tally {
  const tally: Tally = {
    name: property.name,
    tried: 0,
    failures: 0,
    first: null,
    slowestMs: 0,
    slowestChars: 0,
  };
  const end = performance.now() + budgetMs;
  for (let batch = 0; runs === null ? performance.now() < end : tally.tried < runs; batch++) {
    const n = runs === null ? BATCH : Math.min(BATCH, runs - tally.tried);
    for (const input of fc.sample(property.input, { numRuns: n, seed: seed + index * 100_003 + batch })) {
      const start = performance.now();
      const outcome = tryInput(property, input);
      const ms = performance.now() - start;
      tally.tried++;
      if (ms > tally.slowestMs) {
        tally.slowestMs = ms;
        tally.slowestChars = sizeOf(input);
      }
      if (outcome) {
        tally.failures++;
        if (tally.first === null) {
          const error = outcome.failure as Error;
          tally.first = `${error?.name}: ${error?.message?.slice(0, 160)} ← ${JSON.stringify(input)?.slice(0, 300)}`;
        }
      }
    }
  }
  return tally;
}

const budget = (minutes * 60_000 * 0.9) / PROPERTIES.length;
console.log(
  runs === null
    ? `bench:fuzz — ${PROPERTIES.length} parsers, ${minutes} min in all, seed ${seed}`
    : `bench:fuzz — ${PROPERTIES.length} parsers, ${runs} inputs each, seed ${seed}`,
);
const tallies: Tally[] = [];
for (const [i, property] of PROPERTIES.entries()) {
  const t = fuzz(property as unknown as ParserProperty<unknown>, i, budget);
  tallies.push(t);
  console.log(
    `  ${t.name.padEnd(24)} ${String(t.tried).padStart(7)} inputs  ${String(t.failures).padStart(3)} failures  slowest ${t.slowestMs.toFixed(1).padStart(7)} ms (${t.slowestChars} chars)`,
  );
  if (t.first) console.log(`      first failure: ${t.first}`);
}
const total = tallies.reduce((n, t) => n + t.tried, 0);
const failures = tallies.reduce((n, t) => n + t.failures, 0);
console.log(
  `  ${'all'.padEnd(24)} ${String(total).padStart(7)} inputs  ${String(failures).padStart(3)} failures`,
);

const sites = regexSites(process.cwd());
const slow = superLinear(sites, sampleLines(process.cwd()));
console.log(
  `regex literals in src/ and web/src/: ${sites.length}, super-linear on pumped inputs: ${slow.length}`,
);
for (const f of slow)
  console.log(
    `  ${f.site.file}:${f.site.line} /${f.site.regex.source.slice(0, 70)}/ on ${JSON.stringify(f.input)}…`,
  );
process.exitCode = failures > 0 || slow.length > 0 ? 1 : 0;
