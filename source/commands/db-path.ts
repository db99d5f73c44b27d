import {existsSync} from 'node:fs';
import {resolve} from 'node:path';
import {DEMO_DB} from '../services/demo.js';

/** `--db FILE`, else ./deltalens.db when it exists, else the bundled demo database. */
export function chooseDb(flag: string | undefined): {path: string; demo: boolean} {
  if (flag) return {path: resolve(flag), demo: resolve(flag) === DEMO_DB};
  const local = resolve('deltalens.db');
  if (existsSync(local)) return {path: local, demo: false};
  return {path: DEMO_DB, demo: true};
}
