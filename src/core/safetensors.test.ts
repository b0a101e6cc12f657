import { describe, expect, it } from 'vitest';
import {
  buildRawSafetensors,
  buildSafetensors,
  buildSafetensorsHeader,
  type FixtureTensor,
  lengthPrefix,
} from '../io/test-helpers/safetensors-fixture.js';
import {
  countSafetensorsParameters,
  MAX_SAFETENSORS_HEADER_BYTES,
  parseSafetensorsHeader,
  readSafetensorsHeaderLength,
  type SafetensorsHeader,
  safetensorsHeaderFromJson,
} from './safetensors.js';
import { userErrorOf } from './test-helpers/user-error.js';

const FILE = 'model-00001-of-00004.safetensors';

/** Parses a whole in-memory safetensors file the way the readers do: prefix, then header. */
function parseFile(file: Uint8Array, fileName = FILE): SafetensorsHeader {
  const length = readSafetensorsHeaderLength(file.subarray(0, 8), fileName, file.length);
  return parseSafetensorsHeader(file.subarray(8, 8 + length), fileName, file.length);
}

describe('readSafetensorsHeaderLength', () => {
  it('reads the little-endian u64 header length', () => {
    const file = buildSafetensors([{ name: 'w', dtype: 'F32', shape: [2, 3] }]);
    // {"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}} is 57 bytes, padded to 64 so 8 + 64 is aligned.
    expect(readSafetensorsHeaderLength(file.subarray(0, 8), FILE, file.length)).toBe(64);
    expect(file.length).toBe(8 + 64 + 24);
  });

  it('accepts a length of exactly the 100 MB limit when the file size is unknown', () => {
    expect(readSafetensorsHeaderLength(lengthPrefix(100_000_000n), FILE)).toBe(MAX_SAFETENSORS_HEADER_BYTES);
  });

  it('rejects a header length above the limit, in human units', () => {
    const error = userErrorOf(() => readSafetensorsHeaderLength(lengthPrefix(9_200_000_000n), FILE));
    expect(error.code).toBe('bad-file');
    expect(error.where).toBe(FILE);
    expect(error.message).toBe(
      'model-00001-of-00004.safetensors: header length 9.2 GB exceeds the 100 MB limit — the file is not a safetensors file or is corrupt',
    );
    expect(error.hint).toBe(
      'check that the file is a complete safetensors file (re-download it if it was cut short or is a Git LFS pointer)',
    );
  });

  it('rejects the largest u64 without losing precision in the check', () => {
    const error = userErrorOf(() => readSafetensorsHeaderLength(lengthPrefix(2n ** 64n - 1n), FILE));
    expect(error.message).toBe(
      'model-00001-of-00004.safetensors: header length 18.4 EB exceeds the 100 MB limit — the file is not a safetensors file or is corrupt',
    );
  });

  it('rejects a header length of 0', () => {
    expect(userErrorOf(() => readSafetensorsHeaderLength(lengthPrefix(0n), FILE)).message).toBe(
      'model-00001-of-00004.safetensors: header length is 0 — the file is not a safetensors file or is corrupt',
    );
  });

  it('rejects a header longer than the rest of the file', () => {
    expect(userErrorOf(() => readSafetensorsHeaderLength(lengthPrefix(1000n), FILE, 500)).message).toBe(
      'model-00001-of-00004.safetensors: header length 1000 bytes runs past the end of the 500-byte file — the file is truncated or corrupt',
    );
    // 8 + 492 = 500: the header may fill the file exactly.
    expect(readSafetensorsHeaderLength(lengthPrefix(492n), FILE, 500)).toBe(492);
  });

  it('rejects a file shorter than the 8-byte prefix', () => {
    expect(userErrorOf(() => readSafetensorsHeaderLength(new Uint8Array(3), FILE, 3)).message).toBe(
      'model-00001-of-00004.safetensors: file is 3 bytes long, shorter than the 8-byte header length — not a safetensors file',
    );
  });

  it('names a Git LFS pointer left in place of the weights', () => {
    const pointer = new TextEncoder().encode('version https://git-lfs.github.com/spec/v1\n');
    const error = userErrorOf(() =>
      readSafetensorsHeaderLength(pointer.subarray(0, 8), FILE, pointer.length),
    );
    expect(error.message).toBe(
      'model-00001-of-00004.safetensors: is a Git LFS pointer file, not the weights',
    );
    expect(error.hint).toBe('run `git lfs pull` in the model folder, or download the real file');
  });

  it('reads a prefix that sits at an offset inside a larger buffer', () => {
    const buffer = new Uint8Array(16);
    buffer.set(lengthPrefix(1234n), 5);
    expect(readSafetensorsHeaderLength(buffer.subarray(5, 13), FILE)).toBe(1234);
  });
});

