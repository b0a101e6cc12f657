/**
 * The words of the errors of a PyTorch memory snapshot that cannot be read (src/core/snapshot/pickle.ts,
 * snapshot.ts), in English and Chinese: each reason's message and what to do. Python's type names
 * (dict, list, int, str) and pickle's opcode names stay as they are; `pickle-corrupt`'s `detail` is the
 * reader's own words about a damaged byte stream, as it wrote them.
 */
import type { SnapshotErrorParams } from '../core/file-errors.js';
import { defineDomain } from './catalog.js';

const HINT =
  'write the snapshot with torch.cuda.memory._dump_snapshot("snapshot.pickle") (or pickle.dump of torch.cuda.memory._snapshot())';
const HINT_ZH =
  '用 torch.cuda.memory._dump_snapshot("snapshot.pickle")（或对 torch.cuda.memory._snapshot() 调用 pickle.dump）写出快照';

type Field = SnapshotErrorParams['snapshot-field'];
type Opcode = SnapshotErrorParams['pickle-opcode'];

const article = (type: string) => (type === 'int' ? 'an int' : `a ${type}`);

function fieldEn(p: Field): string {
  const field = p.field === '' ? 'the top' : p.field;
  const what = {
    missing: 'is missing',
    'wrong-type': `is a ${p.found}, not ${article(p.wanted)}`,
    'too-large': `is ${p.value}, past the 2^53 a byte count or address can be`,
    repeated: 'repeats an earlier trace event by reference',
    'no-segments': 'has no "segments"',
  }[p.problem];
  return `${field} ${what}`;
}
function fieldZh(p: Field): string {
  const field = p.field === '' ? '顶层' : `${p.field} `;
  const what = {
    missing: '缺失',
    'wrong-type': `是 ${p.found}，而不是 ${p.wanted}`,
    'too-large': `为 ${p.value}，超过了字节数或地址所能取的 2^53`,
    repeated: '以引用方式重复了之前的一条跟踪事件',
    'no-segments': '没有 "segments"',
  }[p.problem];
  return `${field}${what}`;
}

function opcodeEn(p: Opcode): string {
  if (p.kind === 'code')
    return `opcode ${p.opcode} (${p.hex}) would import or call a Python object: this is not a plain memory snapshot, and Headroom never runs code from a pickle`;
  if (p.kind === 'buffers')
    return `opcode ${p.opcode} (${p.hex}) needs buffers from outside the file (PEP 574): not a plain memory snapshot`;
  return `opcode ${p.opcode} (${p.hex}) is protocol 0/1 text; a memory snapshot is written with protocol 2 or later`;
}
function opcodeZh(p: Opcode): string {
  if (p.kind === 'code')
    return `操作码 ${p.opcode}（${p.hex}）会导入或调用 Python 对象：这不是普通的内存快照，Headroom 从不执行 pickle 中的代码`;
  if (p.kind === 'buffers')
    return `操作码 ${p.opcode}（${p.hex}）需要文件之外的缓冲区（PEP 574）：这不是普通的内存快照`;
  return `操作码 ${p.opcode}（${p.hex}）属于协议 0/1 的文本格式；内存快照是用协议 2 或更高版本写出的`;
}

export const SNAPSHOT_ERRORS = defineDomain<SnapshotErrorParams>({
  name: 'snapshot-errors',
  words: {
    en: {
      'pickle-empty': (p) => `${p.file}: byte 0: the file is empty`,
      'pickle-gzip': (p) => `${p.file}: byte 0: this is a gzip file, not a pickle`,
      'pickle-not-pickle': (p) =>
        `${p.file}: byte 0: not a pickle of protocol 2 or later (it begins with bytes ${p.start}, not PROTO 0x80)`,
      'pickle-protocol': (p) =>
        `${p.file}: byte ${p.byte}: pickle protocol ${p.protocol}; this reader takes protocols 2 to 5`,
      'pickle-opcode': (p) => `${p.file}: byte ${p.byte}: ${opcodeEn(p)}`,
      'pickle-corrupt': (p) => `${p.file}: byte ${p.byte}: ${p.detail}`,
      'snapshot-field': (p) => `${p.file}: ${fieldEn(p)}: not a PyTorch memory snapshot`,
    },
    zh: {
      'pickle-empty': (p) => `${p.file}：文件是空的`,
      'pickle-gzip': (p) => `${p.file}：这是 gzip 压缩文件，不是 pickle`,
      'pickle-not-pickle': (p) =>
        `${p.file}：不是协议 2 或更高版本的 pickle（开头字节为 ${p.start}，而不是 PROTO 0x80）`,
      'pickle-protocol': (p) => `${p.file}：第 ${p.byte} 字节：pickle 协议 ${p.protocol}；只支持协议 2 到 5`,
      'pickle-opcode': (p) => `${p.file}：第 ${p.byte} 字节：${opcodeZh(p)}`,
      'pickle-corrupt': (p) => `${p.file}：第 ${p.byte} 字节处的 pickle 已损坏（${p.detail}）`,
      'snapshot-field': (p) => `${p.file}：${fieldZh(p)}——不是 PyTorch 内存快照`,
    },
  },
  examples: {
    'pickle-empty': { file: 'snapshot.pickle' },
    'pickle-gzip': { file: 'snapshot.pickle.gz', gunzipped: 'snapshot.pickle' },
    'pickle-not-pickle': { file: 'snapshot.json', start: '7b 22 73 65' },
    'pickle-protocol': { file: 'snapshot.pickle', byte: 1, protocol: 1 },
    'pickle-opcode': { file: 'evil.pickle', byte: 2, opcode: 'GLOBAL', hex: '0x63', kind: 'code' },
    'pickle-corrupt': {
      file: 'snapshot.pickle',
      byte: 4096,
      detail: 'the file ends before the pickle’s STOP: it is truncated',
    },
    'snapshot-field': {
      file: 'snapshot.pickle',
      field: '',
      problem: 'wrong-type',
      found: 'list',
      wanted: 'dict',
      value: '',
    },
  },
});

export const SNAPSHOT_ERROR_HINTS = defineDomain<SnapshotErrorParams>({
  name: 'snapshot-error-hints',
  words: {
    en: {
      'pickle-empty': () => HINT,
      'pickle-gzip': (p) => `gunzip it first, then: headroom snapshot ${p.gunzipped}`,
      'pickle-not-pickle': () => HINT,
      'pickle-protocol': () => HINT,
      'pickle-opcode': () => HINT,
      'pickle-corrupt': () => HINT,
      'snapshot-field': () => 'write the snapshot with torch.cuda.memory._dump_snapshot("snapshot.pickle")',
    },
    zh: {
      'pickle-empty': () => HINT_ZH,
      'pickle-gzip': (p) => `先用 gunzip 解压，再运行：headroom snapshot ${p.gunzipped}`,
      'pickle-not-pickle': () => HINT_ZH,
      'pickle-protocol': () => HINT_ZH,
      'pickle-opcode': () => HINT_ZH,
      'pickle-corrupt': () => HINT_ZH,
      'snapshot-field': () => '用 torch.cuda.memory._dump_snapshot("snapshot.pickle") 写出快照',
    },
  },
  examples: SNAPSHOT_ERRORS.examples,
});
