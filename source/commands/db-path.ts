import {existsSync} from 'node:fs';
import {resolve} from 'node:path';
import {DEMO_DB} from '../services/demo.js';
import {openDb, type Db, type OpenMode} from '../store/db.js';
import {ensureDemo} from './demo.js';

/** `--db FILE`, else ./deltalens.db when it exists, else the bundled demo database. */
export function chooseDb(flag: string | undefined): {path: string; demo: boolean} {
  if (flag) return {path: resolve(flag), demo: resolve(flag) === DEMO_DB};
  const local = resolve('deltalens.db');
  if (existsSync(local)) return {path: local, demo: false};
  return {path: DEMO_DB, demo: true};
}

/**
 * The store a command works on, opened for what the command does:
 * - `read` and `write`: `--db FILE` (which must exist: a mistyped name is an error, exit 2,
 *   never a new empty store), else ./deltalens.db, else the demo database (built if needed);
 * - `create` (import, trace, questions import): `--db FILE`, else ./deltalens.db, made if absent.
 */
export async function openStore(
  dbFlag: string | undefined,
  mode: OpenMode,
): Promise<{db: Db; path: string; demo: boolean}> {
  const target =
    mode === 'create' ? {path: resolve(dbFlag ?? 'deltalens.db'), demo: false} : await ensureDemo(chooseDb(dbFlag));
  return {db: openDb(target.path, {mode}), ...target};
}

/** Runs fn on the store (see openStore) and closes it. */
export async function withDb(dbFlag: string | undefined, mode: OpenMode, fn: (db: Db) => number): Promise<number> {
  return withDbAsync(dbFlag, mode, async db => fn(db));
}

export async function withDbAsync(
  dbFlag: string | undefined,
  mode: OpenMode,
  fn: (db: Db) => Promise<number>,
): Promise<number> {
  const {db} = await openStore(dbFlag, mode);
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}
