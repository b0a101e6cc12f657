/**
 * The words of the errors of a path the user named (src/io/user-file.ts: missing, a folder, too large,
 * unreadable), of a memory snapshot file, and of the ledger and the runs in it, in English and Chinese:
 * each reason's message and what to do. src/words/file-errors.ts gathers them with the other families
 * of file errors; the English is the error's `message` and `hint` as it is raised.
 */
import type { FileAdvice, FileRole, LedgerErrorParams, PathErrorParams } from '../core/file-errors.js';
import { defineDomain } from './catalog.js';

const ROLE_EN: Readonly<Record<FileRole, string>> = {
  'trainer-config': 'trainer config',
  'deepspeed-config': 'DeepSpeed config',
  'scenario-file': 'scenario file',
  'env-file': 'environment file',
  'log-file': 'log file',
  'probe-log': 'probe log',
  'html-report': 'HTML report',
};
const ROLE_ZH: Readonly<Record<FileRole, string>> = {
  'trainer-config': '训练配置',
  'deepspeed-config': 'DeepSpeed 配置',
  'scenario-file': '场景文件',
  'env-file': '环境文件',
  'log-file': '日志文件',
  'probe-log': '探针日志',
  'html-report': 'HTML 报告',
};

const ADVICE_EN: Readonly<Record<FileAdvice, string>> = {
  'trainer-config':
    'check the path: a trainer config in YAML or JSON (LLaMA-Factory, Axolotl, torchtune, TrainingArguments/TRL, accelerate or DeepSpeed)',
  'scenario-file': 'check the path passed to --scenario: a JSON object, or JSON Lines of them',
  'env-file': 'capture one with: headroom env capture -o env.json',
  'log-file': 'give the path of a log file, or - to read a pasted traceback from standard input',
  'run-log': 'give --log a file name (or leave it out: the run gets its own in HEADROOM_HOME)',
  'watch-log':
    'give the HEADROOM_LOG file the training was started with, e.g. headroom watch --log /tmp/probe.jsonl',
  'html-report': '-o takes the HTML file to write',
};
const ADVICE_ZH: Readonly<Record<FileAdvice, string>> = {
  'trainer-config':
    '检查路径：应为 YAML 或 JSON 格式的训练配置（LLaMA-Factory、Axolotl、torchtune、TrainingArguments/TRL、accelerate 或 DeepSpeed）',
  'scenario-file': '检查传给 --scenario 的路径：应为一个 JSON 对象，或由它们组成的 JSON Lines',
  'env-file': '用以下命令采集一份：headroom env capture -o env.json',
  'log-file': '给出日志文件的路径，或用 - 从标准输入读取粘贴的报错信息',
  'run-log': '给 --log 一个文件名（或不写：运行会在 HEADROOM_HOME 中得到自己的日志）',
  'watch-log': '给出训练启动时使用的 HEADROOM_LOG 文件，例如 headroom watch --log /tmp/probe.jsonl',
  'html-report': '-o 接收要写入的 HTML 文件',
};

const SPECIAL_EN = { fifo: 'a named pipe', socket: 'a socket', device: 'a device' } as const;
const SPECIAL_ZH = { fifo: '命名管道', socket: '套接字', device: '设备' } as const;

const onTheWay = (file: string) => file || 'a part of the path';
const onTheWayZh = (file: string) => file || '路径中的某一段';

/** The files a folder given for a file holds, as the English lists them; `total` counts all of them. */
const foundEn = (p: PathErrorParams['path-is-folder']) =>
  `${p.found.join(', ')}${p.total > p.found.length ? `, … (${p.total} in all)` : ''}`;
const foundZh = (p: PathErrorParams['path-is-folder']) =>
  `${p.found.join('、')}${p.total > p.found.length ? `……（共 ${p.total} 个）` : ''}`;

/** A file's name before Chinese words: a path keeps a space from them, 标准输入 (standard input) none. */
const STDIN_ZH = (file: string) => (file === 'standard input' ? '标准输入' : `${file} `);

const SNAPSHOT_HINT_EN = 'give the .pickle file torch.cuda.memory._dump_snapshot("snapshot.pickle") wrote';
const SNAPSHOT_HINT_ZH = '给出 torch.cuda.memory._dump_snapshot("snapshot.pickle") 写出的 .pickle 文件';

