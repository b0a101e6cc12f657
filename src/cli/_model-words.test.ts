import { describe, expect, it } from 'vitest';
import { resolveModelRef } from '../core/model-ref.js';
import { prequantizedNote, resolutionLine, textPartNote } from './_model-words.js';

const model = (ref: string) => resolveModelRef(ref)!;

describe('resolutionLine', () => {
  it('says how a Hub id reached the catalog model, in English and Chinese', () => {
    const mistral = model('mistralai/Mistral-7B-Instruct-v0.3');
    expect(resolutionLine(mistral)).toBe(
      'mistralai/Mistral-7B-Instruct-v0.3 → mistral-7b-v0.3 (catalog; instruct variant, same shapes)',
    );
    expect(resolutionLine(mistral, 'zh')).toBe(
      'mistralai/Mistral-7B-Instruct-v0.3 → mistral-7b-v0.3（目录；指令版，形状相同）',
    );
  });

  it('names the copy, the release, the storage and a context of its own', () => {
    expect(resolutionLine(model('unsloth/Llama-3.2-3B-Instruct-bnb-4bit'))).toBe(
      "unsloth/Llama-3.2-3B-Instruct-bnb-4bit → llama-3.2-3b (catalog; unsloth's copy, instruct variant, same shapes, stored as bitsandbytes 4-bit)",
    );
    expect(resolutionLine(model('Qwen/Qwen2-7B-Instruct'))).toBe(
      'Qwen/Qwen2-7B-Instruct → qwen2.5-7b (catalog; Qwen2 release, instruct variant, same shapes)',
    );
    expect(resolutionLine(model('Qwen/Qwen3-4B-Instruct-2507'), 'zh')).toBe(
      'Qwen/Qwen3-4B-Instruct-2507 → qwen3-4b（目录；2507 版本，指令版，形状相同，上下文 262,144 token）',
    );
  });

  it('is a bare "(catalog)" for the catalog repo in other case, and nothing for the catalog id', () => {
    expect(resolutionLine(model('META-LLAMA/llama-3.1-8b'))).toBe(
      'META-LLAMA/llama-3.1-8b → llama-3.1-8b (catalog)',
    );
    expect(resolutionLine(model('llama-3.1-8b'))).toBeNull();
  });
});

describe('prequantizedNote', () => {
  it('names the quantization that sizes a pre-quantized copy as stored, unless the scenario has it', () => {
    const gptq = model('Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4');
    expect(prequantizedNote(gptq, 'none')).toBe(
      'note: Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4 stores its weights pre-quantized (GPTQ 4-bit); these figures use --quantization none as given — add --quantization int4-gptq to size them as stored',
    );
    expect(prequantizedNote(gptq, 'int4-gptq')).toBeNull();
    expect(prequantizedNote(model('unsloth/Qwen3-8B-bnb-4bit'), 'nf4-dq')).toBeNull();
    expect(prequantizedNote(model('unsloth/Qwen3-8B-bnb-4bit'), 'nf4')).toContain(
      'add --quantization nf4-dq',
    );
    expect(prequantizedNote(model('qwen3-8b'), 'none')).toBeNull();
  });

  it('says when Headroom has no quantization for how the copy is stored', () => {
    expect(prequantizedNote(model('unsloth/Qwen3-4B-FP8'), 'none')).toBe(
      'note: unsloth/Qwen3-4B-FP8 stores its weights as FP8, which Headroom does not model; these figures use --quantization none',
    );
    expect(prequantizedNote(model('unsloth/Qwen3-4B-FP8'), 'none', 'zh')).toBe(
      '注意：unsloth/Qwen3-4B-FP8 的权重以 FP8 存储，Headroom 不建模这种格式；以上数字按 --quantization none 计算',
    );
  });
});

describe('textPartNote', () => {
  it('says a multimodal checkpoint named by its Hub id is sized by its language model only', () => {
    const note = textPartNote(model('google/gemma-3-4b-it'));
    expect(note).toBe(
      "note: gemma-3-4b-text is the language model of google/gemma-3-4b-it; the checkpoint's vision encoder is not counted — loaded whole (its ForConditionalGeneration class), the weights are larger: give the checkpoint's folder to count every parameter from its weight files",
    );
    expect(textPartNote(model('google/gemma-3-12b-it'), 'zh')).toContain(
      'gemma-3-12b-text 是 google/gemma-3-12b-it 的语言模型部分',
    );
  });

  it('is null for the "-text" catalog id typed as such, and for a text-only model', () => {
    expect(textPartNote(model('gemma-3-4b-text'))).toBeNull();
    expect(textPartNote(model('meta-llama/Llama-3.1-8B-Instruct'))).toBeNull();
    expect(textPartNote(model('google/gemma-2-9b-it'))).toBeNull();
  });
});
