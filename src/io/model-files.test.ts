import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asyncUserErrorOf as userErrorOf } from '../core/test-helpers/user-error.js';
import { type ModelFiles, readConfigFile, readModelFolder } from './model-files.js';
import {
  buildSafetensors,
  buildSafetensorsHeader,
  type FixtureTensor,
  lengthPrefix,
} from './test-helpers/safetensors-fixture.js';

/** A tiny Llama: hidden 16, 2 layers, 4 heads of 4, 2 KV heads, intermediate 32, vocab 64, untied. */
const TINY_LLAMA_CONFIG = {
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  hidden_size: 16,
  intermediate_size: 32,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  head_dim: 4,
  vocab_size: 64,
  tie_word_embeddings: false,
  torch_dtype: 'bfloat16',
};

function tinyLayer(i: number): FixtureTensor[] {
  const p = `model.layers.${i}`;
  return [
    { name: `${p}.input_layernorm.weight`, dtype: 'BF16', shape: [16] },
    { name: `${p}.self_attn.q_proj.weight`, dtype: 'BF16', shape: [16, 16] },
    { name: `${p}.self_attn.k_proj.weight`, dtype: 'BF16', shape: [8, 16] },
    { name: `${p}.self_attn.v_proj.weight`, dtype: 'BF16', shape: [8, 16] },
    { name: `${p}.self_attn.o_proj.weight`, dtype: 'BF16', shape: [16, 16] },
    // A rotary buffer, stored as Llama-2-7b-hf does: not a parameter.
    { name: `${p}.self_attn.rotary_emb.inv_freq`, dtype: 'F32', shape: [2] },
    { name: `${p}.post_attention_layernorm.weight`, dtype: 'BF16', shape: [16] },
    { name: `${p}.mlp.gate_proj.weight`, dtype: 'BF16', shape: [32, 16] },
    { name: `${p}.mlp.up_proj.weight`, dtype: 'BF16', shape: [32, 16] },
    { name: `${p}.mlp.down_proj.weight`, dtype: 'BF16', shape: [16, 32] },
  ];
}

const SHARD_1 = 'model-00001-of-00002.safetensors';
const SHARD_2 = 'model-00002-of-00002.safetensors';
const TINY_SHARDS: Record<string, FixtureTensor[]> = {
  [SHARD_1]: [{ name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [64, 16] }, ...tinyLayer(0)],
  [SHARD_2]: [
    ...tinyLayer(1),
    { name: 'model.norm.weight', dtype: 'BF16', shape: [16] },
    { name: 'lm_head.weight', dtype: 'BF16', shape: [64, 16] },
  ],
};

// embed 64·16 = 1024; per layer q 256 + k 128 + v 128 + o 256 + gate 512 + up 512 + down 512 + norms 32
// = 2336, ×2 = 4672; final norm 16; lm_head 1024. Total 6736 (the 2×2 inv_freq elements left out).
const TINY_PARAMETERS = 6736;
// 6736 BF16 elements × 2 bytes + 4 inv_freq F32 elements × 4 bytes.
const TINY_TENSOR_BYTES = 6736 * 2 + 4 * 4;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'headroom-model-files-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeTinyModel(folder: string, options: { index: boolean }): Promise<void> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'config.json'), JSON.stringify(TINY_LLAMA_CONFIG, null, 2));
  const weightMap: Record<string, string> = {};
  for (const [file, tensors] of Object.entries(TINY_SHARDS)) {
    await writeFile(join(folder, file), buildSafetensors(tensors, { format: 'pt' }));
    for (const tensor of tensors) weightMap[tensor.name] = file;
  }
  if (options.index) {
    const index = { metadata: { total_size: TINY_TENSOR_BYTES }, weight_map: weightMap };
    await writeFile(join(folder, 'model.safetensors.index.json'), JSON.stringify(index, null, 2));
  }
}