const named = {
  path: '/work/config.yaml',
  role: 'trainer-config',
  advice: 'trainer-config',
  use: 'read',
} as const;

export const PATH_ERRORS = defineDomain<PathErrorParams>({
  name: 'path-errors',
  words: {
    en: {
      'path-is-folder': (p) =>
        p.use === 'write'
          ? `${p.path} is a folder; name a file inside it for the ${ROLE_EN[p.role]}, e.g. ${p.example}`
          : p.found.length > 0
            ? `${p.path} is a folder; give the ${ROLE_EN[p.role]} inside it: ${foundEn(p)}`
            : `${p.path} is a folder; give the ${ROLE_EN[p.role]} inside it, e.g. ${p.example}`,
      'path-missing': (p) => `${ROLE_EN[p.role]} ${p.path} does not exist`,
      'path-folder-missing': (p) =>
        `cannot write ${ROLE_EN[p.role]} ${p.path}: the folder ${p.folder} does not exist`,
      'path-through-file': (p) =>
        p.use === 'write'
          ? `cannot write ${ROLE_EN[p.role]} ${p.path}: ${onTheWay(p.file)} is a file, not a folder`
          : `${ROLE_EN[p.role]} ${p.path} does not exist: ${onTheWay(p.file)} is a file, not a folder`,
      'path-permission': (p) =>
        `cannot ${p.use} ${ROLE_EN[p.role]} ${p.path}: ${p.readOnly ? 'the file system is read-only' : 'permission denied'}`,
      'path-link-loop': (p) =>
        `cannot ${p.use} ${ROLE_EN[p.role]} ${p.path}: its symbolic links point at each other in a loop`,
      'path-special-file': (p) =>
        `${p.path} is ${SPECIAL_EN[p.special]}, not a file: reading it could wait forever`,
      'path-too-large': (p) =>
        `${p.path} is ${p.bytes} bytes: larger than any ${ROLE_EN[p.role]} (limit ${p.maxBytes})`,
      'path-unreadable': (p) => `cannot ${p.use} ${ROLE_EN[p.role]} ${p.path}: ${p.errno}`,
      'log-empty': (p) => `${p.file} is empty`,
      'snapshot-is-folder': (p) => `${p.path} is a folder, not a snapshot file`,
      'snapshot-missing': (p) => `no file ${p.path}`,
      'snapshot-unreadable': (p) => `cannot read ${p.path}: ${p.errno}`,
      'snapshot-empty': (p) => `${p.path} is empty`,
      'snapshot-too-large': (p, f) =>
        `${p.path} is ${f.bytes(p.bytes)}, over the ${f.bytes(p.maxBytes)} a snapshot is read up to`,
    },
    zh: {
      'path-is-folder': (p) =>
        p.use === 'write'
          ? `${p.path} 是文件夹；请为${ROLE_ZH[p.role]}指定其中的一个文件，例如 ${p.example}`
          : p.found.length > 0
            ? `${p.path} 是文件夹；请给出其中的${ROLE_ZH[p.role]}：${foundZh(p)}`
            : `${p.path} 是文件夹；请给出其中的${ROLE_ZH[p.role]}，例如 ${p.example}`,
      'path-missing': (p) => `${ROLE_ZH[p.role]} ${p.path} 不存在`,
      'path-folder-missing': (p) => `无法写入${ROLE_ZH[p.role]} ${p.path}：文件夹 ${p.folder} 不存在`,
      'path-through-file': (p) =>
        p.use === 'write'
          ? `无法写入${ROLE_ZH[p.role]} ${p.path}：${onTheWayZh(p.file)} 是文件，不是文件夹`
          : `${ROLE_ZH[p.role]} ${p.path} 不存在：${onTheWayZh(p.file)} 是文件，不是文件夹`,
      'path-permission': (p) =>
        `无法${p.use === 'write' ? '写入' : '读取'}${ROLE_ZH[p.role]} ${p.path}：${p.readOnly ? '文件系统是只读的' : '权限不足'}`,
      'path-link-loop': (p) =>
        `无法${p.use === 'write' ? '写入' : '读取'}${ROLE_ZH[p.role]} ${p.path}：它的符号链接相互指向，形成了循环`,
      'path-special-file': (p) => `${p.path} 是${SPECIAL_ZH[p.special]}，不是文件：读取它可能会一直等待下去`,
      'path-too-large': (p) =>
        `${p.path} 有 ${p.bytes} 字节，比任何${ROLE_ZH[p.role]}都大（上限 ${p.maxBytes}）`,
      'path-unreadable': (p) =>
        `无法${p.use === 'write' ? '写入' : '读取'}${ROLE_ZH[p.role]} ${p.path}：${p.errno}`,
      'log-empty': (p) => `${STDIN_ZH(p.file)}是空的`,
      'snapshot-is-folder': (p) => `${p.path} 是文件夹，不是快照文件`,
      'snapshot-missing': (p) => `文件 ${p.path} 不存在`,
      'snapshot-unreadable': (p) => `无法读取 ${p.path}：${p.errno}`,
      'snapshot-empty': (p) => `${p.path} 是空的`,
      'snapshot-too-large': (p, f) =>
        `${p.path} 有 ${f.bytes(p.bytes)}，超过了读取快照的上限 ${f.bytes(p.maxBytes)}`,
    },
  },
  examples: {
    'path-is-folder': {
      ...named,
      path: '/work/run',
      problem: 'is-folder',
      example: '/work/run/config.yaml',
      found: ['/work/run/a.yaml', '/work/run/b.yaml', '/work/run/c.yml'],
      total: 5,
    },
    'path-missing': { ...named, problem: 'missing' },
    'path-folder-missing': {
      ...named,
      role: 'html-report',
      advice: 'html-report',
      use: 'write',
      path: '/work/out/run-1.html',
      problem: 'missing',
      folder: '/work/out',
    },
    'path-through-file': { ...named, problem: 'not-a-folder-on-the-way', file: '/work' },
    'path-permission': { ...named, problem: 'permission', readOnly: false, example: '' },
    'path-link-loop': { ...named, problem: 'link-loop' },
    'path-special-file': { ...named, problem: 'special-file', special: 'fifo' },
    'path-too-large': { ...named, problem: 'too-large', bytes: 2_000_000, maxBytes: 262_144 },
    'path-unreadable': { ...named, problem: 'unreadable', errno: 'EIO' },
    'log-empty': { file: 'standard input' },
    'snapshot-is-folder': { path: 'snapshots' },
    'snapshot-missing': { path: 'snapshot.pickle' },
    'snapshot-unreadable': { path: 'snapshot.pickle', errno: 'EACCES' },
    'snapshot-empty': { path: 'snapshot.pickle' },
    'snapshot-too-large': { path: 'snapshot.pickle', bytes: 3 * 2 ** 30, maxBytes: 2 ** 31 - 1 },
  },
});

