/**
 * Every regular-expression literal in src/ (tests excepted), run against pumped adversarial strings:
 * long runs of spaces, digits and letters, and each regex's own words repeated. A regex whose time
 * grows faster than its input (a 4× longer input taking far more than 4× longer) is reported.
 * `npm run bench:fuzz` runs it; it reads the sources with the TypeScript compiler, nothing else.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface RegexSite {
  readonly file: string;
  readonly line: number;
  readonly regex: RegExp;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

/** The regex literals of every source file under `root` (src/ and web/src/). */
export function regexSites(root: string, dirs: readonly string[] = ['src', 'web/src']): RegexSite[] {
  const sites: RegexSite[] = [];
  for (const dir of dirs) {
    let files: string[];
    try {
      files = sourceFiles(join(root, dir));
    } catch {
      continue;
    }
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
          const literal = node.getText(source);
          const close = literal.lastIndexOf('/');
          try {
            const regex = new RegExp(literal.slice(1, close), literal.slice(close + 1).replace('y', ''));
            sites.push({
              file: relative(root, file),
              line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
              regex,
            });
          } catch {
            // a flag this Node lacks: skipped
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  return sites;
}

/** The words and symbols of a regex's source, for pumping: `\bload\w*\b[^\n]*\bmodel` → load, model. */
function wordsOf(regex: RegExp): string[] {
  const words = regex.source
    .replace(/\\[a-zA-Z]/g, ' ')
    .split(/[^A-Za-z0-9_]+/)
    .filter((w) => w.length >= 2);
  return [...new Set(words)].slice(0, 12);
}

/** Lines of the real samples in data/ (nvidia-smi captures, the OOM corpus), to pump from. */
export function sampleLines(root: string): string[] {
  const lines = new Set<string>();
  const smi = join(root, 'data/validation/nvidia-smi');
  for (const name of readdirSync(smi)) {
    for (const line of readFileSync(join(smi, name), 'utf8').split(/\r?\n/)) lines.add(line);
  }
  for (const row of readFileSync(join(root, 'data/validation/oom_corpus.jsonl'), 'utf8').split('\n')) {
    if (!row.trim()) continue;
    const text = (JSON.parse(row) as { text?: unknown }).text;
    if (typeof text === 'string') for (const line of text.split('\n')) lines.add(line);
  }
  return [...lines].filter((l) => l.trim() !== '');
}

/**
 * A real line the regex matches, pumped: each run of spaces or digits made `n` long, and the line
 * followed by `n` spaces and a character no pattern ends with (what breaks a nested quantifier).
 */
function pumpedSamples(regex: RegExp, samples: readonly string[], n: number): string[] {
  const r = new RegExp(regex.source, regex.flags.replace('g', ''));
  const out: string[] = [];
  for (const line of samples) {
    if (line.length > 400 || !r.test(line)) continue;
    out.push(`${line}${' '.repeat(n)}\u0001`);
    const runs = [...line.matchAll(/ +|\d+/g)].slice(0, 8);
    for (const m of runs) {
      const unit = m[0][0] === ' ' ? ' ' : '1';
      out.push(`${line.slice(0, m.index)}${unit.repeat(n)}${line.slice(m.index + m[0].length)}`);
      out.push(`${line.slice(0, m.index)}${unit.repeat(n)}\u0001`);
    }
    if (out.length >= 40) break;
  }
  return out;
}

/** Pumped strings of about `n` characters for one regex. */
export function pumps(regex: RegExp, n: number, samples: readonly string[] = []): string[] {
  const rep = (unit: string): string => unit.repeat(Math.max(1, Math.ceil(n / unit.length))).slice(0, n);
  const words = wordsOf(regex);
  const out = [
    rep(' '),
    rep('1'),
    rep('a'),
    rep('1 '),
    rep('| '),
    rep('a '),
    rep('\t '),
    `|${rep(' ')}x`,
    `1${rep(' ')}MiB`,
  ];
  out.push(...pumpedSamples(regex, samples, n));
  if (words.length > 0) {
    out.push(rep(`${words.join(' ')} `));
    out.push(rep(words.join('')));
    for (const w of words.slice(0, 6)) out.push(rep(`${w} `), rep(`${w}1 `));
  }
  return out;
}

function timeOne(regex: RegExp, text: string): number {
  const r = new RegExp(regex.source, regex.flags);
  const start = performance.now();
  if (r.global) {
    let guard = 0;
    for (let m = r.exec(text); m && guard < 1e6; m = r.exec(text), guard++)
      if (m[0].length === 0) r.lastIndex++;
  } else r.exec(text);
  return performance.now() - start;
}

export interface RegexFinding {
  readonly site: RegexSite;
  readonly input: string;
  readonly smallMs: number;
  readonly largeMs: number;
}

/**
 * The sites whose time grows faster than linearly: each pumped input is timed at n/4 and, unless that
 * is already slow (over `limitMs`), at n; linear growth is fourfold, so more than twelvefold (and over
 * a millisecond) is reported. Pumps are cut to length from one input of n characters.
 */
export function superLinear(
  sites: readonly RegexSite[],
  samples: readonly string[] = [],
  n = 2048,
  limitMs = 100,
): RegexFinding[] {
  const out: RegexFinding[] = [];
  for (const site of sites) {
    for (const text of pumps(site.regex, n, samples)) {
      const small = text.slice(0, Math.floor(text.length / 4));
      const smallMs = Math.min(timeOne(site.regex, small), timeOne(site.regex, small));
      if (smallMs > limitMs) {
        out.push({ site, input: text.slice(0, 40), smallMs, largeMs: Number.NaN });
        break;
      }
      const largeMs = Math.min(timeOne(site.regex, text), timeOne(site.regex, text));
      if (largeMs > 1 && largeMs > 12 * Math.max(smallMs, 0.02)) {
        out.push({ site, input: text.slice(0, 40), smallMs, largeMs });
        break;
      }
    }
  }
  return out;
}

if (process.argv[1]?.endsWith('regex-scan.ts')) {
  const sites = regexSites(process.cwd());
  const found = superLinear(sites, sampleLines(process.cwd()), Number(process.env.REGEX_SCAN_N ?? 2048));
  console.log(`regex literals scanned: ${sites.length}; super-linear: ${found.length}`);
  for (const f of found)
    console.log(
      `  ${f.site.file}:${f.site.line} ${f.site.regex.source.slice(0, 80)}  ${JSON.stringify(f.input)}… ${f.smallMs.toFixed(1)} ms → ${f.largeMs.toFixed(1)} ms`,
    );
}
