/**
 * A team on a real PostgreSQL server (initdb + pg_ctl here): two annotators, each with a store of
 * their own built from the same sources, label at once in two processes and sync in two
 * processes; adjudications and flags travel; the server stopped mid-session loses nothing.
 */
import {spawn} from 'node:child_process';
import {copyFileSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {validateQuestion} from '../../source/core/questions/model.js';
import {agreementReport, annotationItems} from '../../source/services/annotation.js';
import {syncTeam, TeamSyncer, TeamUnavailable} from '../../source/services/team.js';
import {addCounts, syncLine} from '../../source/commands/team.js';
import {
  listAdjudications,
  listAnnotations,
  listFlags,
  saveAdjudication,
  saveAnnotation,
  setFlag,
} from '../../source/store/annotations.js';
import {openDb, type Db} from '../../source/store/db.js';
import {addReview, ensureExplanation, getQuestion, insertQuestion, listReviews} from '../../source/store/questions.js';
import {setStageOverride} from '../../source/store/lens.js';
import {importInto, questionsDb} from '../helpers/db.js';
import {tempDir} from '../helpers/files.js';
import {runCli} from '../helpers/hostile.js';
import {SAMPLES} from '../helpers/paths.js';
import {postgresBin, startPostgres, type TestPostgres} from '../helpers/postgres.js';

const {bin, why} = postgresBin();
if (!bin) console.warn(`team tests skipped: ${why}`);

/** The same sources as questionsDb, the explanations stored in the other order: other ids, the same content. */
function reversedStore(path: string): Db {
  const db = openDb(path);
  const dir = join(SAMPLES, '..', 'questions');
  for (const line of readFileSync(join(dir, 'demo-questions.jsonl'), 'utf8').split('\n').filter(Boolean))
    insertQuestion(db, validateQuestion(JSON.parse(line)));
  const explanations = readFileSync(join(dir, 'demo-explanations.jsonl'), 'utf8').split('\n').filter(Boolean);
  for (const line of explanations.reverse()) {
    const e = JSON.parse(line) as {instance: string; agent: string; text: string};
    ensureExplanation(db, {instance: e.instance, agent: e.agent, kind: 'original', text: e.text, source: 'test'});
  }
  return db;
}

/** The helper that labels every item of a store as one person (a real process). */
function label(file: string, annotator: string): Promise<number | null> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, '..', 'helpers', 'annotator-process.ts'), file, annotator, '1'],
    {stdio: 'ignore'},
  );
  return new Promise(resolve => child.on('close', code => resolve(code)));
}

