/**
 * The words of the errors of where a model comes from, in English and Chinese: a local folder or
 * config.json (src/io/model-files.ts), a safetensors index (src/core/safetensors-index.ts), the
 * Hugging Face Hub (src/io/hub.ts) and a name nothing knows (src/core/model-ref.ts). Each reason's
 * message and what to do; src/words/file-errors.ts gathers them with the other families of file
 * errors. A parser's or the Hub client's own words (`detail`) stay as they were written.
 */
import type {
  HubErrorParams,
  IndexErrorParams,
  ModelFileErrorParams,
  OfflineNearest,
  UnsafeShard,
} from '../core/file-errors.js';
import { defineDomain } from './catalog.js';

const FOLDER_HINT_EN =
  'pass a Hugging Face model folder (with config.json), a config.json path, or a catalog id';
const FOLDER_HINT_ZH = '给出 Hugging Face 模型文件夹（含 config.json）、config.json 路径或目录 id';

const FOUND_EN = {
  folder: 'a folder',
  fifo: 'a named pipe',
  socket: 'a socket',
  device: 'a device or other special file',
} as const;
const FOUND_ZH = {
  folder: '文件夹',
  fifo: '命名管道',
  socket: '套接字',
  device: '设备或其他特殊文件',
} as const;
const EXPECTED_EN = { config: 'a config.json file', safetensors: 'a safetensors file' } as const;
const EXPECTED_ZH = { config: 'config.json 文件', safetensors: 'safetensors 文件' } as const;
const KIND_ZH = { file: '文件', folder: '文件夹' } as const;

const nearestEn = (p: { nearest: readonly string[] }) => p.nearest.join(', ');
const nearestZh = (p: { nearest: readonly string[] }) => p.nearest.join('、');