describe('readModelFolder', () => {
  it('counts parameters of a sharded folder from its index and shard headers', async () => {
    await writeTinyModel(dir, { index: true });
    const expected: ModelFiles = {
      source: 'folder',
      ref: dir,
      config: TINY_LLAMA_CONFIG,
      parameterCount: TINY_PARAMETERS,
      tensorBytes: TINY_TENSOR_BYTES,
      quantizedHint: false,
      notes: [
        'parameters counted from the headers of 2 shard(s) listed in model.safetensors.index.json',
        'left out 4 elements of non-parameter buffers (rotary inv_freq, attention masks)',
      ],
    };
    expect(await readModelFolder(dir)).toEqual(expected);
  });

  it('reads every *.safetensors file when there is no index', async () => {
    await writeTinyModel(dir, { index: false });
    await writeFile(join(dir, 'README.md'), '# tiny');
    await writeFile(join(dir, 'tokenizer.json'), '{}');
    const files = await readModelFolder(dir);
    expect(files.parameterCount).toBe(TINY_PARAMETERS);
    expect(files.tensorBytes).toBe(TINY_TENSOR_BYTES);
    expect(files.notes[0]).toBe(`parameters counted from the headers of ${SHARD_1}, ${SHARD_2}`);
  });

  it('reads only the header of each file, never the weights (a 4 GiB sparse tensor)', async () => {
    await writeFile(join(dir, 'config.json'), JSON.stringify(TINY_LLAMA_CONFIG));
    const tensors: FixtureTensor[] = [
      { name: 'model.embed_tokens.weight', dtype: 'F32', shape: [1024, 1024, 1024] },
    ];
    const { headerBytes, dataBytes } = buildSafetensorsHeader(tensors);
    const path = join(dir, 'model.safetensors');
    const handle = await open(path, 'w');
    await handle.write(lengthPrefix(BigInt(headerBytes.length)), 0, 8, 0);
    await handle.write(headerBytes, 0, headerBytes.length, 8);
    // Extend the file to its full size without writing data: a read of the weights would take 4 GiB.
    await handle.truncate(8 + headerBytes.length + dataBytes);
    await handle.close();
    const files = await readModelFolder(dir);
    expect(files.parameterCount).toBe(1024 ** 3);
    expect(files.tensorBytes).toBe(4 * 1024 ** 3);
  });

  it('falls back to config.json when the folder has no safetensors files', async () => {
    await writeFile(join(dir, 'config.json'), JSON.stringify(TINY_LLAMA_CONFIG));
    await writeFile(join(dir, 'pytorch_model.bin'), 'not read');
    expect(await readModelFolder(dir)).toEqual({
      source: 'folder',
      ref: dir,
      config: TINY_LLAMA_CONFIG,
      parameterCount: null,
      tensorBytes: null,
      quantizedHint: false,
      notes: ['no safetensors files in the folder: the parameter count comes from config.json'],
    });
  });

  it('hints quantization from quantization_config in config.json', async () => {
    const config = {
      ...TINY_LLAMA_CONFIG,
      quantization_config: { quant_method: 'bitsandbytes', load_in_4bit: true },
    };
    await writeFile(join(dir, 'config.json'), JSON.stringify(config));
    await writeFile(join(dir, 'model.safetensors'), buildSafetensors(TINY_SHARDS[SHARD_2] ?? []));
    const files = await readModelFolder(dir);
    expect(files.quantizedHint).toBe(true);
    expect(files.notes).toContain(
      'the checkpoint looks quantized: packed tensors hold several weights per stored element, so the count is of stored elements, not logical parameters',
    );
  });

  it('hints quantization from packed tensors even without quantization_config', async () => {
    await writeFile(join(dir, 'config.json'), JSON.stringify(TINY_LLAMA_CONFIG));
    const tensors: FixtureTensor[] = [
      { name: 'model.layers.0.mlp.down_proj.weight', dtype: 'U8', shape: [16, 8] },
      { name: 'model.layers.0.mlp.down_proj.weight.absmax', dtype: 'F32', shape: [4] },
    ];
    await writeFile(join(dir, 'model.safetensors'), buildSafetensors(tensors));
    const files = await readModelFolder(dir);
    expect(files.quantizedHint).toBe(true);
    expect(files.parameterCount).toBe(132);
  });

  it('says clearly when config.json is missing', async () => {
    await writeFile(join(dir, 'model.safetensors'), buildSafetensors(TINY_SHARDS[SHARD_1] ?? []));
    const error = await userErrorOf(() => readModelFolder(dir));
    expect(error.code).toBe('bad-file');
    expect(error.where).toBe(join(dir, 'config.json'));
    expect(error.message).toBe(
      `${dir} has no config.json; Headroom needs the model's config.json to know its shape`,
    );
    expect(error.hint).toBe(
      'pass the folder that holds config.json (a Hugging Face model snapshot), or a config.json path',
    );
  });

  it('rejects a path that does not exist or is not a folder', async () => {
    const missing = join(dir, 'nope');
    expect((await userErrorOf(() => readModelFolder(missing))).message).toBe(`no such folder: ${missing}`);
    const file = join(dir, 'config.json');
    await writeFile(file, '{}');
    expect((await userErrorOf(() => readModelFolder(file))).message).toBe(`${file} is not a folder`);
  });

  it('names a shard the index lists but the folder lacks', async () => {
    await writeTinyModel(dir, { index: true });
    await rm(join(dir, SHARD_2));
    const error = await userErrorOf(() => readModelFolder(dir));
    expect(error.where).toBe(join(dir, SHARD_2));
    expect(error.message).toBe(
      `${join(dir, SHARD_2)} is listed in model.safetensors.index.json but does not exist`,
    );
  });

  it('rejects an index whose shard names escape the folder', async () => {
    await writeTinyModel(dir, { index: true });
    const index = { weight_map: { 'model.embed_tokens.weight': '../outside.safetensors' } };
    await writeFile(join(dir, 'model.safetensors.index.json'), JSON.stringify(index));
    const error = await userErrorOf(() => readModelFolder(dir));
    const indexPath = join(dir, 'model.safetensors.index.json');
    expect(error.where).toBe(indexPath);
    expect(error.message).toBe(
      `${indexPath}: shard file name "../outside.safetensors" contains a path separator; shard names must be plain file names`,
    );
  });

  it('names the shard whose header length is absurd', async () => {
    await writeTinyModel(dir, { index: true });
    const corrupt = buildSafetensors(TINY_SHARDS[SHARD_2] ?? []);
    corrupt.set(lengthPrefix(9_200_000_000n), 0);
    await writeFile(join(dir, SHARD_2), corrupt);
    const error = await userErrorOf(() => readModelFolder(dir));
    expect(error.where).toBe(join(dir, SHARD_2));
    expect(error.message).toBe(
      `${join(dir, SHARD_2)}: header length 9.2 GB exceeds the 100 MB limit — the file is not a safetensors file or is corrupt`,
    );
  });

  it('names a shard cut short in its data section', async () => {
    await writeTinyModel(dir, { index: true });
    const full = buildSafetensors(TINY_SHARDS[SHARD_1] ?? []);
    await writeFile(join(dir, SHARD_1), full.subarray(0, full.length - 10));
    const error = await userErrorOf(() => readModelFolder(dir));
    expect(error.where).toBe(join(dir, SHARD_1));
    expect(error.message).toMatch(
      /: tensor ".+" ends at byte \d+ of the data section, past its end \(\d+ bytes\)/,
    );
  });

  it('names a Git LFS pointer left in place of a shard', async () => {
    await writeTinyModel(dir, { index: true });
    const pointer = 'version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 4976698672\n';
    await writeFile(join(dir, SHARD_1), pointer);
    const error = await userErrorOf(() => readModelFolder(dir));
    expect(error.message).toBe(`${join(dir, SHARD_1)}: is a Git LFS pointer file, not the weights`);
  });
});

