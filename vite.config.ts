import { defineConfig } from 'vite';

// The dashboard: React without a plugin (esbuild compiles JSX), built to dist/web and served by
// `headroom serve`. It imports src/core directly, so estimates run in the browser.
export default defineConfig({
  root: 'web',
  base: './',
  esbuild: { jsx: 'automatic' },
  build: { outDir: '../dist/web', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1200 },
  logLevel: 'warn',
});
