/**
 * Model folders as they come (issue 22): a Hugging Face cache snapshot, whose files are symbolic links
 * into ../../blobs/, is read like any folder; a shard that is a named pipe, a symbolic link that loops
 * or a folder is a user error naming it, and a pipe is never opened (it would block `estimate`).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asyncUserErrorOf } from '../../src/core/test-helpers/user-error.js';
import { readConfigFile, readModelFolder } from '../../src/io/model-files.js';
import { buildSafetensors } from '../../src/io/test-helpers/safetensors-fixture.js';

const CONFIG = {
  model_type: 'llama',
  hidden_size: 16,
  intermediate_size: 32,
  num_hidden_layers: 1,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: 64,
};
const TENSORS = [
  { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [64, 16] },
  { name: 'model.norm.weight', dtype: 'BF16', shape: [16] },
];

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'headroom-folders-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A folder with config.json and, under `shard`, whatever `place` puts there. */
async function folderWith(place: (path: string) => Promise<void>): Promise<string> {
  const model = join(dir, 'model');
  await mkdir(model);
  await writeFile(join(model, 'config.json'), JSON.stringify(CONFIG));
  await place(join(model, 'model.safetensors'));
  return model;
}

describe('model folders', () => {
  it('reads a Hugging Face cache snapshot: every file a link into ../../blobs/', async () => {
    const repo = join(dir, 'models--org--tiny');
    const snapshot = join(repo, 'snapshots', 'abc123');
    await mkdir(join(repo, 'blobs'), { recursive: true });
    await mkdir(snapshot, { recursive: true });
    await writeFile(join(repo, 'blobs', 'cfg'), JSON.stringify(CONFIG));
    await writeFile(join(repo, 'blobs', 'w'), buildSafetensors(TENSORS));
    await symlink('../../blobs/cfg', join(snapshot, 'config.json'));
    await symlink('../../blobs/w', join(snapshot, 'model.safetensors'));
    const files = await readModelFolder(snapshot);
    expect(files.parameterCount).toBe(64 * 16 + 16);
    expect(files.notes[0]).toBe('parameters counted from the headers of model.safetensors');
  });

  it('refuses a shard that is a named pipe without opening it', async () => {
    const model = await folderWith(async (path) => {
      execFileSync('mkfifo', [path]);
    });
    const error = await asyncUserErrorOf(() => readModelFolder(model));
    expect(error.message).toBe(`${join(model, 'model.safetensors')} is a named pipe, not a safetensors file`);
    expect(error.params).toMatchObject({ problem: 'special-file' });
  });

  it('refuses a shard that is a symbolic link looping on itself', async () => {
    const model = await folderWith(async (path) => {
      await symlink('model.safetensors', path);
    });
    const error = await asyncUserErrorOf(() => readModelFolder(model));
    expect(error.message).toBe(
      `${join(model, 'model.safetensors')} is a symbolic link that loops (it never reaches a file)`,
    );
  });

  it('refuses a folder where a shard listed in the index should be', async () => {
    const model = await folderWith(async (path) => {
      await mkdir(path);
    });
    await writeFile(
      join(model, 'model.safetensors.index.json'),
      JSON.stringify({ metadata: {}, weight_map: { 'model.norm.weight': 'model.safetensors' } }),
    );
    const error = await asyncUserErrorOf(() => readModelFolder(model));
    expect(error.message).toBe(`${join(model, 'model.safetensors')} is a folder, not a safetensors file`);
  });

  it('refuses a config.json that is a named pipe or a loop', async () => {
    const fifo = join(dir, 'config.json');
    execFileSync('mkfifo', [fifo]);
    expect((await asyncUserErrorOf(() => readConfigFile(fifo))).message).toBe(
      `${fifo} is a named pipe, not a config.json file`,
    );
    const loop = join(dir, 'loop.json');
    await symlink('loop.json', loop);
    expect((await asyncUserErrorOf(() => readConfigFile(loop))).message).toBe(
      `${loop} is a symbolic link that loops (it never reaches a file)`,
    );
  });
});
