import {join} from 'node:path';
import {openDb, type Db} from '../../source/store/db.js';
import {importPaths, type ImportOptions, type ImportReport} from '../../source/services/importer.js';
import {tempDir} from './files.js';

export function freshDb(): {db: Db; path: string} {
  const path = join(tempDir(), 'test.db');
  return {db: openDb(path), path};
}

export function importInto(db: Db, paths: string[], options: Partial<ImportOptions> = {}): ImportReport {
  return importPaths(db, paths, {format: 'auto', maxBytes: 100 * 1024 * 1024, ...options});
}

/** Every row of every table, for "the database is exactly as it was" assertions. */
export function snapshot(db: Db): Record<string, unknown[]> {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as {name: string}[];
  return Object.fromEntries(tables.map(({name}) => [name, db.prepare(`SELECT * FROM "${name}"`).all()]));
}

/**
 * A real database with the demo's hand-written questions and its three agents' explanations
 * (sample-data/questions), answered by the lexical baseline (3 samples).
 */
export async function questionsDb(path?: string): Promise<{db: Db; path: string}> {
  const {readFileSync} = await import('node:fs');
  const {validateQuestion} = await import('../../source/core/questions/model.js');
  const {insertQuestion, ensureExplanation} = await import('../../source/store/questions.js');
  const {scoreExplanations} = await import('../../source/services/scoring.js');
  const {lexicalModel} = await import('../../source/services/qa-models.js');
  const {SAMPLES} = await import('./paths.js');
  const dir = join(SAMPLES, '..', 'questions');
  const file = path ?? join(tempDir(), 'questions.db');
  const db = openDb(file);
  for (const line of readFileSync(join(dir, 'demo-questions.jsonl'), 'utf8').split('\n').filter(Boolean))
    insertQuestion(db, validateQuestion(JSON.parse(line)));
  for (const line of readFileSync(join(dir, 'demo-explanations.jsonl'), 'utf8').split('\n').filter(Boolean)) {
    const e = JSON.parse(line) as {instance: string; agent: string; text: string};
    ensureExplanation(db, {instance: e.instance, agent: e.agent, kind: 'original', text: e.text, source: 'test'});
  }
  await scoreExplanations(db, {model: lexicalModel(), samples: 3, concurrency: 1, kinds: ['original']});
  return {db, path: file};
}
