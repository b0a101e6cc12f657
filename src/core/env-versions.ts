/**
 * The scenario's `versions` from an environment file (`headroom env capture`): each installed package
 * the scenario knows, under the scenario's name for it. `estimate --env FILE` fills the versions a
 * scenario does not state from here; a version the scenario or a flag gives wins.
 */
import type { EnvSnapshot } from './env.js';
import { VERSION_PATTERN } from './scenario/kinds.js';
import type { VersionKey, Versions } from './scenario/values.js';

/** Distribution name (pip's, as env capture records them) → the scenario's `versions` key. */
const VERSION_KEY_OF: Readonly<Record<string, VersionKey>> = {
  torch: 'torch',
  transformers: 'transformers',
  peft: 'peft',
  trl: 'trl',
  accelerate: 'accelerate',
  deepspeed: 'deepspeed',
  bitsandbytes: 'bitsandbytes',
  torchao: 'torchao',
  'flash-attn': 'flashAttn',
  torchtune: 'torchtune',
  litgpt: 'litgpt',
  lightning: 'lightning',
  axolotl: 'axolotl',
  llamafactory: 'llamaFactory',
  'ms-swift': 'msSwift',
  unsloth: 'unsloth',
  torchtitan: 'torchtitan',
};

/**
 * The installed versions an environment recorded, by the scenario's package names; empty when its
 * frameworks part is missing.
 * @example versionsFromEnv(env) // { torch: '2.5.1+cu121', transformers: '4.46.0', peft: '0.13.2' }
 */
export function versionsFromEnv(env: EnvSnapshot): Versions {
  return env.frameworks.status === 'ok' ? versionsFromPackages(env.frameworks.value.packages) : {};
}

/**
 * Installed versions by distribution name (env capture's, the probe's start record) by the scenario's
 * package names; a package not installed (null) or one the scenario does not know is left out.
 * @example versionsFromPackages({ torch: '2.5.1', 'flash-attn': '2.6.3', numpy: '2.1.0' }) // { torch: '2.5.1', flashAttn: '2.6.3' }
 */
export function versionsFromPackages(packages: Readonly<Record<string, string | null>>): Versions {
  const out: Partial<Record<VersionKey, string>> = {};
  for (const [name, version] of Object.entries(packages)) {
    const key = VERSION_KEY_OF[name];
    // A version the scenario could not take (an odd build string) is left out, not refused.
    if (key !== undefined && typeof version === 'string' && VERSION_PATTERN.test(version)) out[key] = version;
  }
  return out;
}

/**
 * A raw scenario with the environment's versions under its own: a version it states wins.
 * @example withEnvVersions({ model: 'llama-3.1-8b', versions: { torch: '2.4.0' } }, { torch: '2.5.1', peft: '0.13.2' }).versions
 * // { torch: '2.4.0', peft: '0.13.2' }
 */
export function withEnvVersions(
  raw: Readonly<Record<string, unknown>>,
  env: Versions,
): Record<string, unknown> {
  if (Object.keys(env).length === 0) return { ...raw };
  const own = raw.versions;
  const stated = own !== null && typeof own === 'object' && !Array.isArray(own) ? own : {};
  // A malformed `versions` is left for the parser to refuse, naming the field.
  if (own !== undefined && own !== null && stated !== own) return { ...raw };
  return { ...raw, versions: { ...env, ...stated } };
}
