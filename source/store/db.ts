import Database from 'better-sqlite3';
import {createHash} from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statfsSync,
  statSync,
} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {packageRoot} from '../package-root.js';

export type Db = Database.Database;

export const MIGRATIONS_DIR = join(packageRoot(), 'db');

/**
 * - `create`: the file may be absent (a new store is made) — import, trace, questions import.
 * - `write`: the store must exist — score, annotate, lens build.
 * - `read`: the store must exist; when this process cannot write it (a shared, write-protected
 *   store) it is opened read-only, so it can still be listed and explored.
 */
export type OpenMode = 'create' | 'write' | 'read';

interface OpenOptions {
  mode?: OpenMode;
  /** kept for callers that only read: the same as mode 'read' */
  readonly?: boolean;
  migrationsDir?: string;
}

/**
 * `--db` points at something deltalens must not open or change: a folder, a file that is not
 * SQLite, another application's database, a missing file for a command that only reads.
 * `usage` errors exit 2 (the command line named the wrong file).
 */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly usage = true,
  ) {
    super(message);
  }
}

export class MigrationError extends StoreError {
  constructor(message: string) {
    super(message, false);
  }
}

/** How long a statement waits for another process's write to finish before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 60_000;

const SQLITE_MAGIC = 'SQLite format 3\0';

/**
 * One connection per process: WAL so readers never block the writer, foreign keys on, and a
 * busy timeout so two processes writing the same file wait for each other instead of failing.
 *
 * Nothing is written before the file is known to be ours: a folder, a non-SQLite file,
 * another application's database and a store from a newer deltalens are refused by looking
 * (through a read-only connection) before the WAL switch or any table is made.
 */
export function openDb(file: string, options: OpenOptions = {}): Db {
  const mode: OpenMode = options.mode ?? (options.readonly ? 'read' : 'create');
  const dir = options.migrationsDir ?? MIGRATIONS_DIR;
  const migrations = readMigrations(dir);
  const found = inspect(file, migrations);
  if (found.kind === 'absent' && mode !== 'create') {
    throw new StoreError(`no database at ${file} (import something first, or give --db FILE)`);
  }
  if (mode === 'read' && found.kind !== 'store') {
    throw new StoreError(`${file} is an empty database: nothing to read (import something first)`);
  }
  if (mode === 'read' && !writable(file)) {
    if (found.kind === 'store' && found.pending.length) {
      throw new StoreError(
        `${file} was made by an older deltalens and needs ${found.pending.length} migration(s), but it is read-only here: open it once where it can be written`,
        false,
      );
    }
    return openReadOnly(file);
  }
  const made = found.kind === 'absent';
  if (made && !existsSync(dirname(file)))
    throw new StoreError(`cannot create the database ${file}: the folder ${dirname(file)} does not exist`);
  let db: Db;
  try {
    db = new Database(file, {fileMustExist: mode !== 'create'});
  } catch (error) {
    throw openProblem(error, file, made) ?? error;
  }
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('foreign_keys = ON');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db, dir);
  } catch (error) {
    db.close();
    // a store this call made and could not finish is not left behind (an empty file, its journal)
    if (made) for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(file + suffix, {force: true});
    // a command that only reads can still read a store on a full disk: from a private copy
    if (mode === 'read' && found.kind === 'store' && !found.pending.length && diskFull(file)) {
      try {
        return openReadOnly(file, true);
      } catch {
        /* said below */
      }
    }
    throw openProblem(error, file, made) ?? error;
  }
  return db;
}