export const MODEL_FILE_ERRORS = defineDomain<ModelFileErrorParams>({
  name: 'model-file-errors',
  words: {
    en: {
      'model-config-is-folder': (p) => `${p.path} is a folder, not a config.json file`,
      'model-not-a-folder': (p) => `${p.path} is not a folder`,
      'model-path-missing': (p) => `no such ${p.expected}: ${p.path}`,
      'model-no-config': (p) =>
        `${p.folder} has no config.json; Headroom needs the model's config.json to know its shape`,
      'model-shard-missing': (p) =>
        p.listedIn === ''
          ? `${p.path} does not exist`
          : `${p.path} is listed in ${p.listedIn} but does not exist`,
      'model-link-loop': (p) => `${p.path} is a symbolic link that loops (it never reaches a file)`,
      'model-not-a-file': (p) => `${p.path} is ${FOUND_EN[p.found]}, not ${EXPECTED_EN[p.expected]}`,
      'model-file-too-large': (p) =>
        `${p.path} is ${p.bytes} bytes, more than the ${p.maxBytes}-byte limit for this file`,
      'model-unreadable': (p) => `could not read ${p.path} (${p.errno})`,
      'model-config-not-json': (p) => `${p.file} is not valid JSON${p.detail === '' ? '' : ` (${p.detail})`}`,
      'model-config-not-object': (p) => `${p.file} must hold a JSON object (a Hugging Face model config)`,
      'model-ref-missing': (p) => `model path ${p.path} does not exist`,
      'model-unknown': (p) =>
        `model "${p.ref}" is not a catalog model, a file, a folder or a Hugging Face repo id`,
    },
    zh: {
      'model-config-is-folder': (p) => `${p.path} 是文件夹，不是 config.json 文件`,
      'model-not-a-folder': (p) => `${p.path} 不是文件夹`,
      'model-path-missing': (p) => `没有这个${KIND_ZH[p.expected]}：${p.path}`,
      'model-no-config': (p) =>
        `${p.folder} 中没有 config.json；Headroom 需要模型的 config.json 才能知道它的结构`,
      'model-shard-missing': (p) =>
        p.listedIn === '' ? `${p.path} 不存在` : `${p.path} 列在 ${p.listedIn} 中，但并不存在`,
      'model-link-loop': (p) => `${p.path} 是循环的符号链接（永远到不了文件）`,
      'model-not-a-file': (p) => `${p.path} 是${FOUND_ZH[p.found]}，不是${EXPECTED_ZH[p.expected]}`,
      'model-file-too-large': (p) => `${p.path} 有 ${p.bytes} 字节，超过了这类文件 ${p.maxBytes} 字节的上限`,
      'model-unreadable': (p) => `无法读取 ${p.path}（${p.errno}）`,
      'model-config-not-json': (p) => `${p.file} 不是有效的 JSON${p.detail === '' ? '' : `（${p.detail}）`}`,
      'model-config-not-object': (p) => `${p.file} 必须是一个 JSON 对象（Hugging Face 模型配置）`,
      'model-ref-missing': (p) => `模型路径 ${p.path} 不存在`,
      'model-unknown': (p) => `模型 "${p.ref}" 既不是目录中的模型，也不是文件、文件夹或 Hugging Face 仓库 id`,
    },
  },
  examples: {
    'model-config-is-folder': { path: 'my-model/config.json' },
    'model-not-a-folder': { path: 'my-model' },
    'model-path-missing': { path: 'my-model', expected: 'folder' },
    'model-no-config': { folder: 'my-model' },
    'model-shard-missing': {
      path: 'my-model/model-00002-of-00004.safetensors',
      listedIn: 'model.safetensors.index.json',
    },
    'model-link-loop': { path: 'my-model/model.safetensors', problem: 'link-loop' },
    'model-not-a-file': {
      path: 'my-model/model.safetensors',
      problem: 'special-file',
      found: 'fifo',
      expected: 'safetensors',
    },
    'model-file-too-large': { path: 'my-model/config.json', bytes: 20_000_000, maxBytes: 10_000_000 },
    'model-unreadable': { path: 'my-model/config.json', errno: 'EACCES' },
    'model-config-not-json': { file: 'my-model/config.json', detail: 'Unexpected end of JSON input' },
    'model-config-not-object': { file: 'my-model/config.json' },
    'model-ref-missing': { path: './my-model' },
    'model-unknown': { ref: 'llama-8b', nearest: ['llama-3.1-8b', 'llama-3-8b'] },
  },
});

export const MODEL_FILE_ERROR_HINTS = defineDomain<ModelFileErrorParams>({
  name: 'model-file-error-hints',
  words: {
    en: {
      'model-config-is-folder': () =>
        'pass the folder itself as a model folder, or the path of its config.json',
      'model-not-a-folder': () => FOLDER_HINT_EN,
      'model-path-missing': () => FOLDER_HINT_EN,
      'model-no-config': () =>
        'pass the folder that holds config.json (a Hugging Face model snapshot), or a config.json path',
      'model-shard-missing': () => 'download every shard of the checkpoint (or remove the stale index file)',
      'model-link-loop': () => 'point the link at the real file, or download the file again',
      'model-not-a-file': () =>
        'put the real file there (a complete download of the checkpoint), or remove what is in its place',
      'model-file-too-large': () => 'check that the path names the right file',
      'model-unreadable': () => 'check that the file exists and that you may read it',
      'model-config-not-json': () => 'check that config.json is complete (re-download it if needed)',
      'model-config-not-object': () => 'pass the model config.json, not another JSON file',
      'model-ref-missing': () =>
        'check the path: a model folder with config.json in it, or a config.json file (a catalog id or a Hugging Face repo id works too)',
      'model-unknown': (p) =>
        `a catalog id (did you mean ${nearestEn(p)}?), a Hugging Face repo id, a config.json path or a model folder; headroom models lists the catalog`,
    },
    zh: {
      'model-config-is-folder': () => '把该文件夹本身作为模型文件夹给出，或给出其中 config.json 的路径',
      'model-not-a-folder': () => FOLDER_HINT_ZH,
      'model-path-missing': () => FOLDER_HINT_ZH,
      'model-no-config': () => '给出含有 config.json 的文件夹（Hugging Face 模型快照），或 config.json 路径',
      'model-shard-missing': () => '下载检查点的全部分片（或删除过时的索引文件）',
      'model-link-loop': () => '让链接指向真正的文件，或重新下载该文件',
      'model-not-a-file': () => '把真正的文件放在那里（完整下载的检查点），或移走占据该位置的东西',
      'model-file-too-large': () => '确认路径指向的是正确的文件',
      'model-unreadable': () => '确认文件存在，并且你有读取权限',
      'model-config-not-json': () => '确认 config.json 是完整的（必要时重新下载）',
      'model-config-not-object': () => '给出模型的 config.json，而不是别的 JSON 文件',
      'model-ref-missing': () =>
        '检查路径：应为含有 config.json 的模型文件夹，或 config.json 文件（目录 id 或 Hugging Face 仓库 id 也可以）',
      'model-unknown': (p) =>
        `目录 id（你是不是想用 ${nearestZh(p)}？）、Hugging Face 仓库 id、config.json 路径或模型文件夹；headroom models 列出模型目录`,
    },
  },
  examples: MODEL_FILE_ERRORS.examples,
});

