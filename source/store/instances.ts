import type {InstanceRow} from '../core/instances/record.js';
import type {InstanceFields} from '../core/trajectory/swe-bench-instance.js';
import type {Db} from './db.js';

/** A SWE-bench instance as stored: the record's fields plus the file it came from. */
type InstanceRecord = InstanceFields & {sourcePath: string | null};

/** Creates a bare instance row for an id a trajectory names, keeping any richer record. */
export function ensureInstance(db: Db, id: string): void {
  db.prepare('INSERT INTO instance (id) VALUES (?) ON CONFLICT (id) DO NOTHING').run(id);
}

/** Fills an instance from a SWE-bench record; fields already known are kept when the record lacks them. */
export function upsertInstance(db: Db, record: InstanceRecord): 'added' | 'updated' | 'unchanged' {
  const before = db.prepare('SELECT * FROM instance WHERE id = ?').get(record.id) as
    | Record<string, unknown>
    | undefined;
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
  if (
    before &&
    Object.entries(values).every(([key, value]) => value === null || before[key] === value || key === 'source_path')
  ) {
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
  return (
    (db.prepare('SELECT problem_statement FROM instance WHERE id = ?').pluck().get(id) as string | null | undefined) ??
    null
  );
}

/** Stores a whole dataset row (every field of it replaces what was known). */
export function saveInstanceRow(db: Db, row: InstanceRow, sourcePath: string): 'added' | 'updated' | 'unchanged' {
  const values = {
    id: row.id,
    repo: row.repo,
    base_commit: row.baseCommit,
    problem_statement: row.problemStatement,
    gold_patch: row.goldPatch,
    test_patch: row.testPatch,
    fail_to_pass: JSON.stringify(row.failToPass),
    pass_to_pass: JSON.stringify(row.passToPass),
    hints_text: row.hintsText,
    version: row.version,
    environment_setup_commit: row.environmentSetupCommit,
    created_at: row.createdAt,
    record: JSON.stringify(row.record),
  };
  const before = db.prepare('SELECT * FROM instance WHERE id = ?').get(row.id) as Record<string, unknown> | undefined;
  if (before && Object.entries(values).every(([key, value]) => before[key] === value)) return 'unchanged';
  db.prepare(
    `INSERT INTO instance (id, repo, base_commit, problem_statement, gold_patch, test_patch, fail_to_pass, pass_to_pass, hints_text, version,
       environment_setup_commit, created_at, record, source_path, imported_at)
     VALUES (@id, @repo, @base_commit, @problem_statement, @gold_patch, @test_patch, @fail_to_pass, @pass_to_pass, @hints_text, @version,
       @environment_setup_commit, @created_at, @record, @source_path, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
     ON CONFLICT (id) DO UPDATE SET
       repo = excluded.repo, base_commit = excluded.base_commit, problem_statement = excluded.problem_statement,
       gold_patch = excluded.gold_patch, test_patch = excluded.test_patch, fail_to_pass = excluded.fail_to_pass,
       pass_to_pass = excluded.pass_to_pass, hints_text = excluded.hints_text, version = excluded.version,
       environment_setup_commit = excluded.environment_setup_commit, created_at = excluded.created_at,
       record = excluded.record, source_path = excluded.source_path, imported_at = excluded.imported_at`,
  ).run({...values, source_path: sourcePath});
  return before ? 'updated' : 'added';
}

export interface InstanceSummary {
  id: string;
  repo: string | null;
  baseCommit: string | null;
  version: string | null;
  createdAt: string | null;
  failToPass: string[];
  passToPass: string[];
  /** a full dataset row is stored (not only an id a trajectory named) */
  hasRecord: boolean;
  runs: number;
  pairs: number;
  questions: number;
}

const list = (text: unknown): string[] => {
  if (typeof text !== 'string') return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};

/** Every instance with how many runs, traced pairs and questions it has. */
export function listInstances(db: Db, o: {withRecordOnly?: boolean} = {}): InstanceSummary[] {
  const rows = db
    .prepare(
      `SELECT i.id, i.repo, i.base_commit, i.version, i.created_at, i.fail_to_pass, i.pass_to_pass, i.record IS NOT NULL OR i.base_commit IS NOT NULL AS has_record,
         (SELECT count(*) FROM trajectory t WHERE t.instance = i.id) AS runs,
         (SELECT count(*) FROM trace_pair p WHERE p.instance = i.id) AS pairs,
         (SELECT count(*) FROM question q WHERE q.instance = i.id) AS questions
       FROM instance i ${o.withRecordOnly ? 'WHERE i.record IS NOT NULL OR i.base_commit IS NOT NULL' : ''} ORDER BY i.id`,
    )
    .all() as Record<string, unknown>[];
  return rows.map(r =>
    summaryOf(r, {runs: r.runs as number, pairs: r.pairs as number, questions: r.questions as number}),
  );
}

/** An instance row's summary fields, with its counts. */
function summaryOf(
  r: Record<string, unknown>,
  counts: {runs: number; pairs: number; questions: number},
): InstanceSummary {
  return {
    id: r.id as string,
    repo: (r.repo as string | null) ?? null,
    baseCommit: (r.base_commit as string | null) ?? null,
    version: (r.version as string | null) ?? null,
    createdAt: (r.created_at as string | null) ?? null,
    failToPass: list(r.fail_to_pass),
    passToPass: list(r.pass_to_pass),
    hasRecord: r.has_record === 1,
    ...counts,
  };
}

export interface InstanceDetail extends InstanceSummary {
  problemStatement: string | null;
  hintsText: string | null;
  goldPatch: string | null;
  testPatch: string | null;
  environmentSetupCommit: string | null;
  sourcePath: string | null;
  importedAt: string | null;
  /** the dataset row as given, when one was imported */
  record: unknown;
}

export function getInstance(db: Db, id: string): InstanceDetail | null {
  const r = db
    .prepare('SELECT *, record IS NOT NULL OR base_commit IS NOT NULL AS has_record FROM instance WHERE id = ?')
    .get(id) as Record<string, unknown> | undefined;
  if (!r) return null;
  const counts = db
    .prepare(
      `SELECT (SELECT count(*) FROM trajectory WHERE instance = @id) AS runs, (SELECT count(*) FROM trace_pair WHERE instance = @id) AS pairs,
         (SELECT count(*) FROM question WHERE instance = @id) AS questions`,
    )
    .get({id}) as {runs: number; pairs: number; questions: number};
  let record: unknown = null;
  try {
    record = typeof r.record === 'string' ? JSON.parse(r.record) : null;
  } catch {
    record = null;
  }
  return {
    ...summaryOf(r, counts),
    problemStatement: (r.problem_statement as string | null) ?? null,
    hintsText: (r.hints_text as string | null) ?? null,
    goldPatch: (r.gold_patch as string | null) ?? null,
    testPatch: (r.test_patch as string | null) ?? null,
    environmentSetupCommit: (r.environment_setup_commit as string | null) ?? null,
    sourcePath: (r.source_path as string | null) ?? null,
    importedAt: (r.imported_at as string | null) ?? null,
    record,
  };
}
