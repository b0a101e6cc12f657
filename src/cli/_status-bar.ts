/**
 * A status line kept on the terminal's last row while a command's output scrolls above it: the
 * rows above are made a scroll region (DECSTBM, `ESC [ top ; bottom r`), as apt's progress line
 * does, so output written straight to the terminal by the command never overwrites it. Each draw
 * is one write: the terminal applies a write whole, so the command's bytes cannot land inside it.
 */

const ESC = '\u001b';
const SAVE = `${ESC}7`;
const RESTORE = `${ESC}8`;

export interface TerminalStream {
  write(chunk: string): boolean;
  readonly rows?: number;
  readonly columns?: number;
  on?(event: 'resize', listener: () => void): unknown;
  off?(event: 'resize', listener: () => void): unknown;
}

/** A status line pinned to the bottom row of a terminal. */
export class StatusBar {
  private readonly out: TerminalStream;
  private rows = 0;
  private active = false;
  private last = '';
  private readonly onResize = () => {
    if (!this.active) return;
    this.setRegion();
    this.draw(this.last);
  };

  constructor(out: TerminalStream) {
    this.out = out;
  }

  /** Terminal width for the caller's line. */
  get columns(): number {
    return this.out.columns ?? 80;
  }

  /** Reserves the last row. */
  start(): void {
    if (this.active || (this.out.rows ?? 0) < 3) return;
    this.active = true;
    // Make room: scroll one line, step back into what becomes the region, then set the region.
    this.out.write(`\n${ESC}[1A`);
    this.setRegion();
    this.out.on?.('resize', this.onResize);
  }

  private setRegion(): void {
    this.rows = this.out.rows ?? 24;
    this.out.write(`${SAVE}${ESC}[1;${this.rows - 1}r${RESTORE}`);
  }

  /** Draws `line` on the reserved row. */
  draw(line: string): void {
    this.last = line;
    if (!this.active) return;
    this.out.write(`${SAVE}${ESC}[${this.rows};1H${ESC}[2K${line}${RESTORE}`);
  }

  /** Gives the row back: resets the region and clears the line. */
  stop(): void {
    if (!this.active) return;
    this.active = false;
    this.out.off?.('resize', this.onResize);
    this.out.write(`${SAVE}${ESC}[r${ESC}[${this.rows};1H${ESC}[2K${RESTORE}`);
  }
}