const UNSAFE_EN: Readonly<Record<UnsafeShard, string>> = {
  empty: 'is empty',
  separator: 'contains a path separator',
  'dot-dot': "contains '..'",
  colon: "contains ':'",
  control: 'contains a control character',
  suffix: 'does not end in .safetensors',
};
const UNSAFE_ZH: Readonly<Record<UnsafeShard, string>> = {
  empty: '为空',
  separator: '含有路径分隔符',
  'dot-dot': "含有 '..'",
  colon: "含有 ':'",
  control: '含有控制字符',
  suffix: '不以 .safetensors 结尾',
};

const INDEX_HINT_EN =
  'check that the index file is complete and belongs to a safetensors checkpoint (re-download it if needed)';
const INDEX_HINT_ZH = '确认索引文件是完整的，且属于一个 safetensors 检查点（必要时重新下载）';
const INDEX = 'model.safetensors.index.json';

export const INDEX_ERRORS = defineDomain<IndexErrorParams>({
  name: 'index-errors',
  words: {
    en: {
      'index-not-json': (p) => `${p.file}: not valid JSON${p.detail === '' ? '' : ` (${p.detail})`}`,
      'index-not-object': (p) => `${p.file}: must be a JSON object with a "weight_map"`,
      'index-no-weight-map': (p) =>
        `${p.file}: "weight_map" is missing or not an object of tensor name → shard file`,
      'index-shard-not-string': (p) =>
        `${p.file}: weight_map[${JSON.stringify(p.tensor)}] is not a file name string`,
      'index-too-many-shards': (p) => `${p.file}: names more than ${p.max} shard files`,
      'index-empty': (p) => `${p.file}: "weight_map" is empty`,
      'index-metadata-not-object': (p) => `${p.file}: "metadata" is not an object`,
      'index-total-size': (p) => `${p.file}: metadata.total_size is ${p.value}, not a byte count`,
      'index-unsafe-shard': (p) =>
        `${p.file}: shard file name ${JSON.stringify(p.shard)} ${UNSAFE_EN[p.why]}; shard names must be plain file names`,
    },
    zh: {
      'index-not-json': (p) => `${p.file}：不是有效的 JSON${p.detail === '' ? '' : `（${p.detail}）`}`,
      'index-not-object': (p) => `${p.file}：必须是含有 "weight_map" 的 JSON 对象`,
      'index-no-weight-map': (p) => `${p.file}："weight_map" 缺失，或不是张量名 → 分片文件的对象`,
      'index-shard-not-string': (p) => `${p.file}：weight_map[${JSON.stringify(p.tensor)}] 不是文件名字符串`,
      'index-too-many-shards': (p) => `${p.file}：列出的分片文件超过 ${p.max} 个`,
      'index-empty': (p) => `${p.file}："weight_map" 是空的`,
      'index-metadata-not-object': (p) => `${p.file}："metadata" 不是对象`,
      'index-total-size': (p) => `${p.file}：metadata.total_size 为 ${p.value}，不是字节数`,
      'index-unsafe-shard': (p) =>
        `${p.file}：分片文件名 ${JSON.stringify(p.shard)} ${UNSAFE_ZH[p.why]}；分片名必须是普通文件名`,
    },
  },
  examples: {
    'index-not-json': { file: INDEX, detail: 'Unexpected end of JSON input' },
    'index-not-object': { file: INDEX },
    'index-no-weight-map': { file: INDEX },
    'index-shard-not-string': { file: INDEX, tensor: 'model.embed_tokens.weight' },
    'index-too-many-shards': { file: INDEX, max: 10_000 },
    'index-empty': { file: INDEX },
    'index-metadata-not-object': { file: INDEX },
    'index-total-size': { file: INDEX, value: '"lots"' },
    'index-unsafe-shard': { file: INDEX, shard: '../model.safetensors', why: 'separator' },
  },
});

