import {existsSync, readFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

/** The checkout's root, found from this file whether it runs from source/ or from the dist/ bundle. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as {name?: string}).name === 'deltalens')
      return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('deltalens: cannot find the package root (package.json) above this file');
    dir = parent;
  }
}
