/**
 * `--db` never damages a file that is not ours, and never makes a store where the user only
 * wanted to read one. Through the real CLI, with byte-for-byte checks of the files.
 */
import Database from 'better-sqlite3';
import {spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {MigrationError, openDb, StoreError} from '../../source/store/db.js';
import {importInto} from '../helpers/db.js';
import {ROOT, SAMPLES, tempDir} from '../helpers/files.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');

function run(args: string[], cwd = tempDir()) {
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}});
  return {code: r.status, stdout: r.stdout, stderr: r.stderr};
}

const hash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
/** Bytes 18–19 of a SQLite header: 1 = rollback journal, 2 = WAL. */
const journalByte = (file: string) => readFileSync(file)[18];

function storeWithRuns(): string {
  const path = join(tempDir(), 'store.db');
  const db = openDb(path);
  importInto(db, [join(SAMPLES, 'mini-swe-agent', 'django__django-11099.traj.json')]);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return path;
}

describe('a file that is not a deltalens store', () => {
  it("another application's SQLite database is refused unchanged: no tables added, no WAL switch, no -wal file", () => {
    const file = join(tempDir(), 'app.db');
    const other = new Database(file);
    other.exec(
      "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE orders (id INTEGER); INSERT INTO users (name) VALUES ('ada')",
    );
    other.close();
    const before = hash(file);
    expect(journalByte(file)).toBe(1);
    for (const args of [
      ['import', join(SAMPLES, 'openhands'), '--db', file],
      ['trajectories', '--db', file],
      ['score', '--db', file],
      ['trace', '--test', 't', '--buggy-dir', '.', '--patched-dir', '.', '--db', file],
    ]) {
      const r = run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /is not a deltalens database \(it holds 2 other tables: orders, users\); deltalens will not change it/,
      );
    }
    expect(hash(file)).toBe(before);
    expect(journalByte(file)).toBe(1);
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(() => openDb(file)).toThrow(StoreError);
  });

  it('a store written by a newer deltalens is refused before anything is written', () => {
    const file = storeWithRuns();
    const db = new Database(file);
    db.pragma('journal_mode = DELETE');
    db.prepare("INSERT INTO schema_migration (version, name, checksum) VALUES (999, '999_future.sql', 'x')").run();
    db.close();
    const before = hash(file);
    expect(() => openDb(file)).toThrow(MigrationError);
    const r = run(['trajectories', '--db', file]);
    expect(r).toMatchObject({code: 1});
    expect(r.stderr).toMatch(/written by a newer deltalens \(migration 999_future\.sql/);
    expect(hash(file)).toBe(before);
    expect(journalByte(file)).toBe(1); // still not WAL
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('a text file, a folder and a mistyped name: one line each, exit 2, nothing created', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.db'), 'not sqlite\n');
    expect(run(['trajectories', '--db', join(dir, 'notes.db')])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/notes\.db is not a SQLite database; deltalens will not change it\n$/),
    });
    expect(readFileSync(join(dir, 'notes.db'), 'utf8')).toBe('not sqlite\n');
    expect(run(['import', join(SAMPLES, 'openhands'), '--db', dir])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/is a folder, not a database file/),
    });
    const reads = [
      ['trajectories'],
      ['show', 'trajectory', '1'],
      ['traces'],
      ['delta', '1', '2'],
      ['report'],
      ['lens', 'report'],
      ['questions', 'list'],
      ['explanations', 'list'],
      ['agreement'],
      ['flags'],
      ['annotations', 'export'],
      ['score'],
      ['lens', 'build'],
    ];
    for (const args of reads) {
      const missing = join(dir, 'typo.db');
      const r = run([...args, '--db', missing]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toBe(`deltalens: no database at ${missing} (import something first, or give --db FILE)\n`);
      expect(existsSync(missing), args.join(' ')).toBe(false);
    }
  });

  it('user errors are one line, never a stack trace', () => {
    const dir = tempDir();
    const r = run(['questions', 'import', join(dir, 'missing.jsonl'), '--db', join(dir, 'q.db')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`deltalens: ${join(dir, 'missing.jsonl')}: no such file or directory\n`);
    expect(existsSync(join(dir, 'q.db'))).toBe(false);
    const folder = run(['questions', 'import', dir, '--db', join(dir, 'q.db')]);
    expect(folder.stderr.trim().split('\n')).toHaveLength(1);
    expect(folder.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a read-only store', () => {
  const root = process.getuid?.() === 0;
  const setpriv = spawnSync('setpriv', ['--version']).status === 0;
  it.skipIf(root && !setpriv)(
    'is listed and shown by someone who cannot write it or its folder (opened read-only, nothing written)',
    () => {
      const dir = join(tempDir(), 'shared');
      mkdirSync(dir);
      const file = join(dir, 'store.db');
      copyFileSync(storeWithRuns(), file);
      chmodSync(file, 0o444);
      chmodSync(dir, 0o555);
      chmodSync(join(dir, '..'), 0o755);
      const before = hash(file);
      // root writes whatever the modes say: the reader is "nobody"
      const as = root
        ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath]
        : [process.execPath];
      const r = spawnSync(as[0]!, [...as.slice(1), BIN, 'trajectories', '--json', '--db', file], {
        encoding: 'utf8',
        cwd: '/',
        env: {...process.env, HOME: '/nonexistent'},
      });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout).total).toBe(1);
      const show = spawnSync(as[0]!, [...as.slice(1), BIN, 'show', 'trajectory', '1', '--db', file], {
        encoding: 'utf8',
        cwd: '/',
        env: {...process.env, HOME: '/nonexistent'},
      });
      expect(show.status).toBe(0);
      expect(show.stdout).toContain('django__django-11099');
      expect(hash(file)).toBe(before);
      chmodSync(dir, 0o755);
    },
  );
});