describe('readConfigFile', () => {
  it('reads a config.json without counting parameters', async () => {
    const path = join(dir, 'config.json');
    await writeFile(path, JSON.stringify(TINY_LLAMA_CONFIG));
    expect(await readConfigFile(path)).toEqual({
      source: 'config-file',
      ref: path,
      config: TINY_LLAMA_CONFIG,
      parameterCount: null,
      tensorBytes: null,
      quantizedHint: false,
      notes: [],
    });
  });

  it('rejects JSON that is not an object, and text that is not JSON', async () => {
    const path = join(dir, 'config.json');
    await writeFile(path, '[1, 2]');
    expect((await userErrorOf(() => readConfigFile(path))).message).toBe(
      `${path} must hold a JSON object (a Hugging Face model config)`,
    );
    await writeFile(path, '{"hidden_size": ');
    const error = await userErrorOf(() => readConfigFile(path));
    expect(error.code).toBe('bad-file');
    expect(error.where).toBe(path);
    expect(error.message.startsWith(`${path} is not valid JSON (`)).toBe(true);
  });

  it('rejects a missing file and a folder', async () => {
    const missing = join(dir, 'missing.json');
    expect((await userErrorOf(() => readConfigFile(missing))).message).toBe(`no such file: ${missing}`);
    expect((await userErrorOf(() => readConfigFile(dir))).message).toBe(
      `${dir} is a folder, not a config.json file`,
    );
  });
});
