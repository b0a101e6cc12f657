/**
 * The errors a file the user gave raises, as data: when its content is wrong (a config.json dimension,
 * an environment file, a trainer config, a scenario file), when its path cannot be used (missing, a
 * folder, too large, unreadable), and where it comes from (the ledger, a model folder, the Hugging Face
 * Hub). Each is a reason (the catalog's code, src/words/file-errors.ts and the files of each family it
 * gathers) and raw params (the file's name, the key, the value as given, the limit).
 * The core holds no words: its English `message` and `hint` (logs, the server, JSON results) come
 * from the catalog registered with `speakFileErrorsWith`, the same words the CLI shows in every language.
 */
import { type ErrorParam, HeadroomUserError, type UserErrorCode } from './errors.js';

/** A file whose generic errors (nested too deep, a field of the wrong shape) have a hint of their own. */
export type FileKind = 'env' | 'trainer-config';

/** The figures of a config.json a model's shape needs, as `requireNumber` names them. */
export type ConfigFigure = 'hidden' | 'layers' | 'heads' | 'vocab';

/** What a field of a parsed file must be (src/core/input-shape.ts), with the figures the words need. */
export type ShapeExpected =
  | 'string'
  | 'boolean'
  | 'number'
  | 'whole-number'
  | 'one-of'
  | 'list'
  | 'short-list'
  | 'object'
  /** A captured part of an environment file: `{"status": "ok", …}` or `{"status": "missing", …}`. */
  | 'part';

/** What is wrong inside a file the user gave. */
export interface ContentErrorParams {
  /** A config.json key that must be a whole number in [min, max]; `value` as a message shows it. */
  'config-dimension': { file: string; field: string; min: number; max: number; value: string };
  /** A figure of the model none of its keys gives. */
  'config-missing-figure': { file: string; figure: ConfigFigure; keys: readonly string[] };
  /** A JSON or YAML input nested deeper than any real one. */
  'too-deep': { file: string; maxDepth: number; kind: FileKind };
  /** A field of the wrong type (`gpus[0].name must be a string, not 3`); `field` '' for the file itself. */
  'wrong-shape': {
    file: string;
    field: string;
    expected: ShapeExpected;
    /** The lower bound of a number, the accepted values of a choice, the most items of a list. */
    min?: number;
    values?: readonly string[];
    maxItems?: number;
    /** The value as a message shows it: its JSON for a short scalar, else `missing`, `a list`, …. */
    value: string;
    kind: FileKind;
  };
  /** An environment file that is not JSON; `detail` is the parser's own words. */
  'env-not-json': { file: string; detail: string };
  'env-not-object': { file: string };
  'env-not-headroom': { file: string };
  'env-version': { file: string; version: string };
  /** A trainer config that is not JSON or YAML; `line` where the YAML parser says (0 when it does not). */
  'config-not-json': { file: string; detail: string };
  'config-not-yaml': { file: string; line: number; detail: string };
  'config-yaml-too-large': { path: string; problem: 'too-large'; bytes: number; maxBytes: number };
  /** A trainer config whose top is not a mapping; `found` is `a list`, `null`, `a string`, …. */
  'config-not-mapping': { file: string; found: string };
  'config-unknown-format': { file: string; formats: readonly string[] };
  /** A scenario file (`--scenario`, `estimate --batch`). */
  'scenario-empty': { file: string };
  /** Not one JSON document nor JSON Lines; `place` is `line L, column C` where the parser says, else ''. */
  'scenario-not-json': { file: string; place: string; detail: string };
  'scenario-line-not-json': { file: string; line: number; detail: string };
  /** A scenario entry that is not an object; `found` is `null`, `an array`, `a number`, …. */
  'scenario-not-object': { file: string; line: number; found: string };
  /** A safetensors file whose first bytes are not a header: shorter than the 8-byte length, a Git LFS pointer. */
  'safetensors-too-short': { file: string; bytes: number };
  'safetensors-lfs-pointer': { file: string };
  /** The header's length (bytes): 0, above the most accepted, or past the end of a file of `fileBytes`. */
  'safetensors-empty-header': { file: string };
  'safetensors-header-too-large': { file: string; headerBytes: number; maxBytes: number };
  'safetensors-header-past-end': { file: string; headerBytes: number; fileBytes: number };
  /** A header that is not JSON text: no opening brace, not UTF-8, or JSON.parse's `detail` ('' when none). */
  'safetensors-no-brace': { file: string };
  'safetensors-not-utf8': { file: string };
  'safetensors-not-json': { file: string; detail: string };
}

