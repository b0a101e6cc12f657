import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asyncUserErrorOf, userErrorOf } from '../core/test-helpers/user-error.js';
import { readUserFile, refuseFolder, type UserFileKind, userFileError, writeUserFile } from './user-file.js';

const KIND: UserFileKind = {
  role: 'trainer-config',
  advice: 'trainer-config',
  example: 'config.yaml',
  extensions: ['.yaml', '.yml'],
};
const CHECK_PATH =
  'check the path: a trainer config in YAML or JSON (LLaMA-Factory, Axolotl, torchtune, TrainingArguments/TRL, accelerate or DeepSpeed)';
const NAMED = { role: 'trainer-config', advice: 'trainer-config', use: 'read' };

function folder(): string {
  return mkdtempSync(join(tmpdir(), 'headroom-user-file-'));
}

describe('readUserFile', () => {
  it('reads a file', async () => {
    const path = join(folder(), 'a.yaml');
    writeFileSync(path, 'lora_r: 8\n');
    expect(await readUserFile(path, KIND)).toBe('lora_r: 8\n');
  });

  it('a folder given for a file: names the files of that kind inside it, sorted, three at most', async () => {
    const dir = folder();
    for (const name of ['d.yml', 'b.yaml', 'a.yaml', 'notes.txt', 'c.YML'])
      writeFileSync(join(dir, name), '');
    mkdirSync(join(dir, 'sub.yaml'));
    const error = await asyncUserErrorOf(() => readUserFile(dir, KIND));
    expect([error.code, error.where, error.message, error.hint]).toEqual([
      'bad-file',
      dir,
      `${dir} is a folder; give the trainer config inside it: ${join(dir, 'a.yaml')}, ${join(dir, 'b.yaml')}, ${join(dir, 'c.YML')}, … (4 in all)`,
      CHECK_PATH,
    ]);
    expect(error.reason).toBe('path-is-folder');
    expect(error.params).toEqual({
      path: dir,
      ...NAMED,
      problem: 'is-folder',
      example: join(dir, 'config.yaml'),
      found: [join(dir, 'a.yaml'), join(dir, 'b.yaml'), join(dir, 'c.YML')],
      total: 4,
    });
  });

  it('a folder with none of them: an example name inside it', async () => {
    const dir = folder();
    expect((await asyncUserErrorOf(() => readUserFile(dir, KIND))).message).toBe(
      `${dir} is a folder; give the trainer config inside it, e.g. ${join(dir, 'config.yaml')}`,
    );
  });

  it('a missing file, and a path through a file', async () => {
    const dir = folder();
    expect((await asyncUserErrorOf(() => readUserFile(join(dir, 'x.yaml'), KIND))).message).toBe(
      `trainer config ${join(dir, 'x.yaml')} does not exist`,
    );
    writeFileSync(join(dir, 'file'), '');
    const through = join(dir, 'file', 'x.yaml');
    const error = await asyncUserErrorOf(() => readUserFile(through, KIND));
    expect([error.message, error.params?.problem]).toEqual([
      `trainer config ${through} does not exist: ${join(dir, 'file')} is a file, not a folder`,
      'not-a-folder-on-the-way',
    ]);
  });

  it('symbolic links in a loop', async () => {
    const dir = folder();
    symlinkSync(join(dir, 'b'), join(dir, 'a'));
    symlinkSync(join(dir, 'a'), join(dir, 'b'));
    const error = await asyncUserErrorOf(() => readUserFile(join(dir, 'a'), KIND));
    expect([error.message, error.hint]).toEqual([
      `cannot read trainer config ${join(dir, 'a')}: its symbolic links point at each other in a loop`,
      `see where the link goes: ls -l ${join(dir, 'a')}`,
    ]);
  });

  it('a named pipe is refused without opening it (a read would wait for a writer forever)', async () => {
    const fifo = join(folder(), 'train.yaml');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const error = await asyncUserErrorOf(() => readUserFile(fifo, KIND));
    expect([error.message, error.params?.problem]).toEqual([
      `${fifo} is a named pipe, not a file: reading it could wait forever`,
      'special-file',
    ]);
  });

  it('a file larger than maxBytes is refused unread', async () => {
    const path = join(folder(), 'weights.yaml');
    writeFileSync(path, Buffer.alloc(2048));
    const error = await asyncUserErrorOf(() => readUserFile(path, KIND, { maxBytes: 1024 }));
    expect(error.message).toBe(`${path} is 2048 bytes: larger than any trainer config (limit 1024)`);
    expect(error.params).toEqual({ path, ...NAMED, problem: 'too-large', bytes: 2048, maxBytes: 1024 });
  });
});

describe('userFileError', () => {
  // Permission errors cannot be caused for root (the tests may run as root): the mapping is checked on
  // the error node raises, as node raises it (code and syscall).
  it('EACCES and EPERM: permission denied, with how to look', () => {
    for (const code of ['EACCES', 'EPERM']) {
      const error = userFileError(
        '/etc/x.yaml',
        Object.assign(new Error(code), { code, syscall: 'open' }),
        KIND,
      );
      expect(error).toMatchObject({
        code: 'bad-file',
        message: 'cannot read trainer config /etc/x.yaml: permission denied',
        hint: 'check who may read it: ls -l /etc/x.yaml',
        params: { path: '/etc/x.yaml', problem: 'permission', use: 'read', readOnly: false },
      });
    }
  });

  it('another fs error keeps its code; an error that is not an fs one goes on as it is', () => {
    expect(userFileError('/x', Object.assign(new Error('EIO'), { code: 'EIO' }), KIND)).toMatchObject({
      message: 'cannot read trainer config /x: EIO',
      params: { errno: 'EIO' },
    });
    const bug = new TypeError('not an fs error');
    expect(userFileError('/x', bug, KIND)).toBe(bug);
  });
});

describe('writeUserFile and refuseFolder', () => {
  const REPORT: UserFileKind = { role: 'html-report', advice: 'html-report', example: 'run-1.html' };

  it('writes a file', async () => {
    const path = join(folder(), 'r.html');
    await writeUserFile(path, '<p>', REPORT);
    expect(readFileSync(path, 'utf8')).toBe('<p>');
  });

  it('a folder: a file name inside it to give instead', async () => {
    const dir = folder();
    expect((await asyncUserErrorOf(() => writeUserFile(dir, '<p>', REPORT))).message).toBe(
      `${dir} is a folder; name a file inside it for the HTML report, e.g. ${join(dir, 'run-1.html')}`,
    );
    expect(userErrorOf(() => refuseFolder(dir, REPORT)).params).toMatchObject({
      path: dir,
      problem: 'is-folder',
      use: 'write',
    });
  });

  it('a missing folder: says which, and how to make it', async () => {
    const path = join(folder(), 'no', 'r.html');
    const error = await asyncUserErrorOf(() => writeUserFile(path, '<p>', REPORT));
    expect([error.message, error.hint]).toEqual([
      `cannot write HTML report ${path}: the folder ${join(path, '..')} does not exist`,
      `create it first (mkdir -p ${join(path, '..')}), or write elsewhere`,
    ]);
  });

  it('refuseFolder lets a path that does not exist yet, or a file, through', () => {
    const dir = folder();
    expect(() => refuseFolder(join(dir, 'later.jsonl'), REPORT)).not.toThrow();
    writeFileSync(join(dir, 'f'), '');
    expect(() => refuseFolder(join(dir, 'f'), REPORT)).not.toThrow();
  });
});
