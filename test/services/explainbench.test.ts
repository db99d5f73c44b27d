/**
 * The real ExplainBench replication sample (sample-data/explainbench: a subset of
 * pan2013e/explainbench, five instances per file) imported as it is, and the report on it.
 */
import {cpSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {explanationScores} from '../../source/core/scoring/metrics.js';
import {ExplainBenchError, importExplainBench} from '../../source/services/explainbench.js';
import {buildReport} from '../../source/services/report.js';
import {listAnswers, listQuestions} from '../../source/store/questions.js';
import {freshDb, snapshot} from '../helpers/db.js';
import {ROOT, tempDir} from '../helpers/files.js';

const SAMPLE = join(ROOT, 'sample-data', 'explainbench');
const MINI = '20250807_mini-v1.7.0_gpt-5-mini';

describe('ExplainBench import', () => {
  it('imports questions, keys, explanations by agent, every recorded answer and the published statistics; again: nothing new', () => {
    const {db} = freshDb();
    const r = importExplainBench(db, SAMPLE);
    expect(r.questions).toEqual({e2e_intent: 5, e2e_effect: 25, local_intent: 5, local_effect: 40});
    expect(r.answers).toBe(1150);
    expect(r.unparseable).toBe(0);
    expect(r.skipped).toEqual([
      'dataset/ground_truths/local_effect__rq3_v1.json: no dataset/context/local_effect__rq3_v1.json',
    ]);
    const q = listQuestions(db, {type: 'e2e_effect', instance: 'sympy__sympy-20801'}).find(x => x.agent === MINI)!;
    // mini-SWE-agent's patch leaves the test failing at line 10 before and after
    expect(q.answer).toEqual(['B', 'B']);
    expect(q.choices.map(c => c.role)).toEqual(['insufficient', 'correct', 'distractor', 'distractor', 'distractor']);
    expect(q.choices[1]!.text).toBe('The test failed at line 10 with exception: AssertionError.');
    const again = importExplainBench(db, SAMPLE);
    expect(again.answersNew).toBe(0);
    expect(listAnswers(db)).toHaveLength(1150);
  });

  it('free-text selections are read to their letter, as the published results count them', () => {
    const {db} = freshDb();
    importExplainBench(db, SAMPLE);
    const free = listAnswers(db).filter(a => a.raw?.includes('The test failed at line'));
    expect(free.length).toBeGreaterThan(0);
    for (const a of free) expect(a.letters).toHaveLength(2);
  });

  it('the stored verdicts equal the published per-instance results, answer by answer', () => {
    const {db} = freshDb();
    importExplainBench(db, SAMPLE);
    const report = buildReport(db);
    expect(report.model).toBe('gpt-5-mini-2025-08-07');
    expect(report.checks.published_per_instance).toEqual({compared: 1150, agree: 1150, disagreements: []});
  });

  it('computed scores equal a hand computation from the results files', () => {
    const {db} = freshDb();
    importExplainBench(db, SAMPLE);
    // mini-SWE-agent, end-to-end effect, from the published raw booleans: per run, the share correct
    const raw = JSON.parse(
      readFileSync(
        join(SAMPLE, 'results', 'evaluation', 'e2e_effect', `${MINI}__openai-gpt-5-mini-2025-08-07.json`),
        'utf8',
      ),
    ).raw as Record<string, boolean[]>;
    const perRun = [0, 1, 2, 3, 4].map(s => Object.values(raw).filter(v => v[s]).length / 5);
    const byHand = perRun.reduce((a, b) => a + b, 0) / 5;
    const agent = buildReport(db).agents.find(a => a.agent === MINI && a.explanations === 'original')!;
    expect(agent.types.e2e_effect.score).toBeCloseTo(byHand, 4);
    expect(agent.types.e2e_effect.n).toBe(5);
    const [scores] = explanationScores(listAnswers(db).filter(a => a.agent === MINI && a.explanations === 'original'));
    expect(scores!.sExp).toBeCloseTo(agent.s_exp!, 3);
  });

  it("the published statistics reproduce the paper's Table 3 and Table 6", () => {
    const {db} = freshDb();
    importExplainBench(db, SAMPLE);
    const pub = buildReport(db).published;
    const row = (agent: string, kind: string) => pub.find(p => p.agent.includes(agent) && p.explanations === kind)!;
    const t = (p: (typeof pub)[number]) =>
      [p.types.e2e_intent, p.types.e2e_effect, p.types.local_intent, p.types.local_effect, p.s_exp].map(x =>
        Number(x!.toFixed(3)),
      );
    // Table 3 (refact, Lingxi, OpenHands, trae-agent, mini-SWE-agent)
    expect(t(row('Refact', 'original'))).toEqual([0.723, 0.818, 0.355, 0.49, 0.596]);
    expect(t(row('Lingxi', 'original'))).toEqual([0.704, 0.805, 0.368, 0.492, 0.592]);
    expect(t(row('Qwen3', 'original'))).toEqual([0.723, 0.791, 0.353, 0.522, 0.597]);
    expect(t(row('trae', 'original'))).toEqual([0.636, 0.805, 0.332, 0.457, 0.558]);
    expect(t(row('mini', 'original'))).toEqual([0.467, 0.599, 0.302, 0.37, 0.435]);
    // Table 6 (audited)
    expect(t(row('Refact', 'audited'))).toEqual([0.768, 0.837, 0.359, 0.504, 0.617]);
    expect(t(row('trae', 'audited'))).toEqual([0.782, 0.826, 0.361, 0.512, 0.621]);
    expect(row('trae', 'audited').gain_vs_original!.s_exp).toBeCloseTo(0.113, 3); // Table 6: +11.3%
  });

  it('a broken file imports nothing', () => {
    const dir = tempDir();
    cpSync(SAMPLE, join(dir, 'eb'), {recursive: true});
    const truth = join(dir, 'eb', 'dataset', 'ground_truths', 'local_intent.json');
    const data = JSON.parse(readFileSync(truth, 'utf8'));
    data['sympy__sympy-20801'] = {answer: ['z']};
    writeFileSync(truth, JSON.stringify(data));
    const {db} = freshDb();
    const before = snapshot(db);
    expect(() => importExplainBench(db, join(dir, 'eb'))).toThrow(ExplainBenchError);
    expect(() => importExplainBench(db, join(dir, 'eb'))).toThrow(
      /local_intent.json sympy__sympy-20801: "answer" Z is not a choice/,
    );
    expect(snapshot(db)).toEqual(before);
  });
});