/** What a file the user named is, as its errors name it. */
export type FileRole =
  | 'trainer-config'
  | 'deepspeed-config'
  | 'scenario-file'
  | 'env-file'
  | 'log-file'
  | 'probe-log'
  | 'html-report';

/** Where the user gave a path, for what to do about a bad one (the two probe logs are given apart). */
export type FileAdvice =
  | 'trainer-config'
  | 'scenario-file'
  | 'env-file'
  | 'log-file'
  | 'run-log'
  | 'watch-log'
  | 'html-report';

/** A path the user named (src/io/user-file.ts): what it was meant to be and where it was given. */
interface NamedPath {
  path: string;
  role: FileRole;
  advice: FileAdvice;
  /** Whether the path was to be read or written. */
  use: 'read' | 'write';
}

/** A path the user named that cannot be used: `problem` is the kind of trouble, as data. */
export interface PathErrorParams {
  /** A folder given for a file: `found` the files of the kind inside it (`total` of them), else `example`. */
  'path-is-folder': NamedPath & {
    problem: 'is-folder';
    example: string;
    found: readonly string[];
    total: number;
  };
  'path-missing': NamedPath & { problem: 'missing' };
  /** A file to write in a folder that is not there. */
  'path-folder-missing': NamedPath & { problem: 'missing'; folder: string };
  /** A part of the path is a file (`file`; '' when it cannot be told which). */
  'path-through-file': NamedPath & { problem: 'not-a-folder-on-the-way'; file: string };
  /** No permission; `readOnly` for a write to a read-only file system; `example` a name to write instead. */
  'path-permission': NamedPath & { problem: 'permission'; readOnly: boolean; example: string };
  'path-link-loop': NamedPath & { problem: 'link-loop' };
  'path-special-file': NamedPath & { problem: 'special-file'; special: 'fifo' | 'socket' | 'device' };
  'path-too-large': NamedPath & { problem: 'too-large'; bytes: number; maxBytes: number };
  /** Any other fs error, by its code (`EIO`). */
  'path-unreadable': NamedPath & { problem: 'unreadable'; errno: string };
  /** A log or pasted traceback with nothing in it (`file` is the path or `standard input`). */
  'log-empty': { file: string };
  /** A memory snapshot file (`headroom snapshot`, the dashboard). */
  'snapshot-is-folder': { path: string };
  'snapshot-missing': { path: string };
  'snapshot-unreadable': { path: string; errno: string };
  'snapshot-empty': { path: string };
  'snapshot-too-large': { path: string; bytes: number; maxBytes: number };
}

/** The ledger (HEADROOM_HOME/ledger.db) and the runs in it. */
export interface LedgerErrorParams {
  /** The file is not SQLite; `detail` is SQLite's own words. */
  'ledger-not-sqlite': { path: string; detail: string };
  'ledger-cannot-open': { path: string; detail: string };
  /** Another process holds the ledger's write lock past the busy timeout. */
  'ledger-busy': { path: string; seconds: number };
  /** The disk (or the quota) is full. */
  'ledger-full': { path: string; detail: string };
  'ledger-too-large-to-copy': { path: string; mib: number };
  /** A ledger of another schema in a read-only folder; `reads` is this headroom's schema. */
  'ledger-schema-read-only': { path: string; version: number; reads: number };
  'ledger-foreign-db': { path: string; tables: number };
  /** `reader` the part of headroom that reads it: the exposition (`run --metrics-port`) says so. */
  'ledger-newer': { path: string; version: number; reads: number; reader?: 'exposition' };
  /** No run by that id, name or `last`; `runs` recorded, ids `first` to `last` (0 when none). */
  'no-such-run': { ref: string; ledger: string; runs: number; first: number; last: number };
}