const sync = (file: string, url: string) =>
  new Promise<{code: number | null; stdout: string; stderr: string}>(resolve => {
    const child = spawn(process.execPath, [
      join(__dirname, '..', '..', 'bin', 'deltalens.js'),
      'annotations',
      'sync',
      '--team',
      url,
      '--db',
      file,
      '--json',
    ]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', d => (stdout += d));
    child.stderr.on('data', d => (stderr += d));
    child.on('close', code => resolve({code, stdout, stderr}));
  });

const labels = (db: Db) =>
  listAnnotations(db)
    .map(a => `${a.question}|${a.annotator}|${a.letters.join(',')}`)
    .sort();

describe.skipIf(!bin)('a team on one PostgreSQL server', () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.remove());

  it('two annotators label at once in their own stores and sync at once: both stores hold both, κ as if they had labelled one store', async () => {
    const dir = tempDir();
    const a = join(dir, 'ann.db');
    const {db: made} = await questionsDb(a);
    made.close();
    // bob's store from the same sources; the reference: both people labelling one shared store
    const b = join(dir, 'bob.db');
    copyFileSync(a, b);
    const shared = join(dir, 'shared.db');
    copyFileSync(a, shared);
    expect(await Promise.all([label(a, 'ann'), label(b, 'bob')])).toEqual([0, 0]);
    expect(await label(shared, 'ann')).toBe(0);
    expect(await label(shared, 'bob')).toBe(0);
    const [sa, sb] = await Promise.all([sync(a, pg.url), sync(b, pg.url)]);
    expect(sa.code, sa.stderr).toBe(0);
    expect(sb.code, sb.stderr).toBe(0);
    // the first of the two may have synced before the other had sent: once more each
    for (const f of [a, b]) expect((await sync(f, pg.url)).code).toBe(0);
    const dbs = [a, b, shared].map(f => openDb(f, {mode: 'read'}));
    try {
      expect(labels(dbs[0]!)).toEqual(labels(dbs[2]!));
      expect(labels(dbs[1]!)).toEqual(labels(dbs[2]!));
      expect(new Set(listAnnotations(dbs[0]!).map(x => x.annotator))).toEqual(new Set(['ann', 'bob']));
      const kappa = (db: Db) => agreementReport(db).pairs;
      expect(kappa(dbs[0]!)).toEqual(kappa(dbs[2]!));
      expect(kappa(dbs[1]!)).toEqual(kappa(dbs[2]!));
      expect(kappa(dbs[0]!)[0]?.n).toBeGreaterThan(0);
    } finally {
      for (const db of dbs) db.close();
    }
    // nothing new: a sync sends and receives nothing
    const again = JSON.parse((await sync(a, pg.url)).stdout) as {sent: {labels: number}; received: {labels: number}};
    expect([again.sent.labels, again.received.labels]).toEqual([0, 0]);
  }, 180_000);

  it("a session's labels are sent as they are stored (one sync at a time, one more for what came meanwhile); a server away is remembered, not thrown", async () => {
    const dir = tempDir();
    const {db: a} = await questionsDb(join(dir, 'a.db'));
    const b = reversedStore(join(dir, 'b.db'));
    try {
      const syncer = new TeamSyncer(a, pg.url);
      const items = annotationItems(a)
        .filter(i => getQuestion(a, i.question)!.type !== 'e2e_effect')
        .slice(0, 3);
      for (const it of items) {
        saveAnnotation(a, {...it, annotator: 'fay', letters: [getQuestion(a, it.question)!.choices[0]!.label]});
        syncer.wrote();
      }
      await syncer.idle();
      expect(syncer.failure).toBeNull();
      // the session's closing line counts what went as each label was stored, not only the last sync
      expect(syncer.sent.labels).toBe(3);
      const last = await syncTeam(a, pg.url);
      expect(last.sent.labels).toBe(0);
      expect(syncLine(addCounts(last, syncer), 'this session')).toMatch(/, this session: sent 3 labels; received /);
      await syncTeam(b, pg.url);
      expect(listAnnotations(b, {annotator: 'fay'})).toHaveLength(3);
      const away = new TeamSyncer(a, 'postgres://nobody@127.0.0.1:1/none');
      away.wrote();
      await away.idle();
      expect(away.failure).toMatch(/cannot be reached/);
    } finally {
      a.close();
      b.close();
    }
  }, 120_000);

  it('adjudications, flags, reviews and stage corrections travel; the newer of two writes of one item wins', async () => {
    const dir = tempDir();
    const {db: a} = await questionsDb(join(dir, 'a.db'));
    const b = reversedStore(join(dir, 'b.db'));
    try {
      // an item whose question takes one letter
      const item = a
        .prepare(
          "SELECT q.id AS question, e.id AS explanation FROM question q JOIN explanation e ON e.instance = q.instance WHERE q.type != 'e2e_effect' ORDER BY e.id DESC LIMIT 1",
        )
        .get() as {question: string; explanation: number};
      const q = getQuestion(a, item.question)!.choices;
      saveAdjudication(a, {...item, adjudicator: 'carol', letters: [q[0]!.label]});
      setFlag(a, {question: item.question, author: 'carol', verdict: 'valid'});
      addReview(a, {question: item.question, reviewer: 'carol', action: 'rejected', note: 'leaks the answer'});
      // the same real run imported into both stores (b imports another first: other ids)
      importInto(b, [join(SAMPLES, 'swe-agent')]);
      importInto(a, [join(SAMPLES, 'mini-swe-agent')]);
      importInto(b, [join(SAMPLES, 'mini-swe-agent')]);
      const run = a.prepare('SELECT id, content_hash FROM trajectory ORDER BY id LIMIT 1').get() as {
        id: number;
        content_hash: string;
      };
      setStageOverride(a, {trajectory: run.id, idx: 0, annotator: 'eve', stage: 'V', note: 'it reads the test'});
      await syncTeam(a, pg.url);
      await new Promise(r => setTimeout(r, 10));
      // carol on her other machine changes her mind later
      setFlag(b, {question: item.question, author: 'carol', verdict: 'ambiguous', note: 'two readings'});
      await syncTeam(b, pg.url);
      await syncTeam(a, pg.url);
      // on the same explanation, whose id in b's store is another
      const [adjudicated] = listAdjudications(b);
      expect(adjudicated).toMatchObject({question: item.question, adjudicator: 'carol', letters: [q[0]!.label]});
      const text = (db: Db, id: number) => db.prepare('SELECT text FROM explanation WHERE id = ?').pluck().get(id);
      expect(adjudicated!.explanation).not.toBe(item.explanation);
      expect(text(b, adjudicated!.explanation)).toBe(text(a, item.explanation));
      for (const db of [a, b])
        expect(listFlags(db).filter(f => f.question === item.question)).toMatchObject([
          {author: 'carol', verdict: 'ambiguous', note: 'two readings'},
        ]);
      // the review once in each store; the stage correction on b's own id of the same run
      for (const db of [a, b])
        expect(listReviews(db, item.question)).toMatchObject([
          {reviewer: 'carol', action: 'rejected', note: 'leaks the answer'},
        ]);
      await syncTeam(b, pg.url);
      expect(listReviews(b, item.question)).toHaveLength(1);
      const inB = b.prepare('SELECT id FROM trajectory WHERE content_hash = ?').pluck().get(run.content_hash) as number;
      expect(inB).not.toBe(run.id);
      expect(b.prepare('SELECT trajectory, idx, annotator, stage, note FROM stage_annotation').all()).toEqual([
        {trajectory: inB, idx: 0, annotator: 'eve', stage: 'V', note: 'it reads the test'},
      ]);
    } finally {
      a.close();
      b.close();
    }
  }, 120_000);

  it('the server stopped mid-session: the labels stay here, the command says so in one line, and the next sync sends them', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.db');
    const {db: made} = await questionsDb(a);
    made.close();
    const b = join(dir, 'b.db');
    reversedStore(b).close();
    pg.stop();
    try {
      expect(await label(a, 'dora')).toBe(0);
      const down = await sync(a, pg.url);
      expect(down.code).toBe(1);
      expect(down.stderr.trim().split('\n')).toHaveLength(1);
      expect(down.stderr).toMatch(
        /the team server postgres:\/\/deltalens@127\.0\.0\.1:\d+\/postgres cannot be reached \(ECONNREFUSED\)/,
      );
      // agreement goes on with this store, and says why in one line
      const agreement = runCli(['agreement', '--team', pg.url, '--db', a], {});
      expect(agreement.code).toBe(0);
      expect(agreement.stderr).toMatch(/cannot be reached .* working with this store/);
      const db = openDb(a, {mode: 'read'});
      expect(listAnnotations(db, {annotator: 'dora'}).length).toBeGreaterThan(0);
      db.close();
    } finally {
      pg.start();
    }
    expect((await sync(a, pg.url)).code).toBe(0);
    expect((await sync(b, pg.url)).code).toBe(0);
    const other = openDb(b, {mode: 'read'});
    try {
      expect(listAnnotations(other, {annotator: 'dora'}).length).toBeGreaterThan(0);
    } finally {
      other.close();
    }
    await expect(syncTeam(openDb(b), 'postgres://nobody@127.0.0.1:1/none')).rejects.toThrow(TeamUnavailable);
  }, 120_000);
});
