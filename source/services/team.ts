/**
 * A team's human work on one PostgreSQL server (`--team postgres://…` or $DELTALENS_TEAM): people's
 * labels, adjudications and question flags. The heavy data (runs, traces, questions,
 * explanations) stays in each person's own store, imported from the same sources; the server holds
 * only the human work, keyed by what every store agrees on — the question id, the explanation's
 * content hash, the person.
 *
 * Every write goes to the local store first (as without a team). A sync sends every local label,
 * adjudication and flag to the server and brings everyone's back into the local store — the
 * newer of two writes of one key wins on both ends — so a server that is down loses nothing: the
 * next sync sends what is waiting. Agreement, conflicts, adjudication and flags then work on the
 * local store as they always do, with the whole team's labels in it.
 */
import {createHash} from 'node:crypto';
import {readdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import pg from 'pg';
import {packageRoot} from '../package-root.js';
import {writeTx, type Db} from '../store/db.js';

const TEAM_MIGRATIONS_DIR = join(packageRoot(), 'db', 'team');
const CONNECT_TIMEOUT_MS = 5000;

/** The server cannot be reached or refused us: one line, nothing lost. */
export class TeamUnavailable extends Error {}

/** --team, else $DELTALENS_TEAM; undefined: no team. */
export function teamUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = flag ?? env.DELTALENS_TEAM;
  return url?.trim() ? url.trim() : undefined;
}

/** The URL as it may be shown: without its password. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(a URL that does not parse)';
  }
}

/** An explanation as every store knows it: the hash of its instance, agent, kind and text (or, without text, its source). */
function explanationKeys(db: Db): {byId: Map<number, string>; byKey: Map<string, number>} {
  const rows = db
    .prepare(
      `SELECT e.id, e.instance, a.name AS agent, e.kind, e.text, e.source FROM explanation e LEFT JOIN agent a ON a.id = e.agent`,
    )
    .all() as {
    id: number;
    instance: string | null;
    agent: string | null;
    kind: string;
    text: string | null;
    source: string | null;
  }[];
  const byId = new Map<number, string>();
  const byKey = new Map<string, number>();
  for (const r of rows) {
    const key = createHash('sha256')
      .update(JSON.stringify([r.instance, r.agent, r.kind, r.text ?? `source:${r.source ?? ''}`]))
      .digest('hex');
    byId.set(r.id, key);
    byKey.set(key, r.id);
  }
  return {byId, byKey};
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS});
  // an error after connecting (the server stopped) is thrown by the query that meets it
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    const code = (error as {code?: string}).code;
    throw new TeamUnavailable(
      `the team server ${shownUrl(url)} cannot be reached (${code ?? (error as Error).message.split('\n')[0]})`,
    );
  }
  return client;
}