/** A model given as a local folder or config.json (src/io/model-files.ts). */
export interface ModelFileErrorParams {
  'model-config-is-folder': { path: string };
  'model-not-a-folder': { path: string };
  'model-path-missing': { path: string; expected: 'file' | 'folder' };
  'model-no-config': { folder: string };
  /** A shard that is not there; `listedIn` the index that names it ('' when none does). */
  'model-shard-missing': { path: string; listedIn: string };
  'model-link-loop': { path: string; problem: 'link-loop' };
  /** Something else where a file should be: `found` what it is, `expected` the file that should be. */
  'model-not-a-file': {
    path: string;
    problem: 'is-folder' | 'special-file';
    found: 'folder' | 'fifo' | 'socket' | 'device';
    expected: 'config' | 'safetensors';
  };
  'model-file-too-large': { path: string; bytes: number; maxBytes: number };
  'model-unreadable': { path: string; errno: string };
  /** A config.json (local or on the Hub) that is not JSON (`detail`: JSON.parse's words, '' when none). */
  'model-config-not-json': { file: string; detail: string };
  'model-config-not-object': { file: string };
  /** A model path (it looks like one) that is not there. */
  'model-ref-missing': { path: string };
  /** A model name that is neither in the catalog nor a file, folder or Hub repo id; the nearest ids. */
  'model-unknown': { ref: string; nearest: readonly string[] };
}

/** Why a shard name in a safetensors index is refused. */
export type UnsafeShard = 'empty' | 'separator' | 'dot-dot' | 'colon' | 'control' | 'suffix';

/** A `model.safetensors.index.json` (src/core/safetensors-index.ts). */
export interface IndexErrorParams {
  'index-not-json': { file: string; detail: string };
  'index-not-object': { file: string };
  'index-no-weight-map': { file: string };
  'index-shard-not-string': { file: string; tensor: string };
  'index-too-many-shards': { file: string; max: number };
  'index-empty': { file: string };
  'index-metadata-not-object': { file: string };
  /** `value` as the file has it (JSON, shortened). */
  'index-total-size': { file: string; value: string };
  'index-unsafe-shard': { file: string; shard: string; why: UnsafeShard };
}

/**
 * A Hub id the catalog does not know, with the Hub out of reach (src/io/resolve-model.ts): the nearest
 * catalog ids, the one of the same name (`''` when none) and the `headroom models` query of its family.
 */
export interface OfflineNearest {
  nearest?: readonly string[];
  sameName?: string;
  query?: string;
}

/** A model fetched from the Hugging Face Hub (src/io/hub.ts). */
export interface HubErrorParams {
  'hub-not-repo-id': { ref: string };
  'hub-no-config': { ref: string };
  'hub-config-too-large': { file: string; bytes: number; maxBytes: number };
  /** HF_ENDPOINT (or the hubUrl option, `from`) that is not a URL. */
  'hub-bad-url': { url: string; from: string };
  'hub-bad-token': { from: string; prefix: string };
  'hub-timeout': { ref: string; host: string; seconds: number } & OfflineNearest;
  /** `cause` is the system's code (`ECONNREFUSED`), '' when none. */
  'hub-unreachable': { ref: string; host: string; cause: string } & OfflineNearest;
  'hub-refused': { ref: string; status: number };
  'hub-no-repo': { ref: string; revision: boolean };
  'hub-http': { ref: string; status: number };
  'hub-unexpected': { ref: string; host: string; detail: string };
  'hub-bad-checkpoint': { ref: string; detail: string };
}

/** A Prometheus server `headroom fleet` asks (src/io/prometheus.ts); `where` names the URL and query. */
export interface PrometheusErrorParams {
  /** `where` is the flag or variable that gave the URL (`--prometheus`, `HEADROOM_PROMETHEUS`). */
  'prom-not-url': { where: string; raw: string };
  'prom-scheme': { where: string; raw: string; scheme: string };
  'prom-timeout-flag': { raw: string };
  'prom-token-unreadable': { file: string; detail: string };
  'prom-token-empty': { file: string };
  'prom-two-auths': { where: string };
  'prom-too-large': { where: string; mib: number };
  /** No answer within `seconds`; `suggest` a longer --timeout. */
  'prom-no-answer': { where: string; seconds: number; suggest: number };
  /** Not reached: `why` the kind of failure, `host` (with port), `hostname`, `detail` the system's code or words. */
  'prom-unreachable': {
    where: string;
    why: 'refused' | 'unknown-host' | 'closed' | 'other';
    host: string;
    hostname: string;
    detail: string;
  };
  'prom-refused': { where: string; status: number; anonymous: boolean };
  /** An answer that is not JSON: its status and its first characters (`start`). */
  'prom-not-json': { where: string; status: number; statusText: string; start: string };
  /** No DCGM framebuffer series: `used` the metric asked, `free` and `reserved` the others. */
  'prom-no-dcgm': { url: string; used: string; free: string; reserved: string };
  /**
   * An answer that is JSON but not the query API's: `problem` what is off, `value` the JSON it has
   * (status, resultType), `index` the series, `label` its key, `count` of `max` series read ('' / 0 when none).
   */
  'prom-bad-shape': {
    where: string;
    problem: PromShapeProblem;
    value: string;
    index: number;
    label: string;
    count: number;
    max: number;
  };
  /** Prometheus answered `status: error`: its `errorType` and `error` (its own words, shortened). */
  'prom-error-answer': { where: string; errorType: string; error: string };
}

