/**
 * The team's PostgreSQL server: its schema (db/team, applied once each, checksummed, under an
 * advisory lock) and the rows of the human work, sent in batches and read back whole.
 */
import {createHash} from 'node:crypto';
import {readdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import type pg from 'pg';
import {packageRoot} from '../package-root.js';
import {noCounts, type TeamCounts, type TeamRows} from './team.js';

const MIGRATIONS_DIR = join(packageRoot(), 'db', 'team');
const LOCK = 80171;
/** Rows sent in one statement (unnest of arrays). */
const BATCH = 2000;

export class TeamSchemaError extends Error {}

/** The server's migrations, in order, each once; the names applied now. */
export async function migrateServer(client: pg.Client, dir = MIGRATIONS_DIR): Promise<string[]> {
  await client.query('SELECT pg_advisory_lock($1)', [LOCK]);
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS team_migration (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
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
          throw new TeamSchemaError(
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
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK]);
  }
}

/** Each table: its columns with their array types, its key, and when a row sent replaces the stored one. */
const TABLES: Record<keyof TeamRows, {table: string; columns: [string, string][]; key: string[]; newer: string}> = {
  labels: {
    table: 'team_label',
    columns: [
      ['question', 'text'],
      ['explanation', 'text'],
      ['annotator', 'text'],
      ['letters', 'jsonb'],
      ['rationale', 'text'],
      ['seconds', 'float8'],
      ['created_at', 'text'],
    ],
    key: ['question', 'explanation', 'annotator'],
    newer: 'excluded.created_at > t.created_at',
  },
  adjudications: {
    table: 'team_adjudication',
    columns: [
      ['question', 'text'],
      ['explanation', 'text'],
      ['adjudicator', 'text'],
      ['letters', 'jsonb'],
      ['note', 'text'],
      ['created_at', 'text'],
    ],
    key: ['question', 'explanation'],
    newer: 'excluded.created_at > t.created_at',
  },
  flags: {
    table: 'team_flag',
    columns: [
      ['question', 'text'],
      ['author', 'text'],
      ['verdict', 'text'],
      ['note', 'text'],
      ['created_at', 'text'],
    ],
    key: ['question', 'author'],
    newer: 'excluded.created_at > t.created_at',
  },
  reviews: {
    table: 'team_review',
    columns: [
      ['question', 'text'],
      ['reviewer', 'text'],
      ['action', 'text'],
      ['note', 'text'],
      ['created_at', 'text'],
    ],
    key: ['question', 'reviewer', 'created_at'],
    newer: 'false',
  },
  stages: {
    table: 'team_stage',
    columns: [
      ['trajectory', 'text'],
      ['idx', 'int4'],
      ['annotator', 'text'],
      ['stage', 'text'],
      ['note', 'text'],
      ['created_at', 'text'],
    ],
    key: ['trajectory', 'idx', 'annotator'],
    newer: 'excluded.created_at > t.created_at',
  },
};

/** This store's rows sent in one transaction; the server keeps the newer of two rows of one key. How many it took. */
export async function sendRows(client: pg.Client, rows: TeamRows): Promise<TeamCounts> {
  const sent = noCounts();
  await client.query('BEGIN');
  try {
    for (const kind of Object.keys(TABLES) as (keyof TeamRows)[]) {
      const {table, columns, key, newer} = TABLES[kind];
      const list = rows[kind] as unknown as Record<string, unknown>[];
      const names = columns.map(([c]) => c);
      const update = names.filter(c => !key.includes(c)).map(c => `${c} = excluded.${c}`);
      const sql = `INSERT INTO ${table} AS t (${names.join(', ')})
        SELECT * FROM unnest(${columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})
        ON CONFLICT (${key.join(', ')}) DO ${
          update.length ? `UPDATE SET ${update.join(', ')}, received_at = now() WHERE ${newer}` : 'NOTHING'
        }`;
      for (let i = 0; i < list.length; i += BATCH) {
        const batch = list.slice(i, i + BATCH);
        const r = await client.query(
          sql,
          names.map(c => batch.map(row => (c === 'letters' ? JSON.stringify(row[c]) : row[c]))),
        );
        sent[kind] += r.rowCount ?? 0;
      }
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
  return sent;
}

/** Every row of the server. */
export async function readRows(client: pg.Client): Promise<TeamRows> {
  const all = async <T extends pg.QueryResultRow>(kind: keyof TeamRows) =>
    (
      await client.query<T>(
        `SELECT ${TABLES[kind].columns.map(([c]) => c).join(', ')} FROM ${TABLES[kind].table} ORDER BY ${TABLES[kind].key.join(', ')}`,
      )
    ).rows;
  return {
    labels: await all('labels'),
    adjudications: await all('adjudications'),
    flags: await all('flags'),
    reviews: await all('reviews'),
    stages: await all('stages'),
  };
}
