import {spawn, spawnSync} from 'node:child_process';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {annotationItems} from '../../source/services/annotation.js';
import {listAnnotations, saveAdjudication, saveAnnotation, setFlag} from '../../source/store/annotations.js';
import {openDb} from '../../source/store/db.js';
import {getQuestion} from '../../source/store/questions.js';
import {questionsDb} from '../helpers/db.js';
import {ROOT, tempDir} from '../helpers/files.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');
function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: tempDir(),
    encoding: 'utf8',
    env: {...process.env, NO_COLOR: '1'},
  });
  return {code: r.status, stdout: r.stdout, stderr: r.stderr};
}

function label(
  db: ReturnType<typeof openDb>,
  it: {question: string; explanation: number},
  annotator: string,
  letter: string,
  rationale?: string,
) {
  const q = getQuestion(db, it.question)!;
  return saveAnnotation(db, {
    ...it,
    annotator,
    letters: q.type === 'e2e_effect' ? [letter, letter] : [letter],
    rationale,
  });
}

describe('annotate and adjudicate need a terminal', () => {
  it('say so and point to annotations import; a missing name is a usage error', () => {
    expect(run(['annotate', '--annotator', 'ann', '--db', join(tempDir(), 'x.db')])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('annotate needs an interactive terminal'),
    });
    expect(run(['annotate', '--db', join(tempDir(), 'x.db')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--annotator NAME'),
    });
    expect(run(['annotate', '--annotator', 'a', '--queue', 'sample:x'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--queue must be'),
    });
    expect(run(['adjudicate', '--annotator', 'cy', '--db', join(tempDir(), 'x.db')])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('adjudicate needs an interactive terminal'),
    });
  });
});

describe('several people at once', () => {
  it('two annotator processes labelling one database file at the same time lose nothing', async () => {
    const {db, path} = await questionsDb();
    const items = annotationItems(db).length;
    db.close();
    const child = (name: string) =>
      new Promise<{code: number | null; out: string; err: string}>(resolve => {
        const p = spawn(
          process.execPath,
          ['--import', 'tsx', join(ROOT, 'test', 'helpers', 'annotator-process.ts'), path, name, '4'],
          {cwd: ROOT},
        );
        let out = '';
        let err = '';
        p.stdout.on('data', d => (out += d));
        p.stderr.on('data', d => (err += d));
        p.on('close', code => resolve({code, out, err}));
      });
    const [a, b] = await Promise.all([child('ann'), child('bo')]);
    expect(a.code, a.err).toBe(0);
    expect(b.code, b.err).toBe(0);
    expect(JSON.parse(a.out)).toEqual({annotator: 'ann', items, saved: items * 4});
    const check = openDb(path);
    for (const name of ['ann', 'bo']) {
      const rows = listAnnotations(check, {annotator: name});
      expect(rows).toHaveLength(items);
      expect(rows.every(r => r.rationale === `${name} round 3`)).toBe(true);
    }
    check.close();
  });
});