/** What is off in a Prometheus answer that is JSON but not `GET /api/v1/query`'s. */
export type PromShapeProblem =
  | 'not-object'
  | 'status'
  | 'no-data'
  | 'result-type'
  | 'result-not-list'
  | 'too-many-series'
  | 'series-shape'
  | 'series-value'
  | 'label-not-string';

/** A command line the CLI cannot parse (src/cli/_command.ts, src/cli/_lang.ts). */
export interface CliErrorParams {
  /**
   * Node's parseArgs refused the flags: `detail` its words, `nodeCode` its code
   * (`ERR_PARSE_ARGS_UNKNOWN_OPTION`), `option` the flag it names ('' when none).
   */
  'flag-parse': { command: string; detail: string; nodeCode: string; option: string };
  /** More positional arguments than the command takes; `arg` the first extra one. */
  'extra-argument': { command: string; arg: string };
  /** A --lang Headroom does not speak; `speaker` what speaks in the words (the findings of diagnose). */
  'bad-lang': { value: string; speaker: 'headroom' | 'findings' };
  /** `headroom frob`: no such command. */
  'unknown-command': { command: string };
  /** A subcommand the command does not have; `sub` '' when none was given. */
  'unknown-subcommand': { command: 'runs' | 'env' | 'probe'; sub: string };
  /** An argument or flag the command cannot go without; `ref` the run it was given ('' when none). */
  'missing-argument': { command: string; needs: Needed; ref: string };
  /**
   * A flag's value it cannot take (`flag` with its dashes, `value` as typed): a whole number from
   * `min` (to `max`), one of `values`, …; `example` a good value for the hint.
   */
  'flag-value': {
    flag: string;
    value: string;
    expected: FlagExpected;
    min?: number;
    max?: number;
    values?: readonly string[];
    example: string;
  };
  /** --scenario and --from together. */
  'scenario-and-from': { command: string };
  /** A setup flag (`flag`, with its dashes) with no model to describe. */
  'setup-without-model': { command: 'snapshot' | 'diagnose'; flag: string };
  /** `snapshot A B` (a comparison) with a scenario; `second` is B. */
  'snapshot-pair-scenario': { second: string };
  /** A --scenario file of `count` scenarios to a command that takes one. */
  'scenario-count': { command: string; file: string; count: number };
  /** A trainer config (`format`) that names no model. */
  'names-no-model': { command: string; file: string; format: string };
  /** A GPU id the catalog does not have; `nearest` the closest ids. */
  'gpu-unknown': { flag: string; id: string; nearest: readonly string[] };
  /** `serve --host` beyond loopback with no --token. */
  'host-without-token': { host: string };
  /** The Python probe is not in this installation. */
  'probe-missing': { file: string };
  /** A port to listen on that is taken (`busy`) or not allowed; `next` the one to try. */
  'port-unavailable': { flag: string; port: number; host: string; busy: boolean; next: number };
}

/** What a command cannot go without, as `missing-argument` names it. */
export type Needed =
  | 'run-id'
  | 'snapshot-file'
  | 'command'
  | 'run'
  | 'output'
  | 'log-source'
  | 'env-file'
  | 'recorded-run'
  | 'trainer-config'
  | 'model'
  | 'target-gpu'
  | 'probe-log'
  | 'prometheus'
  | 'migrate-target';

/** What a flag takes, for the words of a value it cannot take. */
export type FlagExpected =
  | 'whole-number'
  | 'token-count'
  | 'size'
  | 'seconds'
  | 'port'
  | 'positive'
  | 'margin'
  /** `not one of a, b, c` (`not a or b` for two). */
  | 'one-of'
  /** `a or b`: the two it takes. */
  | 'either';

