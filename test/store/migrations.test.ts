import {copyFileSync, mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {MIGRATIONS_DIR, migrate, MigrationError, openDb, readMigrations} from '../../source/store/db.js';
import {tempDir} from '../helpers/files.js';

/** A copy of db/ (or of its first `upTo` migrations, to make an old database) plus extra files. */
function migrationsDir(extra: Record<string, string> = {}, upTo = Infinity): string {
  const dir = join(tempDir(), 'db');
  mkdirSync(dir);
  for (const m of readMigrations(MIGRATIONS_DIR).filter(m => m.version <= upTo))
    copyFileSync(join(MIGRATIONS_DIR, m.name), join(dir, m.name));
  for (const [name, sql] of Object.entries(extra)) writeFileSync(join(dir, name), sql);
  return dir;
}

describe('migration runner', () => {
  it('creates the whole data model with WAL and foreign keys on', () => {
    const db = openDb(join(tempDir(), 'a.db'));
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {name: string}[]).map(
      t => t.name,
    );
    for (const table of [
      'instance',
      'agent',
      'trajectory',
      'step',
      'explanation',
      'program_version',
      'test',
      'test_run',
      'trace',
      'frame',
      'trace_step',
      'delta',
      'question',
      'choice',
      'qa_answer',
      'annotation',
      'adjudication',
      'question_flag',
      'lens_build',
      'lens_score',
      'stage_annotation',
      'reasoning_tag',
    ]) {
      expect(tables).toContain(table);
    }
    expect(db.pragma('journal_mode', {simple: true})).toBe('wal');
    expect(db.pragma('foreign_keys', {simple: true})).toBe(1);
    expect(() => db.prepare('INSERT INTO step (trajectory, idx) VALUES (999, 0)').run()).toThrow(/FOREIGN KEY/);
    db.close();
  });

  it('upgrades an old database in order, keeps its data, and records each migration once', () => {
    const path = join(tempDir(), 'old.db');
    const old = openDb(path, {migrationsDir: migrationsDir({}, 1)}); // as the first release left it
    old.prepare("INSERT INTO instance (id) VALUES ('x__y-1')").run();
    old.close();

    const dir = migrationsDir({
      '901_add_note.sql': 'ALTER TABLE instance ADD COLUMN note TEXT;',
      '902_fill_note.sql': "UPDATE instance SET note = 'from 902';",
    });
    const db = openDb(path, {migrationsDir: dir});
    expect(db.prepare('SELECT id, note FROM instance').all()).toEqual([{id: 'x__y-1', note: 'from 902'}]);
    const names = (db.prepare('SELECT name FROM schema_migration ORDER BY version').all() as {name: string}[]).map(
      r => r.name,
    );
    expect(names).toEqual([
      ...readMigrations(MIGRATIONS_DIR).map(m => m.name),
      '901_add_note.sql',
      '902_fill_note.sql',
    ]);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'trajectory_agent_id'").get()).toEqual({
      n: 1,
    }); // 002 ran on the old file
    expect(migrate(db, dir)).toEqual([]); // nothing runs twice
    db.close();
  });

  it('rolls back a failing migration completely', () => {
    const path = join(tempDir(), 'fail.db');
    openDb(path, {migrationsDir: migrationsDir()}).close();
    const dir = migrationsDir({'901_broken.sql': 'CREATE TABLE half (id INTEGER);\nINSERT INTO nowhere VALUES (1);'});
    expect(() => openDb(path, {migrationsDir: dir})).toThrow(/no such table: nowhere/);
    const db = openDb(path, {migrationsDir: migrationsDir()});
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'").get()).toEqual({n: 0});
    db.close();
  });

  it('refuses a migration edited after it was applied, and a database from a newer version', () => {
    const path = join(tempDir(), 'edited.db');
    openDb(path, {migrationsDir: migrationsDir({'901_a.sql': 'CREATE TABLE a (id INTEGER);'})}).close();
    expect(() =>
      openDb(path, {migrationsDir: migrationsDir({'901_a.sql': 'CREATE TABLE a (id INTEGER, b TEXT);'})}),
    ).toThrow(MigrationError);
    expect(() => openDb(path, {migrationsDir: migrationsDir()})).toThrow(/newer deltalens/);
  });
});
