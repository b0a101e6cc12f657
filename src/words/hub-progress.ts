/** The line a terminal shows while a model is read from the Hugging Face Hub (src/cli/_hub-progress.ts). */
import { defineDomain } from './catalog.js';

export interface HubProgressParams {
  readonly reading: { readonly ref: string; readonly requests: number };
}

export const HUB_PROGRESS = defineDomain<HubProgressParams>({
  name: 'hub-progress',
  words: {
    en: {
      reading: (p) =>
        `reading ${p.ref} from the Hugging Face Hub: config.json and safetensors headers, ${p.requests} request${p.requests === 1 ? '' : 's'} answered`,
    },
    zh: {
      reading: (p) =>
        `正在从 Hugging Face Hub 读取 ${p.ref}：config.json 和 safetensors 文件头，已完成 ${p.requests} 个请求`,
    },
  },
  examples: { reading: { ref: 'meta-llama/Llama-3.1-8B', requests: 4 } },
});
