#!/usr/bin/env node
import {existsSync, readdirSync, statSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';

// chalk (under Ink) ignores NO_COLOR; map it before anything imports it.
if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') process.env.FORCE_COLOR = '0';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = join(root, 'dist', 'cli.js');

/** The bundle (built by `npm install`) unless a source file changed after it was built. */
function bundleIsFresh() {
  if (process.env.DELTALENS_FROM_SOURCE || !existsSync(bundle)) return false;
  const built = statSync(bundle).mtimeMs;
  const newer = dir =>
    readdirSync(dir, {withFileTypes: true}).some(entry =>
      entry.isDirectory() ? newer(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs > built,
    );
  return !newer(join(root, 'source'));
}

let main;
if (bundleIsFresh()) {
  ({main} = await import(bundle));
} else {
  const {register} = await import('tsx/esm/api');
  // the project's tsconfig (its JSX runtime), wherever deltalens is started from
  register({tsconfig: join(root, 'tsconfig.json')});
  ({main} = await import('../source/cli.ts'));
}
process.exitCode = await main(process.argv.slice(2));
