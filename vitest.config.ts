import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 30_000,
    setupFiles: ['test/setup-words.ts'],
  },
});