/** Free bytes on the file system holding `path` (null when it cannot be told). */
function freeBytes(path: string): number | null {
  try {
    const s = statfsSync(dirname(path));
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

/** SQLite needs room for its journal files beside the database, even to read a WAL store. */
const diskFull = (file: string) => (freeBytes(file) ?? 1) < 64 * 1024;

/**
 * What SQLite's "unable to open database file" and "disk I/O error" mean for this file, in a
 * line that names the cause: a folder that is missing or cannot be written, a file that cannot be
 * written, a full disk. Null when it is none of these.
 */
function openProblem(error: unknown, file: string, made: boolean): StoreError | null {
  const code = (error as {code?: string}).code ?? '';
  if (!/^SQLITE_(CANTOPEN|IOERR|READONLY|FULL)/.test(code)) return null;
  const dir = dirname(file);
  if (!existsSync(dir))
    return new StoreError(`cannot ${made ? 'create' : 'open'} the database ${file}: the folder ${dir} does not exist`);
  if (diskFull(file))
    return new StoreError(
      `cannot ${made ? 'create' : 'open'} the database ${file}: the disk holding ${dir} is full (SQLite needs room for its journal files beside the database); free some space`,
      false,
    );
  const can = (path: string) => {
    try {
      accessSync(path, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (!can(dir))
    return new StoreError(
      `cannot ${made ? 'create' : 'write'} the database ${file}: the folder ${dir} is not writable by this user (give --db a file in a writable folder)`,
    );
  if (existsSync(file) && !can(file))
    return new StoreError(`cannot write the database ${file}: the file is read-only for this user`);
  return null;
}

/** Runs `fn` in an immediate transaction: it takes the write lock at BEGIN (waiting on the busy
 * timeout), so it never fails half-way when another process wrote since it started reading. */
export function writeTx<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}

/**
 * A write transaction held open across callbacks (a streamed import writes one trajectory's
 * steps as they are read): begin, then commit or roll back. writeTx is the usual form.
 */
export const streamTx = {
  begin: (db: Db): void => void db.exec('BEGIN IMMEDIATE'),
  commit: (db: Db): void => void db.exec('COMMIT'),
  /** rolls back the open transaction, if there is one */
  rollback: (db: Db): void => {
    if (db.inTransaction) db.exec('ROLLBACK');
  },
};

/** Folds the write-ahead log into the database file (a store about to be moved or shipped). */
export function checkpoint(db: Db): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
}

type Found = {kind: 'absent'} | {kind: 'empty'} | {kind: 'store'; pending: Migration[]};

/** Looks at `file` without changing it: what it is, and which of our migrations it lacks. */
function inspect(file: string, migrations: Migration[] = readMigrations(MIGRATIONS_DIR)): Found {
  if (!existsSync(file)) return {kind: 'absent'};
  const stat = statSync(file);
  if (stat.isDirectory())
    throw new StoreError(`${file} is a folder, not a database file (give --db FOLDER/deltalens.db)`);
  if (!stat.isFile()) throw new StoreError(`${file} is not a regular file`);
  if (stat.size === 0) return {kind: 'empty'};
  const head = Buffer.alloc(16);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') !== SQLITE_MAGIC)
    throw new StoreError(`${file} is not a SQLite database; deltalens will not change it`);
  const db = openReadOnly(file);
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .pluck()
      .all() as string[];
    if (tables.length === 0) return {kind: 'empty'};
    const foreign = `${file} is not a deltalens database (it holds ${tables.length} other table${tables.length === 1 ? '' : 's'}: ${tables.slice(0, 4).join(', ')}${tables.length > 4 ? ', …' : ''}); deltalens will not change it — give another --db`;
    if (!tables.includes('schema_migration')) throw new StoreError(foreign);
    let applied: {version: number; name: string; checksum: string}[];
    try {
      applied = db
        .prepare('SELECT version, name, checksum FROM schema_migration ORDER BY version')
        .all() as typeof applied;
    } catch {
      throw new StoreError(foreign);
    }
    const first = migrations[0];
    const ours = applied.find(m => m.version === first?.version);
    if (!first || !ours || ours.name !== first.name || ours.checksum !== first.checksum) throw new StoreError(foreign);
    const newest = migrations.at(-1)?.version ?? 0;
    const ahead = applied.find(m => m.version > newest);
    if (ahead)
      throw new MigrationError(
        `${file} was written by a newer deltalens (migration ${ahead.name} is not known to this version); update deltalens to open it`,
      );
    const done = new Set(applied.map(m => m.version));
    return {kind: 'store', pending: migrations.filter(m => !done.has(m.version))};
  } finally {
    db.close();
  }
}

/** Whether this process may write the store (root may write a 0444 file; SQLite may too). */
function writable(file: string): boolean {
  const can = (path: string) => {
    try {
      accessSync(path, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  return can(file) && (can(dirname(file)) || (existsSync(`${file}-wal`) && can(`${file}-wal`) && can(`${file}-shm`)));
}

const copies: string[] = [];

/**
 * A read-only connection. A WAL store in a folder that cannot be written cannot be read in
 * place (SQLite needs its -shm file beside it), so that case reads a private copy, removed on
 * exit.
 */
function openReadOnly(file: string, copy = false): Db {
  if (!copy) {
    const db = new Database(file, {readonly: true, fileMustExist: true});
    try {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.prepare('SELECT count(*) FROM sqlite_master').get();
      return db;
    } catch (error) {
      db.close();
      const code = (error as {code?: string}).code ?? '';
      if (
        code !== 'SQLITE_READONLY_DIRECTORY' &&
        code !== 'SQLITE_CANTOPEN' &&
        !(code.startsWith('SQLITE_IOERR') && diskFull(file))
      )
        throw error;
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'deltalens-readonly-'));
  if (!copies.length) process.on('exit', () => copies.forEach(d => rmSync(d, {recursive: true, force: true})));
  copies.push(dir);
  const copied = join(dir, 'store.db');
  copyFileSync(file, copied);
  for (const suffix of ['-wal']) if (existsSync(file + suffix)) copyFileSync(file + suffix, copied + suffix);
  return new Database(copied, {readonly: true, fileMustExist: true});
}

interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir: string): Migration[] {
  const files = readdirSync(dir)
    .filter(file => /^\d{3}_[\w-]+\.sql$/.test(file))
    .sort();
  return files.map(file => {
    const sql = readFileSync(join(dir, file), 'utf8');
    return {
      version: Number(file.slice(0, 3)),
      name: file,
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    };
  });
}

/**
 * Applies `db/NNN_name.sql` in order, each in its own immediate transaction (two processes
 * opening an old store at once: the second waits, then finds the migration applied); refuses
 * edited history.
 */
export function migrate(db: Db, dir: string): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migration (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL,
    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`);
  const appliedNow = () =>
    new Map(
      (
        db.prepare('SELECT version, name, checksum FROM schema_migration').all() as {
          version: number;
          name: string;
          checksum: string;
        }[]
      ).map(row => [row.version, row]),
    );
  const ran: string[] = [];
  const migrations = readMigrations(dir);
  const newest = migrations.at(-1)?.version ?? 0;
  for (const [version, row] of appliedNow()) {
    if (version > newest) {
      throw new MigrationError(
        `database was written by a newer deltalens (migration ${row.name} is not known to this version)`,
      );
    }
  }
  for (const migration of migrations) {
    const ranHere = writeTx(db, () => {
      const done = appliedNow().get(migration.version);
      if (done) {
        if (done.checksum !== migration.checksum) {
          throw new MigrationError(
            `migration ${migration.name} was edited after it was applied to this database; add a new migration instead`,
          );
        }
        return false;
      }
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migration (version, name, checksum) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        migration.checksum,
      );
      return true;
    });
    if (ranHere) ran.push(migration.name);
  }
  return ran;
}
