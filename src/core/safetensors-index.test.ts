import { describe, expect, it } from 'vitest';
import { MAX_SAFETENSORS_SHARD_FILES, parseSafetensorsIndex } from './safetensors-index.js';
import { userErrorOf } from './test-helpers/user-error.js';

const FILE = 'model.safetensors.index.json';

const index = (weightMap: unknown, metadata?: unknown): string =>
  JSON.stringify(metadata === undefined ? { weight_map: weightMap } : { metadata, weight_map: weightMap });

describe('parseSafetensorsIndex', () => {
  it('reads total_size, the distinct shards in first-seen order, and the weight map', () => {
    // The shape transformers writes for Llama-3.1-8B (formats.md §2), cut to four tensors.
    const text = `{
  "metadata": {"total_size": 16060522496},
  "weight_map": {
    "lm_head.weight": "model-00004-of-00004.safetensors",
    "model.embed_tokens.weight": "model-00001-of-00004.safetensors",
    "model.layers.0.input_layernorm.weight": "model-00001-of-00004.safetensors",
    "model.layers.31.mlp.down_proj.weight": "model-00004-of-00004.safetensors"
  }
}`;
    expect(parseSafetensorsIndex(text, FILE)).toEqual({
      totalSizeBytes: 16_060_522_496,
      shardFiles: ['model-00004-of-00004.safetensors', 'model-00001-of-00004.safetensors'],
      weightMap: {
        'lm_head.weight': 'model-00004-of-00004.safetensors',
        'model.embed_tokens.weight': 'model-00001-of-00004.safetensors',
        'model.layers.0.input_layernorm.weight': 'model-00001-of-00004.safetensors',
        'model.layers.31.mlp.down_proj.weight': 'model-00004-of-00004.safetensors',
      },
    });
  });

  it('treats metadata and total_size as optional, and keeps other metadata keys out of the way', () => {
    const map = { w: 'model.safetensors' };
    expect(parseSafetensorsIndex(index(map), FILE).totalSizeBytes).toBeNull();
    expect(parseSafetensorsIndex(index(map, { total_parameters: 7 }), FILE).totalSizeBytes).toBeNull();
    expect(parseSafetensorsIndex(index(map, { total_size: '13476839424' }), FILE).totalSizeBytes).toBe(
      13_476_839_424,
    );
  });

  const hostile: Array<{ case: string; text: string; message: string }> = [
    { case: 'a top-level array', text: '[]', message: 'must be a JSON object with a "weight_map"' },
    {
      case: 'no weight_map',
      text: '{"metadata":{}}',
      message: '"weight_map" is missing or not an object of tensor name → shard file',
    },
    {
      case: 'a weight_map array',
      text: index(['a']),
      message: '"weight_map" is missing or not an object of tensor name → shard file',
    },
    { case: 'an empty weight_map', text: index({}), message: '"weight_map" is empty' },
    {
      case: 'a non-string shard',
      text: index({ w: 3 }),
      message: 'weight_map["w"] is not a file name string',
    },
    {
      case: 'metadata that is not an object',
      text: index({ w: 'a.safetensors' }, 'x'),
      message: '"metadata" is not an object',
    },
    {
      case: 'a negative total_size',
      text: index({ w: 'a.safetensors' }, { total_size: -1 }),
      message: 'metadata.total_size is -1, not a byte count',
    },
    {
      case: 'a fractional total_size',
      text: index({ w: 'a.safetensors' }, { total_size: 1.5 }),
      message: 'metadata.total_size is 1.5, not a byte count',
    },
    {
      case: 'a ../ shard name (path traversal)',
      text: index({ w: '../../etc/passwd.safetensors' }),
      message:
        'shard file name "../../etc/passwd.safetensors" contains a path separator; shard names must be plain file names',
    },
    {
      case: 'a bare .. shard name',
      text: index({ w: '..' }),
      message: `shard file name ".." contains '..'; shard names must be plain file names`,
    },
    {
      case: 'a shard name with ..',
      text: index({ w: '..model.safetensors' }),
      message: `shard file name "..model.safetensors" contains '..'; shard names must be plain file names`,
    },
    {
      case: 'an absolute shard path',
      text: index({ w: '/tmp/x.safetensors' }),
      message:
        'shard file name "/tmp/x.safetensors" contains a path separator; shard names must be plain file names',
    },
    {
      case: 'a Windows path',
      text: index({ w: 'sub\\x.safetensors' }),
      message:
        'shard file name "sub\\\\x.safetensors" contains a path separator; shard names must be plain file names',
    },
    {
      case: 'a drive or scheme',
      text: index({ w: 'C:x.safetensors' }),
      message: `shard file name "C:x.safetensors" contains ':'; shard names must be plain file names`,
    },
    {
      case: 'a control character',
      text: index({ w: 'a\u0000.safetensors' }),
      message:
        'shard file name "a\\u0000.safetensors" contains a control character; shard names must be plain file names',
    },
    {
      case: 'an empty shard name',
      text: index({ w: '' }),
      message: 'shard file name "" is empty; shard names must be plain file names',
    },
    {
      case: 'a shard that is not safetensors',
      text: index({ w: 'pytorch_model-00001-of-00002.bin' }),
      message:
        'shard file name "pytorch_model-00001-of-00002.bin" does not end in .safetensors; shard names must be plain file names',
    },
  ];

  it.each(hostile)('rejects $case', ({ text, message }) => {
    const error = userErrorOf(() => parseSafetensorsIndex(text, FILE));
    expect(error.code).toBe('bad-file');
    expect(error.where).toBe(FILE);
    expect(error.message).toBe(`${FILE}: ${message}`);
    expect(error.hint).toBe(
      'check that the index file is complete and belongs to a safetensors checkpoint (re-download it if needed)',
    );
  });

  it('rejects text that is not JSON, saying so', () => {
    expect(userErrorOf(() => parseSafetensorsIndex('{"weight_map": {', FILE)).message).toMatch(
      /^model\.safetensors\.index\.json: not valid JSON \(.+\)$/,
    );
  });

  it(`rejects more than ${MAX_SAFETENSORS_SHARD_FILES} distinct shards`, () => {
    const map: Record<string, string> = {};
    for (let i = 0; i <= MAX_SAFETENSORS_SHARD_FILES; i += 1) map[`t${i}`] = `s${i}.safetensors`;
    expect(userErrorOf(() => parseSafetensorsIndex(index(map), FILE)).message).toBe(
      `${FILE}: names more than 10000 shard files`,
    );
  });
});