/** A run being recorded, or recorded already, that a command cannot take over (watch, runs rm, calibrate). */
export interface RunErrorParams {
  /** Another watcher holds the log's lock. */
  'log-watched': { path: string; pid: number; host: string };
  /** A live headroom records run `id` (of the log `path`, '' for `runs rm`). */
  'run-being-recorded': { id: number; path: string; pid: number };
  /** The log was recorded to its end as run `id` (`status`: ok, oom, failed). */
  'log-recorded': { id: number; path: string; status: string };
  /** The probe log `log` (as given; `path` resolved) did not appear within `seconds`; `suggest` a longer --wait. */
  'log-timeout': { log: string; path: string; seconds: number; suggest: number };
  /** A run recorded without a scenario, for `calibrate RUN` or `--calibrated RUN`. */
  'run-no-scenario': { id: number; ref: string; use: 'calibrate' | 'calibrated' };
  /** No ledger at all in `home`, and no file of the name `ref` either. */
  'no-run-no-file': { ref: string; home: string };
  /** The dashboard's API asked for a run the ledger does not have. */
  'api-no-run': { ref: string };
  /** The dashboard's API asked for a window of run `id` that is not `from ≤ to` in seconds. */
  'api-bad-window': { id: string };
}

/** A PyTorch memory snapshot that cannot be read (src/core/snapshot/pickle.ts, snapshot.ts). */
export interface SnapshotErrorParams {
  'pickle-empty': { file: string };
  /** A gzip file; `gunzipped` the name it has once unpacked. */
  'pickle-gzip': { file: string; gunzipped: string };
  /** The first bytes (`start`, hex) are not PROTO. */
  'pickle-not-pickle': { file: string; start: string };
  'pickle-protocol': { file: string; byte: number; protocol: number };
  /** An opcode that would run code (`unsafe`), need out-of-band buffers, or is protocol 0/1 text. */
  'pickle-opcode': {
    file: string;
    byte: number;
    opcode: string;
    hex: string;
    kind: 'code' | 'buffers' | 'text';
  };
  /** Anything else wrong at byte `byte`: `detail` the reader's own words (an opcode, a length). */
  'pickle-corrupt': { file: string; byte: number; detail: string };
  /**
   * A pickle whose values are not a snapshot's: `field` the path ('' for the top), `problem` what is
   * off, `found` and `wanted` Python type names, `value` a number too large ('' when none).
   */
  'snapshot-field': {
    file: string;
    field: string;
    problem: 'missing' | 'wrong-type' | 'too-large' | 'repeated' | 'no-segments';
    found: string;
    wanted: string;
    value: string;
  };
}

/** The errors of a file the user gave, or of where it came from: every family, one map. */
export type FileErrorParams = ContentErrorParams &
  PathErrorParams &
  LedgerErrorParams &
  ModelFileErrorParams &
  IndexErrorParams &
  HubErrorParams &
  PrometheusErrorParams &
  CliErrorParams &
  RunErrorParams &
  SnapshotErrorParams;

export type FileErrorReason = keyof FileErrorParams;

