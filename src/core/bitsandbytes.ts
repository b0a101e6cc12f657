/**
 * What the installed bitsandbytes changes in a 4-bit run's memory. Before 0.43.2, `MatMul4Bit` kept
 * its input on the autograd context (`ctx.tensors = (A, B)`); PR #1270 ("delete useless buffered
 * activation", merged 2024-07-16, released in 0.43.2) made it `(None, B)`.
 */
import {
  BITSANDBYTES_QUANTIZATIONS,
  type QuantizedInputsKept,
  type Scenario,
  usesBitsandbytes,
} from './scenario.js';

/** The bitsandbytes 4-bit quantizations (Linear4bit); int8's Linear8bitLt keeps its input in every version. */
const FOUR_BIT: ReadonlySet<string> = new Set([...BITSANDBYTES_QUANTIZATIONS].filter((q) => q !== 'int8'));

/**
 * How long the scenario's quantized layers keep their inputs: what it says, else int8's MatMul8bitLt
 * keeps them for the step and a 4-bit layer (bitsandbytes 0.43.2 on) not at all.
 */
export function inputsKept(scenario: Scenario): QuantizedInputsKept {
  if (!usesBitsandbytes(scenario)) return 'none';
  return scenario.quantizedInputsKept ?? (scenario.quantization === 'int8' ? 'step' : 'none');
}

/** The first bitsandbytes release whose 4-bit layers keep no input. */
const INPUTS_DROPPED_FROM = [0, 43, 2] as const;
/** The same release as pip names it ("0.43.2"), for advice that says which version to install. */
export const BITSANDBYTES_INPUTS_DROPPED_FROM = INPUTS_DROPPED_FROM.join('.');

/** Whether this bitsandbytes version keeps every 4-bit layer's input; null when the version does not parse. */
export function bitsandbytesKeepsInputs(version: string): boolean | null {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(version.trim());
  if (!m) return null;
  const v = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  for (let i = 0; i < 3; i++) if (v[i] !== INPUTS_DROPPED_FROM[i]) return v[i]! < INPUTS_DROPPED_FROM[i]!;
  return false;
}

/**
 * The scenario as it runs with this bitsandbytes installed: an old one makes a 4-bit base keep its
 * inputs (at least for the step), a new one drops what the scenario said was kept. `change` says which
 * happened; null when the version is unknown or already agrees with the scenario.
 */
export function withBitsandbytes(
  scenario: Scenario,
  version: string | null,
): { readonly scenario: Scenario; readonly change: 'kept' | 'dropped' | null } {
  if (!FOUR_BIT.has(scenario.quantization) || !usesBitsandbytes(scenario) || version === null) {
    return { scenario, change: null };
  }
  const keeps = bitsandbytesKeepsInputs(version);
  const kept = scenario.quantizedInputsKept ?? 'none';
  if (keeps === true && kept === 'none') {
    return { scenario: { ...scenario, quantizedInputsKept: 'step' }, change: 'kept' };
  }
  if (keeps === false && kept !== 'none') {
    return { scenario: { ...scenario, quantizedInputsKept: 'none' }, change: 'dropped' };
  }
  return { scenario, change: null };
}

/** Whether upgrading bitsandbytes would free inputs this scenario's 4-bit layers keep (int8 keeps them in every version). */
export function upgradeFreesInputs(scenario: Scenario): boolean {
  return FOUR_BIT.has(scenario.quantization) && inputsKept(scenario) !== 'none';
}
