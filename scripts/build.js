// Bundles the CLI into dist/ so a start loads a few files instead of hundreds (Ink alone is
// ~0.6 s of module loading). Runs on `npm install` (prepare); bin/deltalens.js falls back to
// the TypeScript sources through tsx when dist/ is missing or older than source/.
import {build} from 'esbuild';
import {rmSync} from 'node:fs';

// start clean: chunks of earlier builds must not linger
rmSync('dist', {recursive: true, force: true});

await build({
  entryPoints: ['source/cli.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'react-devtools-core'],
  banner: {
    js: "import {createRequire as __createRequire} from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