export const PATH_ERROR_HINTS = defineDomain<PathErrorParams>({
  name: 'path-error-hints',
  words: {
    en: {
      'path-is-folder': (p) => ADVICE_EN[p.advice],
      'path-missing': (p) => ADVICE_EN[p.advice],
      'path-folder-missing': (p) => `create it first (mkdir -p ${p.folder}), or write elsewhere`,
      'path-through-file': (p) => (p.use === 'write' ? 'check the path' : ADVICE_EN[p.advice]),
      'path-permission': (p) =>
        p.use === 'write'
          ? `write it somewhere you may, e.g. ${p.example}`
          : `check who may read it: ls -l ${p.path}`,
      'path-link-loop': (p) => `see where the link goes: ls -l ${p.path}`,
      'path-special-file': (p) => `save the ${ROLE_EN[p.role]} to a file and give that`,
      'path-too-large': (p) => `give the ${ROLE_EN[p.role]} itself, not a data or weights file`,
      'path-unreadable': (p) => (p.use === 'write' ? 'check the path' : ADVICE_EN[p.advice]),
      'log-empty': () =>
        'give the log of the failed run, or paste the traceback: headroom diagnose - < error.txt',
      'snapshot-is-folder': () => SNAPSHOT_HINT_EN,
      'snapshot-missing': () => SNAPSHOT_HINT_EN,
      'snapshot-unreadable': () => SNAPSHOT_HINT_EN,
      'snapshot-empty': () => SNAPSHOT_HINT_EN,
      'snapshot-too-large': () =>
        'record fewer events: torch.cuda.memory._record_memory_history(max_entries=100000)',
    },
    zh: {
      'path-is-folder': (p) => ADVICE_ZH[p.advice],
      'path-missing': (p) => ADVICE_ZH[p.advice],
      'path-folder-missing': (p) => `先创建它（mkdir -p ${p.folder}），或写到别处`,
      'path-through-file': (p) => (p.use === 'write' ? '检查路径' : ADVICE_ZH[p.advice]),
      'path-permission': (p) =>
        p.use === 'write' ? `写到你有权限的地方，例如 ${p.example}` : `查看谁可以读取它：ls -l ${p.path}`,
      'path-link-loop': (p) => `查看链接指向哪里：ls -l ${p.path}`,
      'path-special-file': (p) => `把${ROLE_ZH[p.role]}保存成文件，再给出该文件`,
      'path-too-large': (p) => `给出${ROLE_ZH[p.role]}本身，而不是数据或权重文件`,
      'path-unreadable': (p) => (p.use === 'write' ? '检查路径' : ADVICE_ZH[p.advice]),
      'log-empty': () => '给出失败运行的日志，或粘贴报错信息：headroom diagnose - < error.txt',
      'snapshot-is-folder': () => SNAPSHOT_HINT_ZH,
      'snapshot-missing': () => SNAPSHOT_HINT_ZH,
      'snapshot-unreadable': () => SNAPSHOT_HINT_ZH,
      'snapshot-empty': () => SNAPSHOT_HINT_ZH,
      'snapshot-too-large': () =>
        '少记录一些事件：torch.cuda.memory._record_memory_history(max_entries=100000)',
    },
  },
  examples: PATH_ERRORS.examples,
});