/** Every file reason, once: a record so that TypeScript holds it to the params map. */
const REASON_SET: { readonly [R in FileErrorReason]: true } = {
  'config-dimension': true,
  'config-missing-figure': true,
  'too-deep': true,
  'wrong-shape': true,
  'env-not-json': true,
  'env-not-object': true,
  'env-not-headroom': true,
  'env-version': true,
  'config-not-json': true,
  'config-not-yaml': true,
  'config-yaml-too-large': true,
  'config-not-mapping': true,
  'config-unknown-format': true,
  'scenario-empty': true,
  'scenario-not-json': true,
  'scenario-line-not-json': true,
  'scenario-not-object': true,
  'safetensors-too-short': true,
  'safetensors-lfs-pointer': true,
  'safetensors-empty-header': true,
  'safetensors-header-too-large': true,
  'safetensors-header-past-end': true,
  'safetensors-no-brace': true,
  'safetensors-not-utf8': true,
  'safetensors-not-json': true,
  'path-is-folder': true,
  'path-missing': true,
  'path-folder-missing': true,
  'path-through-file': true,
  'path-permission': true,
  'path-link-loop': true,
  'path-special-file': true,
  'path-too-large': true,
  'path-unreadable': true,
  'log-empty': true,
  'snapshot-is-folder': true,
  'snapshot-missing': true,
  'snapshot-unreadable': true,
  'snapshot-empty': true,
  'snapshot-too-large': true,
  'ledger-not-sqlite': true,
  'ledger-cannot-open': true,
  'ledger-busy': true,
  'ledger-full': true,
  'ledger-too-large-to-copy': true,
  'ledger-schema-read-only': true,
  'ledger-foreign-db': true,
  'ledger-newer': true,
  'no-such-run': true,
  'model-config-is-folder': true,
  'model-not-a-folder': true,
  'model-path-missing': true,
  'model-no-config': true,
  'model-shard-missing': true,
  'model-link-loop': true,
  'model-not-a-file': true,
  'model-file-too-large': true,
  'model-unreadable': true,
  'model-config-not-json': true,
  'model-config-not-object': true,
  'model-ref-missing': true,
  'model-unknown': true,
  'index-not-json': true,
  'index-not-object': true,
  'index-no-weight-map': true,
  'index-shard-not-string': true,
  'index-too-many-shards': true,
  'index-empty': true,
  'index-metadata-not-object': true,
  'index-total-size': true,
  'index-unsafe-shard': true,
  'hub-not-repo-id': true,
  'hub-no-config': true,
  'hub-config-too-large': true,
  'hub-bad-url': true,
  'hub-bad-token': true,
  'hub-timeout': true,
  'hub-unreachable': true,
  'hub-refused': true,
  'hub-no-repo': true,
  'hub-http': true,
  'hub-unexpected': true,
  'hub-bad-checkpoint': true,
  'prom-not-url': true,
  'prom-scheme': true,
  'prom-timeout-flag': true,
  'prom-token-unreadable': true,
  'prom-token-empty': true,
  'prom-two-auths': true,
  'prom-too-large': true,
  'prom-no-answer': true,
  'prom-unreachable': true,
  'prom-refused': true,
  'prom-not-json': true,
  'prom-no-dcgm': true,
  'flag-parse': true,
  'extra-argument': true,
  'bad-lang': true,
  'prom-bad-shape': true,
  'prom-error-answer': true,
  'unknown-command': true,
  'unknown-subcommand': true,
  'missing-argument': true,
  'flag-value': true,
  'scenario-and-from': true,
  'setup-without-model': true,
  'snapshot-pair-scenario': true,
  'scenario-count': true,
  'names-no-model': true,
  'gpu-unknown': true,
  'host-without-token': true,
  'probe-missing': true,
  'port-unavailable': true,
  'log-watched': true,
  'run-being-recorded': true,
  'log-recorded': true,
  'log-timeout': true,
  'run-no-scenario': true,
  'no-run-no-file': true,
  'api-no-run': true,
  'api-bad-window': true,
  'pickle-empty': true,
  'pickle-gzip': true,
  'pickle-not-pickle': true,
  'pickle-protocol': true,
  'pickle-opcode': true,
  'pickle-corrupt': true,
  'snapshot-field': true,
};

/** Every file reason, so an edge can tell one from a field reason. */
export const FILE_ERROR_REASONS = Object.keys(REASON_SET) as readonly FileErrorReason[];

export function isFileReason(reason: string | undefined): reason is FileErrorReason {
  return reason !== undefined && (FILE_ERROR_REASONS as readonly string[]).includes(reason);
}

type FileErrorSpeaker = (
  reason: FileErrorReason,
  params: Readonly<Record<string, ErrorParam>>,
) => { readonly message: string; readonly hint?: string };

let fileErrorSpeaker: FileErrorSpeaker | null = null;

/** Registers the words of file errors (src/words/file-errors.ts calls this once, when it is loaded). */
export function speakFileErrorsWith(speaker: FileErrorSpeaker): void {
  fileErrorSpeaker = speaker;
}

/**
 * A file error: its reason and params, `where` (the file, or `file: field`), and its English message
 * and hint from the registered catalog (without one, the file's name and the reason's code).
 */
export function fileError<R extends FileErrorReason>(
  reason: R,
  params: FileErrorParams[R],
  where: string,
  code: UserErrorCode = 'bad-file',
): HeadroomUserError {
  const raw = params as unknown as Readonly<Record<string, ErrorParam>>;
  const words = fileErrorSpeaker?.(reason, raw) ?? { message: `${where}: ${reason}` };
  return new HeadroomUserError({
    code,
    where,
    message: words.message,
    ...(words.hint === undefined ? {} : { hint: words.hint }),
    params: raw,
    reason,
  });
}
