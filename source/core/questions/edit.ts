/**
 * The document an author edits to change a built question, and reading it back. Pure: the
 * re-validation that decides whether an edit may be saved is services/question-revalidate.ts.
 */
import {INSUFFICIENT_TEXT, NO_EFFECT_TEXT, QuestionError, validateQuestion, type Question} from './model.js';

/** The text an author edits: the question, its choices with their roles, and the answer. The
 * context is shown but cannot change (a different context is a different question: rebuild). */
export function editDocument(q: Question): string {
  return `${JSON.stringify(
    {
      question: q.question,
      choices: q.choices.map(c => ({label: c.label, text: c.text, role: c.role})),
      answer: q.type === 'e2e_effect' ? q.answer : q.answer[0],
      note: '',
      context: q.context,
    },
    null,
    2,
  )}\n`;
}

/** A choice is an expression or a sentence: one longer than this is a mistake (a pasted file). */
const MAX_CHOICE_CHARS = 10_000;

/** An edited document read back into a question (the field is named on a mistake). */
export function parseEditDocument(text: string, q: Question): {question: Question; note: string | null} {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new QuestionError(`the edit is not JSON: ${(error as Error).message}`, '(document)');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new QuestionError('the edit is a JSON object', '(document)');
  const doc = raw as Record<string, unknown>;
  for (const k of Object.keys(doc))
    if (!['question', 'choices', 'answer', 'note', 'context'].includes(k))
      throw new QuestionError(
        `unknown field "${k}" (question, choices, answer, note; context is shown, not edited)`,
        k,
      );
  if (doc.context !== undefined && JSON.stringify(doc.context) !== JSON.stringify(q.context))
    throw new QuestionError(
      'the context cannot be edited (it is what the choices were validated against): build the question again to change it',
      'context',
    );
  if (doc.note !== undefined && typeof doc.note !== 'string')
    throw new QuestionError('"note" must be a string', 'note');
  const question = validateQuestion({
    id: q.id,
    instance: q.instance,
    type: q.type,
    ...(q.trajectory !== null ? {trajectory: q.trajectory} : {}),
    ...(q.agent !== null ? {agent: q.agent} : {}),
    context: q.context,
    question: doc.question,
    choices: doc.choices,
    answer: doc.answer,
  });
  for (const [i, c] of question.choices.entries()) {
    if (c.text.length > MAX_CHOICE_CHARS)
      throw new QuestionError(
        `choice ${c.label} is ${c.text.length.toLocaleString('en-US')} characters; a choice holds at most ${MAX_CHOICE_CHARS.toLocaleString('en-US')}`,
        `choices[${i}].text`,
      );
    if (c.role === 'insufficient' && c.text !== INSUFFICIENT_TEXT)
      throw new QuestionError(
        `the "insufficient" choice's text is fixed: "${INSUFFICIENT_TEXT}"`,
        `choices[${i}].text`,
      );
    if (c.role === 'no_effect' && c.text !== NO_EFFECT_TEXT)
      throw new QuestionError(`the "no_effect" choice's text is fixed: "${NO_EFFECT_TEXT}"`, `choices[${i}].text`);
  }
  const texts = question.choices.map(c => c.text.trim());
  const twice = texts.findIndex((t, i) => texts.indexOf(t) !== i);
  if (twice >= 0) throw new QuestionError(`"${texts[twice]}" is offered twice`, `choices[${twice}].text`);
  return {question, note: typeof doc.note === 'string' && doc.note.trim() ? doc.note.trim() : null};
}