export const INDEX_ERROR_HINTS = defineDomain<IndexErrorParams>({
  name: 'index-error-hints',
  words: {
    en: {
      'index-not-json': () => INDEX_HINT_EN,
      'index-not-object': () => INDEX_HINT_EN,
      'index-no-weight-map': () => INDEX_HINT_EN,
      'index-shard-not-string': () => INDEX_HINT_EN,
      'index-too-many-shards': () => INDEX_HINT_EN,
      'index-empty': () => INDEX_HINT_EN,
      'index-metadata-not-object': () => INDEX_HINT_EN,
      'index-total-size': () => INDEX_HINT_EN,
      'index-unsafe-shard': () => INDEX_HINT_EN,
    },
    zh: {
      'index-not-json': () => INDEX_HINT_ZH,
      'index-not-object': () => INDEX_HINT_ZH,
      'index-no-weight-map': () => INDEX_HINT_ZH,
      'index-shard-not-string': () => INDEX_HINT_ZH,
      'index-too-many-shards': () => INDEX_HINT_ZH,
      'index-empty': () => INDEX_HINT_ZH,
      'index-metadata-not-object': () => INDEX_HINT_ZH,
      'index-total-size': () => INDEX_HINT_ZH,
      'index-unsafe-shard': () => INDEX_HINT_ZH,
    },
  },
  examples: INDEX_ERRORS.examples,
});

const NETWORK_HINT_EN = 'use a catalog id (headroom models), or pass a local folder or a config.json path';
const NETWORK_HINT_ZH = '使用目录 id（headroom models），或给出本地文件夹或 config.json 路径';

type Offline = OfflineNearest & { readonly ref: string };

/** The hint of a Hub id the catalog does not know, with the Hub out of reach: the nearest catalog ids. */
function offlineEn(p: Offline): string {
  const nearest = p.nearest ?? [];
  return [
    ...(p.sameName
      ? [`${p.ref} has the name of catalog model ${p.sameName}: if it is a copy of it, use ${p.sameName}`]
      : []),
    `the nearest catalog models are ${nearest.join(', ')} (headroom models ${p.query ?? ''} lists that family)`,
    'for a model the catalog lacks, give its folder or its config.json: headroom estimate ./my-model/',
    'or check the network and HF_ENDPOINT',
  ].join('; ');
}

function offlineZh(p: Offline): string {
  const nearest = p.nearest ?? [];
  return [
    ...(p.sameName
      ? [`${p.ref} 与目录中的模型 ${p.sameName} 同名：如果它是该模型的副本，请使用 ${p.sameName}`]
      : []),
    `目录中最接近的模型是 ${nearest.join('、')}（headroom models ${p.query ?? ''} 列出该系列）`,
    '目录中没有的模型，请给出它的文件夹或 config.json：headroom estimate ./my-model/',
    '或检查网络和 HF_ENDPOINT',
  ].join('；');
}

const REF = 'meta-llama/Llama-3.1-8B';
const HOST = 'https://huggingface.co';

