/**
 * Traceback frames in a log: Python's `File "path", line N, in name` (with the code line under it),
 * IPython/Jupyter's `path in name(args)` and `File path:N, in Class.name(args)` with `--> N code`, and
 * rich's boxed tracebacks (`│ path:N in name │`, `│ ❱ N │ code │`). Lines that are none of these are
 * kept as log lines.
 */
import type { LogLine } from './log-lines.js';

export interface LogEntry {
  /** Line number in the normalized log. */
  readonly line: number;
  readonly text: string;
  /** A frame header: its function name and file; null for code and log lines. */
  readonly frame: { readonly name: string; readonly file: string } | null;
  /** Source code a traceback printed (the line under a frame, or an IPython `-->` line). */
  readonly isCode: boolean;
}

/** Characters of a line read (a frame or a line of code is far shorter). */
const MAX_LINE_CHARS = 2000;

const PYTHON_FRAME = /^\s*File\s+"([^"]+)",\s+line\s+\d+,\s+in\s+([\w<>.]+)/;
const IPYTHON_FRAME = /^\s*(\S+\.py)\s+in\s+([\w<>.]+)\s*\(/;
// IPython 8: `File /usr/lib/python3.10/site-packages/transformers/trainer.py:1633, in Trainer.train(self, …)`
const IPYTHON8_FRAME = /^\s*File\s+(\S+?\.py):\d+,\s+in\s+([\w<>.]+)/;
// The same copied from JupyterLab, which prints the path as a link: `File [~/x/cache_engine.py:49](http://…), in …`
const IPYTHON8_LINK_FRAME = /^\s*File\s+\[([^\]\s]+?\.py):\d+\]\([^)\s]*\),\s+in\s+([\w<>.]+)/;
const IPYTHON_CODE = /^\s*-+>\s*\d+\s+(.*)$/;
// rich (typer, many CLIs) draws the traceback in a box: `│ /path/auto_factory.py:471 in from_pretrained │`
// and marks the failing line `│ ❱  95 │   │   model = AutoModel.from_pretrained(… │`.
const RICH_BOX = /^\s*[│┃]/;
const RICH_FRAME = /^(\S+\.py):\d+\s+in\s+([\w<>.]+)$/;
const RICH_CODE = /^❱\s*\d+\s+│([\s│]*)(.*)$/;

const isEdge = (c: string) => c === '│' || c === '┃' || c.trim() === '';
/** The line inside rich's box: its borders and the spaces beside them removed (one pass each way). */
function unboxed(text: string): string {
  let i = 0;
  let j = text.length;
  while (i < j && isEdge(text[i]!)) i++;
  while (j > i && isEdge(text[j - 1]!)) j--;
  return text.slice(i, j);
}

/** The function's own name: IPython prints `Class.method`, Python the bare name. */
const ownName = (name: string) => name.slice(name.lastIndexOf('.') + 1);

// A script pasted beside the error (definitions, imports): its indented lines are code the user wrote,
// not the lines a traceback printed, so only the lines under a frame count as traceback code.
const SCRIPT_LINE =
  /^\s*(?:(?:async\s+)?def\s+\w+\s*\(|class\s+\w+\s*[(:]|import\s+\w|from\s+[\w.]+\s+import\s)/;

/** Classifies each line of a log as a frame header, traceback code, or a plain log line. */
export function readTraceback(lines: readonly LogLine[]): LogEntry[] {
  const out: LogEntry[] = [];
  let afterFrame = false;
  const scriptPasted = lines.some((l) => SCRIPT_LINE.test(l.text.slice(0, MAX_LINE_CHARS)));
  lines.forEach((whole, line) => {
    const cut = whole.text.slice(0, MAX_LINE_CHARS);
    const boxed = RICH_BOX.test(cut);
    const l = { text: boxed ? unboxed(cut) : cut };
    const py = boxed
      ? RICH_FRAME.exec(l.text)
      : (PYTHON_FRAME.exec(l.text) ??
        IPYTHON_FRAME.exec(l.text) ??
        IPYTHON8_FRAME.exec(l.text) ??
        IPYTHON8_LINK_FRAME.exec(l.text));
    if (py) {
      out.push({ line, text: l.text, frame: { file: py[1]!, name: ownName(py[2]!) }, isCode: false });
      afterFrame = true;
      return;
    }
    if (boxed) {
      const rich = RICH_CODE.exec(l.text);
      out.push({ line, text: rich ? rich[2]! : l.text, frame: null, isCode: rich !== null });
      afterFrame = false;
      return;
    }
    const ipy = IPYTHON_CODE.exec(l.text);
    // Python prints the source line indented under its frame; tracebacks pasted without their frame
    // lines still show indented calls ("    param_coordinator.fetch_sub_module(...)") — unless a script
    // was pasted too, whose indented calls are not a traceback's.
    const indentedCall = !scriptPasted && /^\s{2,}\S[^(]*[\w\])]\s*\(/.test(l.text);
    out.push({
      line,
      text: ipy ? ipy[1]! : l.text,
      frame: null,
      isCode: afterFrame || ipy !== null || indentedCall,
    });
    afterFrame = false;
  });
  return out;
}