describe('parseSafetensorsHeader', () => {
  it('parses tensors, offsets and metadata of a real byte layout, padding included', () => {
    const file = buildSafetensors(
      [
        { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [10, 4] },
        { name: 'model.norm.weight', dtype: 'F32', shape: [4] },
        { name: 'scalar', dtype: 'F16', shape: [] },
        { name: 'empty', dtype: 'F32', shape: [0, 7] },
      ],
      { format: 'pt' },
    );
    // The writer pads with spaces so the data section starts 8-byte aligned.
    const length = readSafetensorsHeaderLength(file.subarray(0, 8), FILE, file.length);
    expect((8 + length) % 8).toBe(0);
    expect(file[8 + length - 1]).toBe(0x20);
    expect(parseFile(file)).toEqual({
      metadata: { format: 'pt' },
      tensors: [
        { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [10, 4], beginByte: 0, endByte: 80 },
        { name: 'model.norm.weight', dtype: 'F32', shape: [4], beginByte: 80, endByte: 96 },
        { name: 'scalar', dtype: 'F16', shape: [], beginByte: 96, endByte: 98 },
        { name: 'empty', dtype: 'F32', shape: [0, 7], beginByte: 98, endByte: 98 },
      ],
    });
  });

  it('accepts dtypes it has no size for, without a byte-size check', () => {
    const header = '{"q":{"dtype":"Q4_FUTURE","shape":[64],"data_offsets":[0,36]}}';
    expect(parseFile(buildRawSafetensors(header, 36)).tensors).toEqual([
      { name: 'q', dtype: 'Q4_FUTURE', shape: [64], beginByte: 0, endByte: 36 },
    ]);
  });

  it('checks sub-byte dtypes by bits: 6 F4 values are 3 bytes', () => {
    const header = '{"w":{"dtype":"F4","shape":[2,3],"data_offsets":[0,3]}}';
    expect(parseFile(buildRawSafetensors(header, 3)).tensors[0]?.endByte).toBe(3);
  });

  it('accepts a null __metadata__ as no metadata (the reference parser reads it as an Option)', () => {
    const header = '{"__metadata__":null,"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}';
    expect(parseFile(buildRawSafetensors(header, 1)).metadata).toEqual({});
  });

  it('accepts tensors listed out of offset order', () => {
    const header =
      '{"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]},"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}';
    expect(parseFile(buildRawSafetensors(header, 4)).tensors.map((t) => t.name)).toEqual(['b', 'a']);
  });

  const ok = (name: string, entry: string): string => `{"${name}":${entry}}`;
  const hostile: Array<{ case: string; header: string | Uint8Array; dataBytes: number; message: string }> = [
    {
      case: 'bad JSON',
      header: '{"w":{"dtype":"F32",',
      dataBytes: 0,
      message: 'header is not valid JSON',
    },
    {
      case: 'non-object JSON (an array)',
      header: '[1,2,3]',
      dataBytes: 0,
      message: "header does not begin with '{' — the file is not a safetensors file or is corrupt",
    },
    {
      case: 'leading whitespace before the brace',
      header: ' {}',
      dataBytes: 0,
      message: "header does not begin with '{' — the file is not a safetensors file or is corrupt",
    },
    {
      case: 'invalid UTF-8',
      header: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      dataBytes: 0,
      message: 'header is not valid UTF-8',
    },
    {
      case: 'overlapping offsets',
      header:
        '{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}}',
      dataBytes: 24,
      message: 'tensors "a" [0, 16] and "b" [8, 24] overlap',
    },
    {
      case: 'offsets past the end of the data section',
      header: ok('w', '{"dtype":"F32","shape":[4],"data_offsets":[0,16]}'),
      dataBytes: 8,
      message:
        'tensor "w" ends at byte 16 of the data section, past its end (8 bytes) — the file is truncated or corrupt',
    },
    {
      case: 'wrong byte size for the dtype',
      header: ok('w', '{"dtype":"BF16","shape":[4,4],"data_offsets":[0,16]}'),
      dataBytes: 16,
      message: 'tensor "w" (BF16 [4,4]) spans 16 bytes but needs 32',
    },
    {
      case: 'sub-byte tensor that does not fill whole bytes',
      header: ok('w', '{"dtype":"F4","shape":[3],"data_offsets":[0,2]}'),
      dataBytes: 2,
      message: 'tensor "w" (F4 [3]) spans 2 bytes but needs 1.5',
    },
    {
      case: 'begin after end',
      header: ok('w', '{"dtype":"U8","shape":[0],"data_offsets":[4,2]}'),
      dataBytes: 4,
      message: 'tensor "w" has data_offsets [4, 2] with begin after end',
    },
    {
      case: 'data_offsets with three numbers',
      header: ok('w', '{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}'),
      dataBytes: 2,
      message: 'tensor "w" has data_offsets [0,1,2]; expected [begin, end] byte offsets',
    },
    {
      case: 'negative offset',
      header: ok('w', '{"dtype":"U8","shape":[1],"data_offsets":[-1,0]}'),
      dataBytes: 2,
      message: 'tensor "w" has data_offsets [-1,0]; expected [begin, end] byte offsets',
    },
    {
      case: 'missing dtype',
      header: ok('w', '{"shape":[1],"data_offsets":[0,1]}'),
      dataBytes: 1,
      message: 'tensor "w" has no string dtype',
    },
    {
      case: 'negative dimension',
      header: ok('w', '{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}'),
      dataBytes: 1,
      message: 'tensor "w" has shape [-1]; expected non-negative integers',
    },
    {
      case: 'fractional dimension',
      header: ok('w', '{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}'),
      dataBytes: 1,
      message: 'tensor "w" has shape [1.5]; expected non-negative integers',
    },
    {
      case: 'dimension beyond a safe integer',
      header: ok('w', '{"dtype":"U8","shape":[9007199254740993],"data_offsets":[0,1]}'),
      dataBytes: 1,
      message: 'tensor "w" has shape [9007199254740992]; expected non-negative integers',
    },
    {
      case: 'element count beyond a safe integer',
      header: ok('w', '{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,1]}'),
      dataBytes: 1,
      message: 'tensor "w" has shape [4294967296,4294967296] with too many elements',
    },
    {
      case: 'tensor entry that is not an object',
      header: '{"w":[1,2]}',
      dataBytes: 0,
      message: 'tensor "w" is an array, not an object',
    },
    {
      case: 'metadata value that is not a string',
      header: '{"__metadata__":{"format":"pt","total_parameters":7}}',
      dataBytes: 0,
      message: '__metadata__["total_parameters"] is a number (7); metadata values must be strings',
    },
    {
      case: 'metadata that is not an object',
      header: '{"__metadata__":["pt"]}',
      dataBytes: 0,
      message: '__metadata__ is an array; it must map strings to strings',
    },
    {
      case: 'nested JSON in metadata',
      header: '{"__metadata__":{"config":{"a":1}}}',
      dataBytes: 0,
      message: '__metadata__["config"] is an object; metadata values must be strings',
    },
  ];

  it.each(hostile)('rejects $case', ({ header, dataBytes, message }) => {
    const file =
      typeof header === 'string'
        ? buildRawSafetensors(header, dataBytes)
        : withHeaderBytes(header, dataBytes);
    const error = userErrorOf(() => parseFile(file));
    expect(error.code).toBe('bad-file');
    expect(error.where).toBe(FILE);
    if (message === 'header is not valid JSON') {
      expect(error.message.startsWith(`${FILE}: header is not valid JSON (`)).toBe(true);
    } else {
      expect(error.message).toBe(`${FILE}: ${message}`);
    }
  });

  it('cuts long values quoted in messages to 120 characters', () => {
    const name = 'x'.repeat(500);
    const error = userErrorOf(() => parseFile(buildRawSafetensors(`{"${name}":{"shape":[]}}`, 0)));
    expect(error.message).toBe(`${FILE}: tensor "${'x'.repeat(119)}… has no string dtype`);
  });
});