describe('annotations export / import, agreement, flags', () => {
  it('export → import elsewhere is idempotent; a bad line names its line and field and imports nothing', async () => {
    const {db, path} = await questionsDb();
    const items = annotationItems(db);
    label(db, items[0]!, 'ann', 'A', 'because "quoted", and a comma');
    label(db, items[1]!, 'ann', 'B');
    db.close();
    const jsonl = run(['annotations', 'export', '--db', path]);
    expect(jsonl.code).toBe(0);
    const lines = jsonl.stdout
      .trim()
      .split('\n')
      .map(l => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({
      question: items[0]!.question,
      explanation: items[0]!.explanation,
      annotator: 'ann',
      rationale: 'because "quoted", and a comma',
    });
    const csv = run(['annotations', 'export', '--format', 'csv', '--db', path]).stdout;
    expect(csv.split('\n')[0]).toBe('question,explanation,annotator,letters,rationale,seconds,created_at');
    expect(csv).toContain('"because ""quoted"", and a comma"');

    const other = (await questionsDb()).path;
    const file = join(tempDir(), 'labels.jsonl');
    writeFileSync(file, jsonl.stdout);
    expect(JSON.parse(run(['annotations', 'import', file, '--json', '--db', other]).stdout)).toEqual({
      added: 2,
      updated: 0,
      unchanged: 0,
    });
    expect(JSON.parse(run(['annotations', 'import', file, '--json', '--db', other]).stdout)).toEqual({
      added: 0,
      updated: 0,
      unchanged: 2,
    });

    const bad = join(tempDir(), 'bad.jsonl');
    writeFileSync(
      bad,
      `${jsonl.stdout}{"question": "${items[2]!.question}", "explanation": ${items[2]!.explanation}, "annotator": "cy"}\n`,
    );
    const r = run(['annotations', 'import', bad, '--db', other]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}:3: field "letters" is missing — nothing was imported`);
    const wrong = join(tempDir(), 'wrong.jsonl');
    const single = items.find(i => !i.question.includes('e2e_effect'))!;
    writeFileSync(
      wrong,
      `{"question": "${single.question}", "explanation": ${single.explanation}, "annotator": "cy", "letters": ["Q"]}\n`,
    );
    expect(run(['annotations', 'import', wrong, '--db', other]).stderr).toMatch(
      /wrong\.jsonl:1: letters: "Q" is not a choice of question/,
    );
    const check = openDb(other);
    expect(listAnnotations(check)).toHaveLength(2);
    check.close();
  });

  it("agreement --json: Cohen's κ per pair, Fleiss' κ, by type, people vs model and vs adjudication", async () => {
    const {db, path} = await questionsDb();
    const items = annotationItems(db)
      .filter(i => getQuestion(db, i.question)!.type !== 'e2e_effect')
      .slice(0, 4);
    // ann and bo agree on 3 of 4 items (A A A A vs A A A B); cy agrees with ann everywhere
    items.forEach((it, i) => {
      label(db, it, 'ann', 'A');
      label(db, it, 'bo', i === 3 ? 'B' : 'A');
      label(db, it, 'cy', 'A');
    });
    saveAdjudication(db, {...items[3]!, adjudicator: 'dee', letters: ['A'], note: 'the explanation says so'});
    db.close();
    const r = JSON.parse(run(['agreement', '--json', '--db', path]).stdout) as {
      pairs: {a: string; b: string; n: number; raw: number; cohen_kappa: number | null}[];
      fleiss_kappa: number;
      by_type: Record<string, unknown>;
      human_vs_model: {annotator: string; model: string; n: number}[];
      human_vs_adjudicated: {annotator: string; n: number; raw: number}[];
    };
    expect(r.pairs.find(p => p.a === 'ann' && p.b === 'bo')).toMatchObject({n: 4, raw: 0.75, cohen_kappa: 0});
    expect(r.pairs.find(p => p.a === 'ann' && p.b === 'cy')).toMatchObject({n: 4, raw: 1, cohen_kappa: 1});
    // 3 raters, items AAA AAA AAA ABA: P̄ = (1+1+1+1/3)/4 = 0.8333, p_A = 11/12, p_B = 1/12 → P̄e = 0.8472 → κ = −0.0909
    expect(r.fleiss_kappa).toBeCloseTo(-0.0909, 3);
    expect(Object.keys(r.by_type).length).toBeGreaterThan(0);
    expect(r.human_vs_model.filter(h => h.model === 'lexical').map(h => h.annotator)).toEqual(['ann', 'bo', 'cy']);
    expect(r.human_vs_adjudicated.map(h => [h.annotator, h.n, h.raw])).toEqual([
      ['ann', 1, 1],
      ['bo', 1, 0],
      ['cy', 1, 1],
    ]);
  });

  it('agreement with one person says κ between people needs two, not a wrong reason', async () => {
    const {db, path} = await questionsDb();
    for (const it of annotationItems(db).slice(0, 3)) label(db, it, 'solo', 'A');
    db.close();
    const text = run(['agreement', '--db', path]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('κ between people: none — it needs two people on the same items (only solo so far)');
    expect(text.stdout).not.toContain("Fleiss' κ");
    const r = JSON.parse(run(['agreement', '--json', '--db', path]).stdout) as {pairs: unknown[]; notes: string[]};
    expect(r.pairs).toEqual([]);
    expect(r.notes.join(' ')).toContain('only solo has labelled');
  });

  it('--exclude-flagged leaves flagged questions out of the scores and counts them by reason', async () => {
    const {db, path} = await questionsDb();
    const questions = db
      .prepare("SELECT id FROM question WHERE type = 'e2e_intent' ORDER BY id")
      .pluck()
      .all() as string[];
    setFlag(db, {question: questions[0]!, author: 'ann', verdict: 'ambiguous', note: 'two readings'});
    setFlag(db, {question: questions[1]!, author: 'ann', verdict: 'wrong-key'});
    setFlag(db, {question: questions[1]!, author: 'bo', verdict: 'ambiguous'});
    setFlag(db, {question: questions[2]!, author: 'bo', verdict: 'valid'});
    const answersOf = (q: string) =>
      db.prepare('SELECT count(*) FROM qa_answer WHERE question = ?').pluck().get(q) as number;
    const expected = answersOf(questions[0]!) + answersOf(questions[1]!);
    db.close();
    const plain = JSON.parse(run(['report', '--json', '--db', path]).stdout) as {
      exclusions: unknown;
      agents: {agent: string; types: Record<string, {n: number}>}[];
    };
    const r = JSON.parse(run(['report', '--json', '--exclude-flagged', '--db', path]).stdout) as {
      exclusions: {
        questions: number;
        answers: number;
        by_reason: {reason: string; questions: number; answers: number}[];
      };
      agents: {agent: string; types: Record<string, {n: number}>}[];
    };
    expect(plain.exclusions).toBeNull();
    expect(r.exclusions).toMatchObject({questions: 2, answers: expected});
    expect(r.exclusions.by_reason).toEqual([
      {reason: 'ambiguous', questions: 2, answers: expected},
      {reason: 'wrong-key', questions: 1, answers: answersOf2(path, questions[1]!)},
    ]);
    const n = (x: typeof plain) => x.agents.reduce((sum, a) => sum + (a.types.e2e_intent?.n ?? 0), 0);
    expect(n(r)).toBeLessThan(n(plain));
    const text = run(['report', '--exclude-flagged', '--db', path]).stdout;
    expect(text).toMatch(/Excluded questions \(flagged\): 2 question\(s\)/);
    const flags = JSON.parse(run(['flags', '--json', '--db', path]).stdout) as {
      people: {question: string; verdict: string}[];
      automatic: unknown[];
    };
    expect(flags.people).toHaveLength(4);
    // score skips flagged questions
    const s = JSON.parse(
      run(['score', '--model', 'lexical', '--samples', '4', '--exclude-flagged', '--json', '--db', path]).stdout,
    ) as {excluded_questions: number};
    expect(s.excluded_questions).toBe(2);
    const check = openDb(path);
    expect(
      check.prepare('SELECT count(*) FROM qa_answer WHERE question = ? AND sample = 3').pluck().get(questions[0]),
    ).toBe(0);
    expect(
      check.prepare('SELECT count(*) FROM qa_answer WHERE question = ? AND sample = 3').pluck().get(questions[2]),
    ).toBeGreaterThan(0);
    check.close();
    expect(run(['flags', 'set', questions[0]!, 'nonsense', '--author', 'x', '--db', path])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('verdict must be one of valid, ambiguous'),
    });
  });
});

function answersOf2(path: string, q: string): number {
  const db = openDb(path, {readonly: true});
  const n = db.prepare('SELECT count(*) FROM qa_answer WHERE question = ?').pluck().get(q) as number;
  db.close();
  return n;
}
