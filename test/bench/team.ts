/**
 * A team's labels through a real PostgreSQL server (started here as the team tests start it):
 * 300 instances × 5 agents × 4 questions = 6,000 items, each labelled by two people in one store — sent by one sync —
 * and brought into a second store built from the same sources by another.
 */
import {rmSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {annotationItems} from '../../source/services/annotation.js';
import {syncTeam} from '../../source/services/team.js';
import {saveAnnotation} from '../../source/store/annotations.js';
import {openDb, type Db} from '../../source/store/db.js';
import {ensureExplanation, insertQuestion} from '../../source/store/questions.js';
import {postgresBin, startPostgres} from '../helpers/postgres.js';
import {question} from './scoring.js';

function store(path: string): Db {
  for (const s of ['', '-wal', '-shm']) rmSync(path + s, {force: true});
  const db = openDb(path);
  db.transaction(() => {
    for (let i = 0; i < 300; i++) {
      const inst = `inst-${i}`;
      for (const type of ['e2e_intent', 'local_intent'] as const)
        for (const k of [1, 2]) insertQuestion(db, question(`${inst}/${type}/${k}`, inst, type, null));
      for (let a = 0; a < 5; a++) {
        const agent = `agent-${a}`;
        ensureExplanation(db, {instance: inst, agent, kind: 'original', text: `${agent} on ${inst}`, source: 'bench'});
      }
    }
  })();
  return db;
}

export async function benchTeam(out: string, log: (line: string) => void): Promise<void> {
  const {bin, why} = postgresBin();
  if (!bin) {
    log(`team sync: skipped (${why})`);
    return;
  }
  const pg = await startPostgres();
  try {
    const a = store(join(out, 'team-a.db'));
    const b = store(join(out, 'team-b.db'));
    const items = annotationItems(a);
    a.transaction(() => {
      for (const [i, it] of items.entries())
        for (const annotator of ['ann', 'bob'])
          saveAnnotation(a, {
            question: it.question,
            explanation: it.explanation,
            annotator,
            letters: [i % 3 ? 'A' : 'B'],
            seconds: 4,
          });
    })();
    const labels = items.length * 2;
    let t = performance.now();
    const sent = await syncTeam(a, pg.url);
    const sendS = (performance.now() - t) / 1000;
    t = performance.now();
    const got = await syncTeam(b, pg.url);
    const receiveS = (performance.now() - t) / 1000;
    t = performance.now();
    await syncTeam(a, pg.url);
    const idleS = (performance.now() - t) / 1000;
    log(
      `team sync against a local PostgreSQL: ${sent.sent.labels.toLocaleString('en')} labels sent in ${sendS.toFixed(2)} s = ${Math.round(labels / sendS).toLocaleString('en')} labels/s (the first sync also makes the schema); ${got.received.labels.toLocaleString('en')} brought into another store in ${receiveS.toFixed(2)} s = ${Math.round(got.received.labels / receiveS).toLocaleString('en')} labels/s; a sync with nothing new ${idleS.toFixed(2)} s`,
    );
    a.close();
    b.close();
  } finally {
    pg.remove();
  }
}