function withHeaderBytes(header: Uint8Array, dataBytes: number): Uint8Array {
  const file = new Uint8Array(8 + header.length + dataBytes);
  file.set(lengthPrefix(BigInt(header.length)), 0);
  file.set(header, 8);
  return file;
}

describe('safetensorsHeaderFromJson', () => {
  it('rejects JSON that is not an object', () => {
    for (const [json, described] of [
      [[1, 2], 'an array'],
      [null, 'null'],
      ['text', 'a string ("text")'],
      [42, 'a number (42)'],
    ] as const) {
      expect(userErrorOf(() => safetensorsHeaderFromJson(json, FILE)).message).toBe(
        `${FILE}: header is JSON ${described}, not an object of tensors`,
      );
    }
  });

  it('checks offsets against the data section size when given', () => {
    const json = { w: { dtype: 'U8', shape: [4], data_offsets: [0, 4] } };
    expect(safetensorsHeaderFromJson(json, FILE, 4).tensors).toHaveLength(1);
    expect(userErrorOf(() => safetensorsHeaderFromJson(json, FILE, 3)).message).toBe(
      `${FILE}: tensor "w" ends at byte 4 of the data section, past its end (3 bytes) — the file is truncated or corrupt`,
    );
  });
});

describe('countSafetensorsParameters', () => {
  it('counts elements and bytes, leaving out non-parameter buffers', () => {
    const shard1 = parseFile(
      buildSafetensors([
        { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [100, 8] },
        { name: 'model.layers.0.self_attn.rotary_emb.inv_freq', dtype: 'F32', shape: [4] },
        { name: 'h.0.attn.masked_bias', dtype: 'F32', shape: [] },
        { name: 'h.0.attn.bias', dtype: 'BOOL', shape: [1, 1, 8, 8] },
        { name: 'h.0.attn.c_attn.bias', dtype: 'F32', shape: [24] },
      ]),
    );
    const shard2 = parseFile(buildSafetensors([{ name: 'lm_head.weight', dtype: 'F16', shape: [100, 8] }]));
    expect(countSafetensorsParameters([shard1, shard2])).toEqual({
      parameters: 800 + 24 + 800,
      bufferElements: 4 + 1 + 64,
      tensorBytes: 1600 + 16 + 4 + 64 + 96 + 1600,
      byDtype: { BF16: 800, F32: 24, F16: 800 },
      quantizedHint: false,
    });
  });

  it('counts a scalar as one element and an empty tensor as none', () => {
    const header = parseFile(
      buildSafetensors([
        { name: 'logit_scale', dtype: 'F32', shape: [] },
        { name: 'empty', dtype: 'F32', shape: [3, 0] },
      ]),
    );
    expect(countSafetensorsParameters([header])).toMatchObject({ parameters: 1, tensorBytes: 4 });
  });

  it('returns zeros for no headers', () => {
    expect(countSafetensorsParameters([])).toEqual({
      parameters: 0,
      bufferElements: 0,
      tensorBytes: 0,
      byDtype: {},
      quantizedHint: false,
    });
  });

  const quantized: FixtureTensor[] = [
    { name: 'model.layers.0.mlp.down_proj.weight.absmax', dtype: 'F32', shape: [4] },
    { name: 'model.layers.0.mlp.down_proj.qweight', dtype: 'F16', shape: [4] },
    { name: 'model.layers.0.mlp.down_proj.qzeros', dtype: 'F16', shape: [4] },
    { name: 'model.layers.0.mlp.down_proj.scales', dtype: 'F16', shape: [4] },
    { name: 'model.layers.0.mlp.down_proj.g_idx', dtype: 'F16', shape: [4] },
    { name: 'model.layers.0.mlp.down_proj.weight_scale', dtype: 'F32', shape: [1] },
    { name: 'model.layers.0.mlp.down_proj.weight_scale_inv', dtype: 'F32', shape: [1] },
    { name: 'model.layers.0.mlp.down_proj.weight_packed', dtype: 'F16', shape: [4] },
    { name: 'model.layers.0.mlp.down_proj.SCB', dtype: 'F32', shape: [4] },
    { name: 'model.layers.0.mlp.down_proj.weight.quant_state.bitsandbytes__nf4', dtype: 'F16', shape: [4] },
    { name: 'model.layers.0.mlp.down_proj.weight', dtype: 'U8', shape: [4] },
    { name: 'model.layers.0.mlp.down_proj.weight', dtype: 'I32', shape: [4] },
    { name: 'model.layers.0.mlp.down_proj.weight', dtype: 'U32', shape: [4] },
  ];
  it.each(quantized)('hints quantization for $name ($dtype)', (tensor) => {
    const header = parseFile(
      buildSafetensors([{ name: 'model.norm.weight', dtype: 'BF16', shape: [4] }, tensor]),
    );
    expect(countSafetensorsParameters([header]).quantizedHint).toBe(true);
  });

  it('does not hint quantization for an integer buffer it leaves out', () => {
    const header = parseFile(buildSafetensors([{ name: 'h.0.attn.bias', dtype: 'U8', shape: [1, 1, 4, 4] }]));
    expect(countSafetensorsParameters([header]).quantizedHint).toBe(false);
  });
});