export const HUB_ERRORS = defineDomain<HubErrorParams>({
  name: 'hub-errors',
  words: {
    en: {
      'hub-not-repo-id': (p) =>
        `"${p.ref}" is not in the catalog and is not a Hugging Face repo id (owner/name)`,
      'hub-no-config': (p) =>
        `${p.ref} has no config.json on the Hub; Headroom needs it to know the model's shape`,
      'hub-config-too-large': (p) => `${p.file} is ${p.bytes} bytes, more than the ${p.maxBytes}-byte limit`,
      'hub-bad-url': (p) => `Hub URL "${p.url}" is not a valid URL`,
      'hub-bad-token': (p) => `the Hub access token does not start with "${p.prefix}"`,
      'hub-timeout': (p) =>
        `${p.ref} is not in the catalog and the Hugging Face Hub (${p.host}) did not answer within ${p.seconds} s`,
      'hub-unreachable': (p) =>
        `${p.ref} is not in the catalog and the Hugging Face Hub (${p.host}) could not be reached${p.cause === '' ? '' : ` (${p.cause})`}`,
      'hub-refused': (p) =>
        `the Hub refused access to ${p.ref} (HTTP ${p.status}): the repo is gated or private, or does not exist`,
      'hub-no-repo': (p) => `${p.ref}: no such repo on the Hub${p.revision ? ' (or no such revision)' : ''}`,
      'hub-http': (p) => `the Hub answered HTTP ${p.status} for ${p.ref}`,
      'hub-unexpected': (p) =>
        `${p.host} gave an unexpected answer for ${p.ref} (${p.detail}); it may not be a Hugging Face Hub`,
      'hub-bad-checkpoint': (p) => `${p.ref}: ${p.detail}`,
    },
    zh: {
      'hub-not-repo-id': (p) => `"${p.ref}" 不在模型目录中，也不是 Hugging Face 仓库 id（owner/name）`,
      'hub-no-config': (p) => `${p.ref} 在 Hub 上没有 config.json；Headroom 需要它才能知道模型的结构`,
      'hub-config-too-large': (p) => `${p.file} 有 ${p.bytes} 字节，超过了 ${p.maxBytes} 字节的上限`,
      'hub-bad-url': (p) => `Hub 地址 "${p.url}" 不是有效的 URL`,
      'hub-bad-token': (p) => `Hub 访问令牌不是以 "${p.prefix}" 开头`,
      'hub-timeout': (p) =>
        `${p.ref} 不在模型目录中，而 Hugging Face Hub（${p.host}）在 ${p.seconds} 秒内没有应答`,
      'hub-unreachable': (p) =>
        `${p.ref} 不在模型目录中，而 Hugging Face Hub（${p.host}）无法连接${p.cause === '' ? '' : `（${p.cause}）`}`,
      'hub-refused': (p) =>
        `Hub 拒绝访问 ${p.ref}（HTTP ${p.status}）：该仓库需要授权或是私有的，或者并不存在`,
      'hub-no-repo': (p) => `${p.ref}：Hub 上没有这个仓库${p.revision ? '（或没有这个版本）' : ''}`,
      'hub-http': (p) => `Hub 对 ${p.ref} 返回了 HTTP ${p.status}`,
      'hub-unexpected': (p) =>
        `${p.host} 对 ${p.ref} 的应答出乎意料（${p.detail}）；它可能不是 Hugging Face Hub`,
      'hub-bad-checkpoint': (p) => `${p.ref}：${p.detail}`,
    },
  },
  examples: {
    'hub-not-repo-id': { ref: 'llama 3' },
    'hub-no-config': { ref: REF },
    'hub-config-too-large': { file: `${REF}/config.json`, bytes: 20_000_000, maxBytes: 10_000_000 },
    'hub-bad-url': { url: 'huggingface', from: 'HF_ENDPOINT' },
    'hub-bad-token': { from: 'HF_TOKEN', prefix: 'hf_' },
    'hub-timeout': {
      ref: 'acme/llama-3.1-8b-ft',
      host: HOST,
      seconds: 15,
      nearest: ['llama-3.1-8b', 'llama-3-8b'],
      sameName: 'llama-3.1-8b',
      query: 'llama',
    },
    'hub-unreachable': { ref: REF, host: HOST, cause: 'ECONNREFUSED' },
    'hub-refused': { ref: REF, status: 401 },
    'hub-no-repo': { ref: `${REF}@v2`, revision: true },
    'hub-http': { ref: REF, status: 502 },
    'hub-unexpected': { ref: REF, host: 'http://proxy.local', detail: 'Unexpected token <' },
    'hub-bad-checkpoint': { ref: REF, detail: 'Header is too large' },
  },
});

