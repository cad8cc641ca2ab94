import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
/** `npm run dev` proxies everything outside /panx (the API, /deployManifest.json, /asset/…) to this server. */
const apiTarget = process.env.PANX_API_URL ?? 'http://localhost:8080';

/**
 * The error page lives at /error/error.html (SPEC §8), outside the app's base. The API server serves it
 * from the build's `error/` folder; in development this middleware serves it from `public/error/`.
 */
function serveErrorPageInDev(): Plugin {
  const errorDir = path.join(here, 'public', 'error');
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
  return {
    name: 'panx-error-page',
    configureServer(server) {
      server.middlewares.use('/error', (request, response, next) => {
        const name = path.basename((request.url ?? '').split('?')[0] ?? '');
        const file = path.join(errorDir, name);
        if (!name || !fs.existsSync(file)) return next();
        response.setHeader('content-type', types[path.extname(file)] ?? 'application/octet-stream');
        fs.createReadStream(file).pipe(response);
      });
    },
  };
}

/**
 * `@panx/contract` builds its zod route table at module level; the web app only needs its constants and
 * types. Declaring the package free of side effects lets the bundler drop the route table (and zod).
 */
function contractWithoutSideEffects(): Plugin {
  return {
    name: 'panx-contract-side-effect-free',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!source.startsWith('@panx/contract') && !importer?.includes(`${path.sep}contract${path.sep}dist${path.sep}`)) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (!resolved || !resolved.id.includes(`${path.sep}contract${path.sep}dist${path.sep}`)) return resolved;
      return { ...resolved, moduleSideEffects: false };
    },
  };
}

export default defineConfig({
  base: '/panx/',
  plugins: [contractWithoutSideEffects(), react(), serveErrorPageInDev()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 600,
  },
  server: {
    port: Number(process.env.PANX_WEB_PORT ?? 5173),
    proxy: {
      '^/(?!panx(?:/|$)|error/).*': { target: apiTarget, changeOrigin: true },
    },
  },
});
