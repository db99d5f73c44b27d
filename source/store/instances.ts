import type {InstanceFields} from '../core/trajectory/swe-bench-instance.js';
import type {Db} from './db.js';

/** A SWE-bench instance as stored: the record's fields plus the file it came from. */
export type InstanceRecord = InstanceFields & {sourcePath: string | null};

/** Creates a bare instance row for an id a trajectory names, keeping any richer record. */
export function ensureInstance(db: Db, id: string): void {
  db.prepare('INSERT INTO instance (id) VALUES (?) ON CONFLICT (id) DO NOTHING').run(id);
}

/** Fills an instance from a SWE-bench record; fields already known are kept when the record lacks them. */
export function upsertInstance(db: Db, record: InstanceRecord): 'added' | 'updated' | 'unchanged' {
  const before = db.prepare('SELECT * FROM instance WHERE id = ?').get(record.id) as Record<string, unknown> | undefined;
  const values = {
    id: record.id,
    repo: record.repo,
    base_commit: record.baseCommit,
    problem_statement: record.problemStatement,
    gold_patch: record.goldPatch,
    test_patch: record.testPatch,
    fail_to_pass: record.failToPass,
    pass_to_pass: record.passToPass,
    difficulty: record.difficulty,
    source_path: record.sourcePath,
  };
  if (before && Object.entries(values).every(([key, value]) => value === null || before[key] === value || key === 'source_path')) {
    return 'unchanged';
  }
  db.prepare(
    `INSERT INTO instance (id, repo, base_commit, problem_statement, gold_patch, test_patch, fail_to_pass, pass_to_pass, difficulty, source_path)
     VALUES (@id, @repo, @base_commit, @problem_statement, @gold_patch, @test_patch, @fail_to_pass, @pass_to_pass, @difficulty, @source_path)
     ON CONFLICT (id) DO UPDATE SET
       repo = coalesce(excluded.repo, repo), base_commit = coalesce(excluded.base_commit, base_commit),
       problem_statement = coalesce(excluded.problem_statement, problem_statement),
       gold_patch = coalesce(excluded.gold_patch, gold_patch), test_patch = coalesce(excluded.test_patch, test_patch),
       fail_to_pass = coalesce(excluded.fail_to_pass, fail_to_pass), pass_to_pass = coalesce(excluded.pass_to_pass, pass_to_pass),
       difficulty = coalesce(excluded.difficulty, difficulty), source_path = coalesce(excluded.source_path, source_path)`,
  ).run(values);
  return before ? 'updated' : 'added';
}

/** The issue text of an instance, when a record gave one. */
export function problemStatement(db: Db, id: string): string | null {
  return (db.prepare('SELECT problem_statement FROM instance WHERE id = ?').pluck().get(id) as string | null | undefined) ?? null;
}