export const HUB_ERROR_HINTS = defineDomain<HubErrorParams>({
  name: 'hub-error-hints',
  words: {
    en: {
      'hub-not-repo-id': () => `${NETWORK_HINT_EN}, or a Hub repo id such as meta-llama/Llama-3.1-8B`,
      'hub-no-config': () =>
        'use the repo that holds the transformers checkpoint (with config.json), or a catalog id',
      'hub-config-too-large': () => 'check the repo id',
      'hub-bad-url': () => 'set HF_ENDPOINT to a URL such as https://huggingface.co, or unset it',
      'hub-bad-token': () =>
        'set HF_TOKEN to a token from https://huggingface.co/settings/tokens, or unset it',
      'hub-timeout': (p) =>
        p.nearest === undefined
          ? `check the network or HF_ENDPOINT (a proxy that never answers looks like this); ${NETWORK_HINT_EN}`
          : offlineEn(p),
      'hub-unreachable': (p) => (p.nearest === undefined ? NETWORK_HINT_EN : offlineEn(p)),
      'hub-refused': () =>
        'for a gated model, accept its licence on the Hub and set HF_TOKEN to an access token; otherwise check the repo id',
      'hub-no-repo': () => `check the repo id; ${NETWORK_HINT_EN}`,
      'hub-http': () => `try again later; ${NETWORK_HINT_EN}`,
      'hub-unexpected': () => `check HF_ENDPOINT; ${NETWORK_HINT_EN}`,
      'hub-bad-checkpoint': () =>
        'the checkpoint on the Hub looks malformed; pass a local folder or a config.json path instead',
    },
    zh: {
      'hub-not-repo-id': () => `${NETWORK_HINT_ZH}，或 Hub 仓库 id，例如 meta-llama/Llama-3.1-8B`,
      'hub-no-config': () => '使用存放 transformers 检查点（含 config.json）的仓库，或目录 id',
      'hub-config-too-large': () => '检查仓库 id',
      'hub-bad-url': () => '把 HF_ENDPOINT 设为 https://huggingface.co 这样的 URL，或取消设置',
      'hub-bad-token': () => '把 HF_TOKEN 设为 https://huggingface.co/settings/tokens 中的令牌，或取消设置',
      'hub-timeout': (p) =>
        p.nearest === undefined
          ? `检查网络或 HF_ENDPOINT（代理一直不应答时就是这样）；${NETWORK_HINT_ZH}`
          : offlineZh(p),
      'hub-unreachable': (p) => (p.nearest === undefined ? NETWORK_HINT_ZH : offlineZh(p)),
      'hub-refused': () =>
        '对需要授权的模型，请在 Hub 上接受其许可，并把 HF_TOKEN 设为访问令牌；否则请检查仓库 id',
      'hub-no-repo': () => `检查仓库 id；${NETWORK_HINT_ZH}`,
      'hub-http': () => `稍后再试；${NETWORK_HINT_ZH}`,
      'hub-unexpected': () => `检查 HF_ENDPOINT；${NETWORK_HINT_ZH}`,
      'hub-bad-checkpoint': () => 'Hub 上的检查点看起来有问题；请改为给出本地文件夹或 config.json 路径',
    },
  },
  examples: HUB_ERRORS.examples,
});
