/** The README's library example, run as written against the built package entry. */
import { describe, expect, it } from 'vitest';

describe('the package entry', () => {
  it('runs the README example', async () => {
    // The built entry that package.json exports (npm ci builds it through `prepare`).
    const entry = new URL('../dist/index.js', import.meta.url).href;
    const { estimate, parseScenario, resolveModelRef, findGpu } = (await import(
      entry
    )) as typeof import('../src/index.js');
    const scenario = parseScenario({ model: 'llama-3.1-8b', method: 'lora', precision: 'bf16-true' });
    const result = estimate({
      scenario,
      shape: resolveModelRef(scenario.model)!.shape,
      gpu: findGpu('a10g') ?? null,
    });
    expect(result.fits).toMatchObject({ gpu: 'a10g', usableBytes: 23028 * 2 ** 20 });
    expect(result.peak.deviceBytes).toBeGreaterThan(16e9);
  });
});
