import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: { '@service/sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) },
  },
  // `npm run dev -w packages/console`: the page with hot reload on :5173, the API of a running server
  // (npm start) behind the same origin, as in production.
  server: { proxy: { '/v1': process.env.DOCSLURP_URL ?? 'http://127.0.0.1:8080' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The page's CSP forbids inline scripts and styles, and data: URLs are only allowed for images and
    // fonts: every asset is a file of its own.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
});