const LEDGER = '/home/me/.headroom/ledger.db';

export const LEDGER_ERRORS = defineDomain<LedgerErrorParams>({
  name: 'ledger-errors',
  words: {
    en: {
      'ledger-not-sqlite': (p) =>
        `the ledger ${p.path} is not a SQLite database (${p.detail}); no run was read or written`,
      'ledger-cannot-open': (p) => `cannot open the ledger ${p.path} for writing (${p.detail})`,
      'ledger-busy': (p) =>
        `the ledger ${p.path} is locked by another headroom process (waited ${p.seconds} s)`,
      'ledger-full': (p) => `cannot write the ledger ${p.path}: the disk is full (${p.detail})`,
      'ledger-too-large-to-copy': (p) =>
        `cannot write in the folder of the ledger ${p.path}, and at ${p.mib} MiB it is too large to read into memory instead`,
      'ledger-schema-read-only': (p) =>
        `the ledger ${p.path} has schema ${p.version} and this headroom reads ${p.reads}; its folder is read-only, so it cannot be brought up to date`,
      'ledger-foreign-db': (p) =>
        `${p.path} is a SQLite database but not a headroom ledger (it has ${p.tables} tables of its own); it was left untouched`,
      'ledger-newer': (p) =>
        p.reader === 'exposition'
          ? `${p.path} is a ledger of schema ${p.version}; the exposition reads schema ${p.reads}`
          : `the ledger ${p.path} was written by a newer headroom (schema ${p.version}; this one reads ${p.reads})`,
      'no-such-run': (p) => `no run "${p.ref}" in ${p.ledger}`,
    },
    zh: {
      'ledger-not-sqlite': (p) => `账本 ${p.path} 不是 SQLite 数据库（${p.detail}）；没有读取或写入任何运行`,
      'ledger-cannot-open': (p) => `无法以写入方式打开账本 ${p.path}（${p.detail}）`,
      'ledger-busy': (p) => `账本 ${p.path} 被另一个 headroom 进程锁住（已等待 ${p.seconds} 秒）`,
      'ledger-full': (p) => `无法写入账本 ${p.path}：磁盘已满（${p.detail}）`,
      'ledger-too-large-to-copy': (p) =>
        `无法在账本 ${p.path} 所在的文件夹中写入，而它有 ${p.mib} MiB，太大，无法改为读入内存`,
      'ledger-schema-read-only': (p) =>
        `账本 ${p.path} 的结构版本是 ${p.version}，而这个 headroom 读取版本 ${p.reads}；它所在的文件夹是只读的，因此无法升级`,
      'ledger-foreign-db': (p) =>
        `${p.path} 是 SQLite 数据库，但不是 headroom 的账本（它有 ${p.tables} 张自己的表）；未做任何改动`,
      'ledger-newer': (p) =>
        p.reader === 'exposition'
          ? `${p.path} 是结构版本 ${p.version} 的账本；指标导出只读取结构版本 ${p.reads}`
          : `账本 ${p.path} 由更新版本的 headroom 写入（结构版本 ${p.version}；这个版本读取 ${p.reads}）`,
      'no-such-run': (p) => `${p.ledger} 中没有运行 "${p.ref}"`,
    },
  },
  examples: {
    'ledger-not-sqlite': { path: LEDGER, detail: 'file is not a database' },
    'ledger-cannot-open': { path: LEDGER, detail: 'attempt to write a readonly database' },
    'ledger-busy': { path: LEDGER, seconds: 5 },
    'ledger-full': { path: LEDGER, detail: 'database or disk is full' },
    'ledger-too-large-to-copy': { path: LEDGER, mib: 3072 },
    'ledger-schema-read-only': { path: LEDGER, version: 3, reads: 5 },
    'ledger-foreign-db': { path: LEDGER, tables: 4 },
    'ledger-newer': { path: LEDGER, version: 9, reads: 5 },
    'no-such-run': { ref: 'baseline', ledger: LEDGER, runs: 12, first: 1, last: 12 },
  },
});