/** The server's migrations, in order, once (an advisory lock keeps two first starts apart). */
async function migrate(client: pg.Client, dir = TEAM_MIGRATIONS_DIR): Promise<string[]> {
  await client.query('SELECT pg_advisory_lock(80171)');
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS team_migration (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const applied = new Map(
      (await client.query<{name: string; checksum: string}>('SELECT name, checksum FROM team_migration')).rows.map(
        r => [r.name, r.checksum],
      ),
    );
    const ran: string[] = [];
    for (const name of readdirSync(dir)
      .filter(f => /^\d+_.*\.sql$/.test(f))
      .sort()) {
      const sql = readFileSync(join(dir, name), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const before = applied.get(name);
      if (before !== undefined) {
        if (before !== checksum)
          throw new TeamUnavailable(
            `the team server's migration ${name} differs from this deltalens's (another version?)`,
          );
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO team_migration (name, checksum) VALUES ($1, $2)', [name, checksum]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      ran.push(name);
    }
    return ran;
  } finally {
    await client.query('SELECT pg_advisory_unlock(80171)');
  }
}

interface Counts {
  labels: number;
  adjudications: number;
  flags: number;
}

export interface SyncReport {
  server: string;
  migrations: string[];
  /** rows of this store the server did not have in this form */
  sent: Counts;
  /** rows of others (or of this person elsewhere) that were new here */
  received: Counts;
  /** the server's rows about a question or explanation this store does not have */
  notHere: number;
}

type LabelRow = {
  question: string;
  explanation: string;
  annotator: string;
  letters: string[];
  rationale: string | null;
  seconds: number | null;
  created_at: string;
};
type AdjudicationRow = {
  question: string;
  explanation: string;
  adjudicator: string;
  letters: string[];
  note: string | null;
  created_at: string;
};
type FlagRow = {question: string; author: string; verdict: string; note: string | null; created_at: string};

/** Rows sent in one statement each batch (unnest of arrays). */
const BATCH = 2000;

async function push(client: pg.Client, db: Db, keys: Map<number, string>): Promise<Counts> {
  const labels = (
    db
      .prepare('SELECT question, explanation, annotator, letters, rationale, seconds, created_at FROM annotation')
      .all() as (Omit<LabelRow, 'explanation' | 'letters'> & {explanation: number; letters: string})[]
  ).flatMap(r => (keys.has(r.explanation) ? [{...r, explanation: keys.get(r.explanation)!}] : []));
  const adjudications = (
    db.prepare('SELECT question, explanation, adjudicator, letters, note, created_at FROM adjudication').all() as (Omit<
      AdjudicationRow,
      'explanation' | 'letters'
    > & {explanation: number; letters: string})[]
  ).flatMap(r => (keys.has(r.explanation) ? [{...r, explanation: keys.get(r.explanation)!}] : []));
  const flags = db.prepare('SELECT question, author, verdict, note, created_at FROM question_flag').all() as FlagRow[];
  const sent: Counts = {labels: 0, adjudications: 0, flags: 0};
  await client.query('BEGIN');
  try {
    for (let i = 0; i < labels.length; i += BATCH) {
      const b = labels.slice(i, i + BATCH);
      const r = await client.query(
        `INSERT INTO team_label (question, explanation, annotator, letters, rationale, seconds, created_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::text[], $6::float8[], $7::text[])
         ON CONFLICT (question, explanation, annotator) DO UPDATE SET letters = excluded.letters, rationale = excluded.rationale,
           seconds = excluded.seconds, created_at = excluded.created_at, received_at = now()
         WHERE excluded.created_at > team_label.created_at
            OR (excluded.created_at = team_label.created_at AND (excluded.letters, excluded.rationale) IS DISTINCT FROM (team_label.letters, team_label.rationale))`,
        [
          b.map(x => x.question),
          b.map(x => x.explanation),
          b.map(x => x.annotator),
          b.map(x => x.letters),
          b.map(x => x.rationale),
          b.map(x => x.seconds),
          b.map(x => x.created_at),
        ],
      );
      sent.labels += r.rowCount ?? 0;
    }
    for (let i = 0; i < adjudications.length; i += BATCH) {
      const b = adjudications.slice(i, i + BATCH);
      const r = await client.query(
        `INSERT INTO team_adjudication (question, explanation, adjudicator, letters, note, created_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::text[], $6::text[])
         ON CONFLICT (question, explanation) DO UPDATE SET adjudicator = excluded.adjudicator, letters = excluded.letters,
           note = excluded.note, created_at = excluded.created_at, received_at = now()
         WHERE excluded.created_at > team_adjudication.created_at`,
        [
          b.map(x => x.question),
          b.map(x => x.explanation),
          b.map(x => x.adjudicator),
          b.map(x => x.letters),
          b.map(x => x.note),
          b.map(x => x.created_at),
        ],
      );
      sent.adjudications += r.rowCount ?? 0;
    }
    for (let i = 0; i < flags.length; i += BATCH) {
      const b = flags.slice(i, i + BATCH);
      const r = await client.query(
        `INSERT INTO team_flag (question, author, verdict, note, created_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
         ON CONFLICT (question, author) DO UPDATE SET verdict = excluded.verdict, note = excluded.note,
           created_at = excluded.created_at, received_at = now()
         WHERE excluded.created_at > team_flag.created_at`,
        [
          b.map(x => x.question),
          b.map(x => x.author),
          b.map(x => x.verdict),
          b.map(x => x.note),
          b.map(x => x.created_at),
        ],
      );
      sent.flags += r.rowCount ?? 0;
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
  return sent;
}

/** The server's rows into the local store, where they are newer (the person's own included: their other machine). */
async function pull(
  client: pg.Client,
  db: Db,
  byKey: Map<string, number>,
): Promise<{received: Counts; notHere: number}> {
  const labels = (await client.query<LabelRow>('SELECT * FROM team_label')).rows;
  const adjudications = (await client.query<AdjudicationRow>('SELECT * FROM team_adjudication')).rows;
  const flags = (await client.query<FlagRow>('SELECT * FROM team_flag')).rows;
  const received: Counts = {labels: 0, adjudications: 0, flags: 0};
  let notHere = 0;
  const questions = new Set(db.prepare('SELECT id FROM question').pluck().all() as string[]);
  writeTx(db, () => {
    const label = db.prepare(
      `INSERT INTO annotation (question, explanation, annotator, letters, rationale, seconds, origin, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'team', ?)
       ON CONFLICT (question, explanation, annotator) DO UPDATE SET letters = excluded.letters, rationale = excluded.rationale,
         seconds = excluded.seconds, origin = excluded.origin, created_at = excluded.created_at
       WHERE excluded.created_at > annotation.created_at`,
    );
    for (const r of labels) {
      const e = byKey.get(r.explanation);
      if (e === undefined || !questions.has(r.question)) {
        notHere += 1;
        continue;
      }
      received.labels += label.run(
        r.question,
        e,
        r.annotator,
        JSON.stringify(r.letters),
        r.rationale,
        r.seconds,
        r.created_at,
      ).changes;
    }
    const adjudication = db.prepare(
      `INSERT INTO adjudication (question, explanation, adjudicator, letters, note, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (question, explanation) DO UPDATE SET adjudicator = excluded.adjudicator, letters = excluded.letters,
         note = excluded.note, created_at = excluded.created_at
       WHERE excluded.created_at > adjudication.created_at`,
    );
    for (const r of adjudications) {
      const e = byKey.get(r.explanation);
      if (e === undefined || !questions.has(r.question)) {
        notHere += 1;
        continue;
      }
      received.adjudications += adjudication.run(
        r.question,
        e,
        r.adjudicator,
        JSON.stringify(r.letters),
        r.note,
        r.created_at,
      ).changes;
    }
    const flag = db.prepare(
      `INSERT INTO question_flag (question, author, verdict, note, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (question, author) DO UPDATE SET verdict = excluded.verdict, note = excluded.note, created_at = excluded.created_at
       WHERE excluded.created_at > question_flag.created_at`,
    );
    for (const r of flags) {
      if (!questions.has(r.question)) {
        notHere += 1;
        continue;
      }
      received.flags += flag.run(r.question, r.author, r.verdict, r.note, r.created_at).changes;
    }
  });
  return {received, notHere};
}

/** Sends this store's human work to the team server and brings the team's back. */
export async function syncTeam(db: Db, url: string): Promise<SyncReport> {
  const client = await connect(url);
  try {
    const migrations = await migrate(client);
    const {byId, byKey} = explanationKeys(db);
    const sent = await push(client, db, byId);
    const {received, notHere} = await pull(client, db, byKey);
    return {server: shownUrl(url), migrations, sent, received, notHere};
  } catch (error) {
    if (error instanceof TeamUnavailable) throw error;
    const code = (error as {code?: string}).code;
    throw new TeamUnavailable(
      `the team server ${shownUrl(url)} failed midway (${code ? `${code}: ` : ''}${(error as Error).message.split('\n')[0]}); nothing is lost: the next sync sends it again`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}
