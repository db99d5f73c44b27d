/**
 * ExplainBench questions (§4.4): four types, multiple choice, one "insufficient" option on
 * every question and a "no effect" option on local effect questions. The JSONL interchange
 * format is validated here; errors name the field.
 */

export const QUESTION_TYPES = ['e2e_intent', 'e2e_effect', 'local_intent', 'local_effect'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];
const ROLES = ['correct', 'distractor', 'insufficient', 'no_effect'] as const;
export type Role = (typeof ROLES)[number];

export const INSUFFICIENT_TEXT = 'Explanation insufficient to answer.';
/** The local effect choice that is the key when the patch changes nothing the test runs. */
export const NO_EFFECT_TEXT = 'The patch has no effect.';

export interface Choice {
  label: string;
  text: string;
  role: Role;
}

export interface Question {
  id: string;
  instance: string;
  type: QuestionType;
  /** the agent run an effect question is about (a stored trajectory id), if known */
  trajectory: number | null;
  /** the agent whose patch an effect question is about */
  agent: string | null;
  context: Record<string, unknown>;
  question: string;
  choices: Choice[];
  /** one letter; for end-to-end effect [before, after] */
  answer: string[];
}

export class QuestionError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const isEffect = (t: QuestionType) => t === 'e2e_effect' || t === 'local_effect';

/** Validates one interchange record; labels are normalised to upper case. */
export function validateQuestion(raw: unknown): Question {
  if (!isObj(raw)) throw new QuestionError('a question is a JSON object', '(line)');
  const known = new Set(['id', 'instance', 'type', 'trajectory', 'agent', 'context', 'question', 'choices', 'answer']);
  for (const key of Object.keys(raw)) if (!known.has(key)) throw new QuestionError(`unknown field "${key}"`, key);
  const str = (field: string, optional = false): string | null => {
    const v = raw[field];
    if (v === undefined || v === null) {
      if (optional) return null;
      throw new QuestionError(`"${field}" is missing`, field);
    }
    if (typeof v !== 'string' || !v.trim()) throw new QuestionError(`"${field}" must be a non-empty string`, field);
    return v;
  };
  const id = str('id')!;
  const instance = str('instance')!;
  const type = str('type')! as QuestionType;
  if (!QUESTION_TYPES.includes(type))
    throw new QuestionError(`"type" must be one of ${QUESTION_TYPES.join(', ')} (got "${type}")`, 'type');
  const trajectory = raw.trajectory ?? null;
  if (trajectory !== null && !(typeof trajectory === 'number' && Number.isInteger(trajectory)))
    throw new QuestionError('"trajectory" must be a run id (integer)', 'trajectory');
  const agent = str('agent', true);
  if (isEffect(type) && trajectory === null && agent === null)
    throw new QuestionError(`a ${type} question needs "trajectory" or "agent" (whose patch it is about)`, 'trajectory');
  if (!isObj(raw.context)) throw new QuestionError('"context" must be an object', 'context');
  const question = str('question')!;
  if (!Array.isArray(raw.choices) || raw.choices.length < 2)
    throw new QuestionError('"choices" must be a list of at least two choices', 'choices');
  const choices: Choice[] = raw.choices.map((c, i) => {
    const where = `choices[${i}]`;
    if (!isObj(c)) throw new QuestionError(`${where} must be an object`, where);
    if (typeof c.label !== 'string' || !/^[A-Za-z]$/.test(c.label))
      throw new QuestionError(`${where}.label must be one letter`, `${where}.label`);
    if (typeof c.text !== 'string' || !c.text.trim())
      throw new QuestionError(`${where}.text must be a non-empty string`, `${where}.text`);
    if (!ROLES.includes(c.role as Role))
      throw new QuestionError(`${where}.role must be one of ${ROLES.join(', ')}`, `${where}.role`);
    return {label: c.label.toUpperCase(), text: c.text, role: c.role as Role};
  });
  const seen = new Set<string>();
  for (const [i, c] of choices.entries()) {
    if (seen.has(c.label)) throw new QuestionError(`duplicate label ${c.label}`, `choices[${i}].label`);
    seen.add(c.label);
  }
  const count = (role: Role) => choices.filter(c => c.role === role).length;
  if (count('insufficient') !== 1)
    throw new QuestionError(
      `every question has exactly one "insufficient" choice (found ${count('insufficient')})`,
      'choices',
    );
  if (type === 'local_effect' && count('no_effect') !== 1)
    throw new QuestionError('a local_effect question has exactly one "no_effect" choice', 'choices');
  if (type !== 'local_effect' && count('no_effect') > 0)
    throw new QuestionError('only local_effect questions have a "no_effect" choice', 'choices');
  const answerRaw = raw.answer;
  const answer = (Array.isArray(answerRaw) ? answerRaw : [answerRaw]).map(a =>
    typeof a === 'string' ? a.toUpperCase() : a,
  );
  const want = type === 'e2e_effect' ? 2 : 1;
  if (answer.length !== want || answer.some(a => typeof a !== 'string' || !/^[A-Z]$/.test(a))) {
    throw new QuestionError(
      type === 'e2e_effect' ? '"answer" must be [before, after], two letters' : '"answer" must be one letter',
      'answer',
    );
  }
  for (const a of answer as string[]) {
    const c = choices.find(x => x.label === a);
    if (!c) throw new QuestionError(`"answer" ${a} is not a choice (labels: ${[...seen].join(', ')})`, 'answer');
    if (type !== 'e2e_effect' && c.role !== 'correct' && !(type === 'local_effect' && c.role === 'no_effect')) {
      throw new QuestionError(`"answer" ${a} is a ${c.role} choice`, 'answer');
    }
  }
  return {
    id,
    instance,
    type,
    trajectory: trajectory as number | null,
    agent,
    context: raw.context,
    question,
    choices,
    answer: answer as string[],
  };
}

/** The interchange record (field order fixed, so export → import → export is identical). */
export function questionRecord(q: Question): Record<string, unknown> {
  return {
    id: q.id,
    instance: q.instance,
    type: q.type,
    ...(q.trajectory !== null ? {trajectory: q.trajectory} : {}),
    ...(q.agent !== null ? {agent: q.agent} : {}),
    context: q.context,
    question: q.question,
    choices: q.choices.map(c => ({label: c.label, text: c.text, role: c.role})),
    answer: q.type === 'e2e_effect' ? q.answer : q.answer[0],
  };
}
