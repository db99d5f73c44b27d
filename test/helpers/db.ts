import {join} from 'node:path';
import {openDb, type Db} from '../../source/store/db.js';
import {importPaths, type ImportOptions, type ImportReport} from '../../source/services/importer.js';
import {tempDir} from './files.js';

export function freshDb(): {db: Db; path: string} {
  const path = join(tempDir(), 'test.db');
  return {db: openDb(path), path};
}

export function importInto(db: Db, paths: string[], options: Partial<ImportOptions> = {}): ImportReport {
  return importPaths(db, paths, {format: 'auto', maxBytes: 100 * 1024 * 1024, ...options});
}

/** Every row of every table, for "the database is exactly as it was" assertions. */
export function snapshot(db: Db): Record<string, unknown[]> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as {name: string}[];
  return Object.fromEntries(tables.map(({name}) => [name, db.prepare(`SELECT * FROM "${name}"`).all()]));
}
