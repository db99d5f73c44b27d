import {validateQuestion} from '../../source/core/questions/model.js';
import type {Db} from '../../source/store/db.js';
import {insertQuestion} from '../../source/store/questions.js';

/** An end-to-end intent question on the demo durations bug ("1h30m" is 5400 seconds; the bug
 * keeps only the last unit, 1800), stored in `db`. */
export function insertDurationsQuestion(
  db: Db,
  o: {id: string; correct?: string; wrong?: string; test?: string},
): void {
  insertQuestion(
    db,
    validateQuestion({
      id: o.id,
      instance: 'demo__durations-1',
      type: 'e2e_intent',
      context: {test: o.test ?? 'assert parse_duration("1h30m") == [[MASKED]]'},
      question: 'Which expression should replace [[MASKED]]?',
      choices: [
        {label: 'A', text: o.correct ?? '5400', role: 'correct'},
        {label: 'B', text: o.wrong ?? '1800', role: 'distractor'},
        {label: 'C', text: 'Explanation insufficient to answer.', role: 'insufficient'},
      ],
      answer: 'A',
    }),
  );
}

/** questions build options for the demo durations bug (its gold patch, the test that reproduces
 * it, sandbox 'prefer' for our own project); `o` overrides. */
export async function durationsBuild(
  o: Partial<import('../../source/services/questions/options.js').BuildOptions> = {},
): Promise<import('../../source/services/questions/options.js').BuildOptions> {
  const {join} = await import('node:path');
  const {PROJECTS_DIR} = await import('../../source/services/demo.js');
  const P = join(PROJECTS_DIR, 'durations');
  return {
    instance: 'demo__durations-1',
    buggyDir: join(P, 'repo'),
    goldPatch: join(P, 'patches', 'gold.diff'),
    agentPatches: [],
    test: 'tests/test_parse.py::test_compound_duration',
    python: process.env.DELTALENS_PYTHON ?? 'python3',
    sandbox: 'prefer',
    seed: 0,
    timeoutS: 60,
    types: ['e2e_intent', 'e2e_effect', 'local_intent', 'local_effect'],
    ...o,
  } as import('../../source/services/questions/options.js').BuildOptions; // `o` may give the fix another way
}

/** A built question's provenance read by field name (each test knows its question's type and casts the field it reads). */
export const fieldsOf = (p: import('../../source/core/questions/provenance.js').BuiltProvenance) =>
  p as unknown as Record<string, unknown>;

/** Two questions on one instance i1 for the scoring tests: an end-to-end intent one (key
 * "total == 5400") and a local effect one of agent-x (key "parts"). */
export const INTENT = validateQuestion({
  id: 'q-intent',
  instance: 'i1',
  type: 'e2e_intent',
  context: {test: 'assert [[MASKED]]'},
  question: 'Which expression?',
  choices: [
    {label: 'A', text: 'total == 5400', role: 'correct'},
    {label: 'B', text: 'total == 1800', role: 'distractor'},
    {label: 'C', text: 'total == 0', role: 'distractor'},
    {label: 'D', text: 'Explanation insufficient to answer.', role: 'insufficient'},
  ],
  answer: 'A',
});
export const EFFECT = validateQuestion({
  id: 'q-effect',
  instance: 'i1',
  type: 'local_effect',
  agent: 'agent-x',
  context: {function: 'def f(): ...', line: 'return', timing: 'after'},
  question: 'Which expression changes?',
  choices: [
    {label: 'A', text: 'parts', role: 'correct'},
    {label: 'B', text: 'seen', role: 'distractor'},
    {label: 'C', text: 'The patch has no effect.', role: 'no_effect'},
    {label: 'D', text: 'Explanation insufficient to answer.', role: 'insufficient'},
  ],
  answer: 'A',
});