/** Llama-style decoder tensors with the shapes transformers writes (PyTorch [out, in]). */
function llamaTensors(shape: {
  hidden: number;
  layers: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  intermediate: number;
  vocab: number;
  invFreq: boolean;
}): FixtureTensor[][] {
  const q = shape.heads * shape.headDim;
  const kv = shape.kvHeads * shape.headDim;
  const layers: FixtureTensor[][] = [];
  for (let i = 0; i < shape.layers; i += 1) {
    const p = `model.layers.${i}`;
    const layer: FixtureTensor[] = [
      { name: `${p}.input_layernorm.weight`, dtype: 'BF16', shape: [shape.hidden] },
      { name: `${p}.mlp.down_proj.weight`, dtype: 'BF16', shape: [shape.hidden, shape.intermediate] },
      { name: `${p}.mlp.gate_proj.weight`, dtype: 'BF16', shape: [shape.intermediate, shape.hidden] },
      { name: `${p}.mlp.up_proj.weight`, dtype: 'BF16', shape: [shape.intermediate, shape.hidden] },
      { name: `${p}.post_attention_layernorm.weight`, dtype: 'BF16', shape: [shape.hidden] },
      { name: `${p}.self_attn.k_proj.weight`, dtype: 'BF16', shape: [kv, shape.hidden] },
      { name: `${p}.self_attn.o_proj.weight`, dtype: 'BF16', shape: [shape.hidden, q] },
      { name: `${p}.self_attn.q_proj.weight`, dtype: 'BF16', shape: [q, shape.hidden] },
      { name: `${p}.self_attn.v_proj.weight`, dtype: 'BF16', shape: [kv, shape.hidden] },
    ];
    if (shape.invFreq) {
      layer.push({ name: `${p}.self_attn.rotary_emb.inv_freq`, dtype: 'F32', shape: [shape.headDim / 2] });
    }
    layers.push(layer);
  }
  const embed: FixtureTensor = {
    name: 'model.embed_tokens.weight',
    dtype: 'BF16',
    shape: [shape.vocab, shape.hidden],
  };
  const tail: FixtureTensor[] = [
    { name: 'lm_head.weight', dtype: 'BF16', shape: [shape.vocab, shape.hidden] },
    { name: 'model.norm.weight', dtype: 'BF16', shape: [shape.hidden] },
  ];
  // Four shards, as the real checkpoint ships: the embedding first, lm_head and the final norm last.
  const perShard = Math.ceil(shape.layers / 4);
  return [0, 1, 2, 3].map((s) => [
    ...(s === 0 ? [embed] : []),
    ...layers.slice(s * perShard, (s + 1) * perShard).flat(),
    ...(s === 3 ? tail : []),
  ]);
}

