import {existsSync} from 'node:fs';
import {resolve} from 'node:path';
import {DEMO_DB} from '../services/demo.js';
import {openDb, type Db} from '../store/db.js';
import {ensureDemo} from './demo.js';

/** `--db FILE`, else ./deltalens.db when it exists, else the bundled demo database. */
export function chooseDb(flag: string | undefined): {path: string; demo: boolean} {
  if (flag) return {path: resolve(flag), demo: resolve(flag) === DEMO_DB};
  const local = resolve('deltalens.db');
  if (existsSync(local)) return {path: local, demo: false};
  return {path: DEMO_DB, demo: true};
}

/** Runs fn on the database of `--db FILE` (or the demo, built if needed) and closes it. */
export async function withDb(dbFlag: string | undefined, fn: (db: Db) => number): Promise<number> {
  return withDbAsync(dbFlag, async db => fn(db));
}

export async function withDbAsync(dbFlag: string | undefined, fn: (db: Db) => Promise<number>): Promise<number> {
  const target = dbFlag ? {path: resolve(dbFlag)} : await ensureDemo(chooseDb(undefined));
  const db = openDb(target.path);
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}
