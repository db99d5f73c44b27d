import {describe, expect, it} from 'vitest';
import {parseAnswer, verdictFor} from '../../source/core/questions/answers.js';
import {type QuestionError, questionRecord, validateQuestion} from '../../source/core/questions/model.js';
import {explanationScores, overconfidence, ranks, sem, type ScoredAnswer} from '../../source/core/scoring/metrics.js';

const choices = [
  {label: 'A', text: 'x > 0', role: 'correct' as const},
  {label: 'B', text: 'x < 0', role: 'distractor' as const},
  {label: 'C', text: 'Explanation insufficient to answer.', role: 'insufficient' as const},
];

describe('answers', () => {
  it('reads letters, recorded JSON answers and free text; anything else is unparseable', () => {
    const L = ['A', 'B', 'C', 'D', 'E'];
    expect(parseAnswer('B', 'e2e_intent', L)).toEqual(['B']);
    expect(parseAnswer(' (c) ', 'local_intent', L)).toEqual(['C']);
    expect(parseAnswer('D. The test failed at line 19 with exception: AssertionError.', 'e2e_intent', L)).toEqual([
      'D',
    ]);
    expect(parseAnswer('Answer: **E**', 'e2e_intent', L)).toEqual(['E']);
    expect(parseAnswer('{"selection": "B"}', 'e2e_intent', L)).toEqual(['B']);
    expect(parseAnswer('{"answer": ["c"]}', 'local_effect', L)).toEqual(['C']);
    expect(parseAnswer('{"before_selection": "D", "after_selection": "E"}', 'e2e_effect', L)).toEqual(['D', 'E']);
    expect(parseAnswer('D, E', 'e2e_effect', L)).toEqual(['D', 'E']);
    // as the ExplainBench results record them: free text inside a selection, several letters
    expect(
      parseAnswer(
        '{"before_selection": "B. The test failed at line 10 with exception: AssertionError.", "after_selection": "E. The test passed."}',
        'e2e_effect',
        L,
      ),
    ).toEqual(['B', 'E']);
    expect(parseAnswer('{"answer": ["b", "d"]}', 'local_effect', L)).toEqual(['B', 'D']);
    expect(verdictFor(['B', 'D'], ['B'], choices)).toBe('misaligned');
    expect(parseAnswer('Before the patch: B. After the patch: A.', 'e2e_effect', L)).toEqual(['B', 'A']);
    expect(parseAnswer('I think the answer is probably the second one', 'e2e_intent', L)).toBeNull();
    expect(parseAnswer('Z', 'e2e_intent', L)).toBeNull(); // not a choice
    expect(parseAnswer('B', 'e2e_effect', L)).toBeNull(); // effect needs two
    expect(parseAnswer('', 'e2e_intent', L)).toBeNull();
  });

  it('splits wrong answers into misaligned and uninformative', () => {
    expect(verdictFor(['A'], ['A'], choices)).toBe('correct');
    expect(verdictFor(['B'], ['A'], choices)).toBe('misaligned');
    expect(verdictFor(['C'], ['A'], choices)).toBe('uninformative');
    expect(verdictFor(null, ['A'], choices)).toBeNull();
    expect(verdictFor(['A', 'C'], ['A', 'B'], choices)).toBe('uninformative');
  });
});

describe('question validation', () => {
  const good = {
    id: 'q1',
    instance: 'i',
    type: 'e2e_intent',
    context: {test: 't'},
    question: 'Which?',
    choices,
    answer: 'a',
  };
  const err = (patch: Record<string, unknown>) => {
    try {
      validateQuestion({...good, ...patch});
    } catch (e) {
      return [(e as QuestionError).field, (e as Error).message];
    }
    return null;
  };
  it('accepts a valid question and normalises labels', () => {
    const q = validateQuestion(good);
    expect(q.answer).toEqual(['A']);
    expect(questionRecord(q)).toEqual({...good, answer: 'A'});
  });
  it('names the field of each problem', () => {
    expect(err({answer: 'D'})).toEqual(['answer', '"answer" D is not a choice (labels: A, B, C)']);
    expect(err({answer: 'B'})).toEqual(['answer', '"answer" B is a distractor choice']);
    expect(err({choices: choices.filter(c => c.role !== 'insufficient')})).toEqual([
      'choices',
      'every question has exactly one "insufficient" choice (found 0)',
    ]);
    expect(err({choices: [...choices, {...choices[1]!}]})).toEqual(['choices[3].label', 'duplicate label B']);
    expect(err({type: 'local_effect', agent: 'x'})?.[1]).toMatch(/no_effect/);
    expect(err({type: 'e2e_effect'})?.[0]).toBe('trajectory');
    expect(err({type: 'e2e_effect', agent: 'x'})).toEqual(['answer', '"answer" must be [before, after], two letters']);
    expect(err({typo: 1})).toEqual(['typo', 'unknown field "typo"']);
    expect(err({type: 'nope'})?.[0]).toBe('type');
  });
});