/** Headers only: the data section of a 16 GB checkpoint is never built. */
function headersOnly(shards: FixtureTensor[][]): SafetensorsHeader[] {
  return shards.map((tensors, i) =>
    parseSafetensorsHeader(
      buildSafetensorsHeader(tensors).headerBytes,
      `model-0000${i + 1}-of-00004.safetensors`,
    ),
  );
}

describe('real checkpoints (formats.md §2)', () => {
  it('Llama-3.1-8B: 8,030,261,248 parameters in 16,060,522,496 bytes (its index total_size)', () => {
    const shards = llamaTensors({
      hidden: 4096,
      layers: 32,
      heads: 32,
      kvHeads: 8,
      headDim: 128,
      intermediate: 14336,
      vocab: 128256,
      invFreq: false,
    });
    expect(shards.flat()).toHaveLength(291);
    expect(countSafetensorsParameters(headersOnly(shards))).toEqual({
      parameters: 8_030_261_248,
      bufferElements: 0,
      tensorBytes: 16_060_522_496,
      byDtype: { BF16: 8_030_261_248 },
      quantizedHint: false,
    });
  });

  it('Llama-2-7b-hf: 6,738,415,616 parameters; total_size 13,476,839,424 includes 8192 bytes of inv_freq', () => {
    const shards = llamaTensors({
      hidden: 4096,
      layers: 32,
      heads: 32,
      kvHeads: 32,
      headDim: 128,
      intermediate: 11008,
      vocab: 32000,
      invFreq: true,
    });
    expect(countSafetensorsParameters(headersOnly(shards))).toEqual({
      parameters: 6_738_415_616,
      bufferElements: 32 * 64,
      tensorBytes: 13_476_839_424,
      byDtype: { BF16: 6_738_415_616 },
      quantizedHint: false,
    });
  });
});
