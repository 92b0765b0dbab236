// Builds the console into dist/console/, served by svc at /console (see src/http/routes/console-routes.ts).
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  plugins: [svelte()],
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    // No inline <script> (the page's CSP forbids it), no source maps shipped.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
    // The build runs inside `npm pack` and a clone's first `npm start`: no timing report about the Svelte compiler on a slow machine.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
});
