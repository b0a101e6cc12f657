import { describe, expect, it } from 'vitest';
import { hubProgress } from './_hub-progress.js';

function stream(isTTY: boolean) {
  const written: string[] = [];
  const out = {
    isTTY,
    write: (chunk: string) => {
      written.push(chunk);
      return true;
    },
  } as unknown as NodeJS.WritableStream & { isTTY?: boolean };
  return { out, written };
}

describe('hubProgress', () => {
  it('keeps one line on a terminal, rewritten per request and cleared at the end', () => {
    const { out, written } = stream(true);
    const { onProgress } = hubProgress(out);
    onProgress?.({ ref: 'allenai/OLMo-2-1124-7B', requests: 1, finished: false });
    onProgress?.({ ref: 'allenai/OLMo-2-1124-7B', requests: 7, finished: false });
    onProgress?.({ ref: 'allenai/OLMo-2-1124-7B', requests: 7, finished: true });
    expect(written).toEqual([
      '\r\u001b[2Kreading allenai/OLMo-2-1124-7B from the Hugging Face Hub: config.json and safetensors headers, 1 request answered',
      '\r\u001b[2Kreading allenai/OLMo-2-1124-7B from the Hugging Face Hub: config.json and safetensors headers, 7 requests answered',
      '\r\u001b[2K',
    ]);
  });

  it('speaks the command’s language', () => {
    const { out, written } = stream(true);
    hubProgress(out, 'zh').onProgress?.({ ref: 'Qwen/Qwen2.5-7B', requests: 3, finished: false });
    expect(written).toEqual([
      '\r\u001b[2K正在从 Hugging Face Hub 读取 Qwen/Qwen2.5-7B：config.json 和 safetensors 文件头，已完成 3 个请求',
    ]);
  });

  it('writes nothing to a pipe or a file', () => {
    const { out } = stream(false);
    expect(hubProgress(out)).toEqual({});
  });
});
