import Database from 'better-sqlite3';
import {createHash} from 'node:crypto';
import {readdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {packageRoot} from '../package-root.js';

export type Db = Database.Database;

export const MIGRATIONS_DIR = join(packageRoot(), 'db');

export interface OpenOptions {
  readonly?: boolean;
  migrationsDir?: string;
}

/**
 * One connection per process: WAL so readers never block the writer, foreign keys on, and a
 * busy timeout so two processes writing the same file wait for each other instead of failing.
 */
export function openDb(file: string, options: OpenOptions = {}): Db {
  const db = new Database(file, {readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false});
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db, options.migrationsDir ?? MIGRATIONS_DIR);
  }
  return db;
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir: string): Migration[] {
  const files = readdirSync(dir).filter(file => /^\d{3}_[\w-]+\.sql$/.test(file)).sort();
  return files.map(file => {
    const sql = readFileSync(join(dir, file), 'utf8');
    return {version: Number(file.slice(0, 3)), name: file, sql, checksum: createHash('sha256').update(sql).digest('hex')};
  });
}

export class MigrationError extends Error {}

/** Applies `db/NNN_name.sql` in order, each in its own transaction; refuses edited history. */
export function migrate(db: Db, dir: string): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migration (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL,
    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`);
  const applied = new Map(
    (db.prepare('SELECT version, name, checksum FROM schema_migration').all() as {version: number; name: string; checksum: string}[]).map(
      row => [row.version, row],
    ),
  );
  const ran: string[] = [];
  const migrations = readMigrations(dir);
  const newest = migrations.at(-1)?.version ?? 0;
  for (const version of applied.keys()) {
    if (version > newest) {
      throw new MigrationError(
        `database was written by a newer deltalens (migration ${applied.get(version)!.name} is not known to this version)`,
      );
    }
  }
  for (const migration of migrations) {
    const done = applied.get(migration.version);
    if (done) {
      if (done.checksum !== migration.checksum) {
        throw new MigrationError(
          `migration ${migration.name} was edited after it was applied to this database; add a new migration instead`,
        );
      }
      continue;
    }
    db.transaction(() => {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migration (version, name, checksum) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        migration.checksum,
      );
    })();
    ran.push(migration.name);
  }
  return ran;
}