describe('explanation scores', () => {
  const a = (
    question: string,
    type: ScoredAnswer['type'],
    sample: number,
    verdict: ScoredAnswer['verdict'],
    agent = 'x',
  ): ScoredAnswer => ({
    question,
    type,
    instance: question,
    agent,
    explanations: 'original',
    sample,
    verdict,
  });

  it('S_exp is the mean over types of the mean over bugs, per run; ± SEM over runs', () => {
    // two bugs, two runs, two types answered
    const answers = [
      a('b1', 'e2e_intent', 0, 'correct'),
      a('b2', 'e2e_intent', 0, 'correct'), // run 0: 1.0
      a('b1', 'e2e_intent', 1, 'correct'),
      a('b2', 'e2e_intent', 1, 'misaligned'), // run 1: 0.5
      a('b1', 'local_intent', 0, 'uninformative'),
      a('b2', 'local_intent', 0, 'correct'), // run 0: 0.5
      a('b1', 'local_intent', 1, null),
      a('b2', 'local_intent', 1, 'correct'), // run 1: 0.5 (unparseable counts wrong)
    ];
    const [s] = explanationScores(answers);
    expect(s!.types.e2e_intent).toMatchObject({score: 0.75, n: 2, runs: 2, misaligned: 0.25, uninformative: 0});
    expect(s!.types.e2e_intent.sem).toBeCloseTo(0.25, 10); // sd(1, .5) = .3536; / √2
    expect(s!.types.local_intent).toMatchObject({score: 0.5, sem: 0, uninformative: 0.25, unparseable: 1});
    // S_exp per run: (1 + .5)/2 = .75, (.5 + .5)/2 = .5 → mean .625, SEM .125
    expect(s!.sExp).toBeCloseTo(0.625, 10);
    expect(s!.sExpSem).toBeCloseTo(0.125, 10);
    expect(s!.missingTypes).toEqual(['e2e_effect', 'local_effect']);
    expect(s!.types.e2e_effect).toMatchObject({score: null, n: 0, misaligned: null});
  });

  it('a blank explanation that always picks "insufficient" scores 0', () => {
    const [s] = explanationScores([
      a('b1', 'e2e_intent', 0, 'uninformative'),
      a('b1', 'local_effect', 0, 'uninformative'),
    ]);
    expect(s!.sExp).toBe(0);
    expect(s!.types.e2e_intent.uninformative).toBe(1);
  });

  it('SEM of one run is 0; of nothing, null', () => {
    expect(sem([0.4])).toBe(0);
    expect(sem([])).toBeNull();
    expect(sem([1, 0, 1, 0])).toBeCloseTo(Math.sqrt(1 / 3) / 2, 10);
  });

  it('ranks with ties share a rank, and shifts follow', () => {
    expect(ranks([0.596, 0.592, 0.597, 0.558, 0.435])).toEqual([2, 3, 1, 4, 5]); // Table 3, explanation score
    expect(ranks([0.778, 0.785, 0.727, 0.818, 0.599])).toEqual([3, 2, 4, 1, 5]); // Table 3, efficacy
    expect(ranks([0.5, 0.7, 0.5, null])).toEqual([2, 1, 2, null]);
  });

  it('overconfidence: share of answers predicting a pass among patches that do not resolve', () => {
    const r = overconfidence([
      {question: 'q1', resolved: false, predictsPass: true},
      {question: 'q1', resolved: false, predictsPass: true},
      {question: 'q2', resolved: false, predictsPass: false},
      {question: 'q2', resolved: false, predictsPass: null}, // unparseable: not counted
      {question: 'q3', resolved: true, predictsPass: true},
      {question: 'q4', resolved: null, predictsPass: true},
    ]);
    expect(r).toEqual({notPassing: 2, share: 2 / 3});
  });
});