export const LEDGER_ERROR_HINTS = defineDomain<LedgerErrorParams>({
  name: 'ledger-error-hints',
  words: {
    en: {
      'ledger-not-sqlite': (p) =>
        `move it aside (mv ${p.path} ${p.path}.bad) so headroom starts a new ledger, or set HEADROOM_HOME to another folder`,
      'ledger-cannot-open': () =>
        'set HEADROOM_HOME to a folder you can write (it must be a folder, not a file)',
      'ledger-busy': () =>
        'wait for the other headroom command (a run, watch or serve writing it) to finish, then try again',
      'ledger-full': () => 'free some space on its disk, or set HEADROOM_HOME to a folder on another disk',
      'ledger-too-large-to-copy': () =>
        'copy the folder somewhere you can write and set HEADROOM_HOME to the copy',
      'ledger-schema-read-only': () =>
        'run headroom once where the folder is writable, or copy it somewhere writable and set HEADROOM_HOME to the copy',
      'ledger-foreign-db': (p) =>
        `move it aside (mv ${p.path} ${p.path}.other), or set HEADROOM_HOME to another folder`,
      'ledger-newer': () =>
        'upgrade headroom (npm install -g headroom@latest), or set HEADROOM_HOME to another folder',
      'no-such-run': (p) =>
        p.runs === 0
          ? 'record one with headroom run -- python train.py'
          : `headroom runs lists the ${p.runs} recorded (ids ${p.first}–${p.last})`,
    },
    zh: {
      'ledger-not-sqlite': (p) =>
        `把它移开（mv ${p.path} ${p.path}.bad），headroom 会新建一个账本；或把 HEADROOM_HOME 设到另一个文件夹`,
      'ledger-cannot-open': () => '把 HEADROOM_HOME 设到你有写权限的文件夹（必须是文件夹，不能是文件）',
      'ledger-busy': () => '等另一个正在写它的 headroom 命令（run、watch 或 serve）结束，再试一次',
      'ledger-full': () => '在它所在的磁盘上腾出空间，或把 HEADROOM_HOME 设到另一块磁盘上的文件夹',
      'ledger-too-large-to-copy': () => '把该文件夹复制到你有写权限的地方，并把 HEADROOM_HOME 设为这个副本',
      'ledger-schema-read-only': () =>
        '在文件夹可写的地方运行一次 headroom，或把它复制到可写的地方并把 HEADROOM_HOME 设为这个副本',
      'ledger-foreign-db': (p) =>
        `把它移开（mv ${p.path} ${p.path}.other），或把 HEADROOM_HOME 设到另一个文件夹`,
      'ledger-newer': () =>
        '升级 headroom（npm install -g headroom@latest），或把 HEADROOM_HOME 设到另一个文件夹',
      'no-such-run': (p) =>
        p.runs === 0
          ? '用 headroom run -- python train.py 记录一次运行'
          : `headroom runs 列出已记录的 ${p.runs} 次运行（id ${p.first}–${p.last}）`,
    },
  },
  examples: LEDGER_ERRORS.examples,
});
