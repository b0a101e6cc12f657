/**
 * Output of any length, written as it is made: a run of 2,000,000 steps exports to gigabytes of JSON
 * Lines, more than one string can hold (V8 stops near 512 MiB) and far more than memory should. Text
 * is gathered into chunks of about 64 KiB, and a stream that asks to wait (a slow pipe) is waited for.
 */

const CHUNK_CHARS = 64 * 1024;

/** What the chunks go to: the command's stdout. */
export type OutStream = NodeJS.WritableStream;

export class ChunkWriter {
  private chunk = '';

  constructor(private readonly stream: OutStream) {}

  /** Adds text; writes the chunk out once it is full. */
  async write(text: string): Promise<void> {
    this.chunk += text;
    if (this.chunk.length >= CHUNK_CHARS) await this.flush();
  }

  /** Writes what is gathered, waiting for the stream when it asks to. */
  async flush(): Promise<void> {
    if (this.chunk === '') return;
    const text = this.chunk;
    this.chunk = '';
    if (!this.stream.write(text)) await new Promise<void>((drained) => this.stream.once('drain', drained));
  }
}

const MARK = '\u0000streamed-array\u0000';

/**
 * Writes `JSON.stringify({ ...value, [key]: [...items] }, null, 2)` and a newline, the same text, with the
 * array's items made and written one at a time (they are never all in memory).
 */
export async function writeJsonWithArray(
  out: ChunkWriter,
  value: Readonly<Record<string, unknown>>,
  key: string,
  items: Iterable<unknown>,
): Promise<void> {
  const text = JSON.stringify({ ...value, [key]: MARK }, null, 2);
  const at = text.indexOf(JSON.stringify(MARK));
  await out.write(text.slice(0, at));
  let first = true;
  for (const item of items) {
    const lines = JSON.stringify(item, null, 2).replace(/\n/g, '\n    ');
    await out.write(`${first ? '[\n' : ',\n'}    ${lines}`);
    first = false;
  }
  await out.write(first ? '[]' : '\n  ]');
  await out.write(`${text.slice(at + JSON.stringify(MARK).length)}\n`);
  await out.flush();
}
