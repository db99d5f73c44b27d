import {oneLine, sanitize, wrapLines} from '../../../core/text/sanitize.js';
import type {EvalResult} from '../../../core/questions/candidates.js';
import type {Question} from '../../../core/questions/model.js';
import type {TestOutcome} from '../../../core/questions/outcome.js';
import type {ChoiceValidation, ReadProvenance} from '../../../core/questions/provenance.js';
import type {ReviewRow} from '../../../store/questions.js';
import type {DisplayLine} from '../../display-lines.js';
import type {QuestionData} from '../../data/questions.js';

/** The question screen as display lines (context, choices with the key, explanation, answers). */
export function questionLines(
  v: QuestionData,
  o: {showKey: boolean; showPrompt: boolean; width: number},
): DisplayLine[] {
  const out: DisplayLine[] = [];
  const heading = (t: string) => out.push({text: t, role: 'heading'});
  const text = (t: string, language: DisplayLine['language'] = 'plain') => {
    for (const l of wrapLines(sanitize(t), Math.max(10, o.width - 2))) out.push({text: `  ${l}`, language});
  };
  if (o.showPrompt) {
    heading('Prompt as sent (sample 1, its option order):');
    if (v.prompt === null) text('(no prompt: the explanation text is not in the data)');
    else text(v.prompt);
    return out;
  }
  heading('Question');
  text(v.q.question);
  heading('Context');
  for (const [k, val] of Object.entries(v.q.context)) {
    const s = typeof val === 'string' ? val : JSON.stringify(val);
    out.push({text: `  ${k}:`, role: 'muted'});
    text(s, k === 'test' || k === 'function' ? 'python' : 'plain');
  }
  heading(`Choices${o.showKey ? ' (✓ the key)' : ' (key hidden: v shows it)'}`);
  for (const c of v.q.choices) {
    const key = v.q.answer
      .map((k, i) => (k === c.label ? (v.q.type === 'e2e_effect' ? (i === 0 ? 'before' : 'after') : '✓') : null))
      .filter(Boolean);
    out.push({
      text: `  ${o.showKey && key.length ? `✓${key.join('+') === '✓' ? '' : ` ${key.join('+')}`}` : ' '} ${c.label}. ${oneLine(c.text, o.width - 12)}${o.showKey ? `  [${c.role}]` : ''}`,
      role: o.showKey && key.length ? 'added' : undefined,
    });
  }
  heading(`Explanation${v.explanation ? ` (${v.explanation.kind}, #${v.explanation.id})` : ''}`);
  if (!v.explanation) text('(no explanation of this agent for this instance)');
  else if (v.explanation.text === null)
    text('(the text of this explanation is not in the data; its recorded answers are below — e edits a custom one)');
  else text(v.explanation.text || '(blank)');
  heading('Answers (every sample, per model)');
  if (!v.answers.length) text('none yet — r scores this question live');
  else
    out.push({
      text: '  letters are mapped back to the labels above; raw is the reply to the options in the order that sample showed them (shown as: …)',
      role: 'muted',
    });
  const models = [...new Set(v.answers.map(a => a.model))];
  for (const m of models) {
    const rows = v.answers.filter(a => a.model === m);
    const ok = rows.filter(a => a.verdict === 'correct').length;
    out.push({
      text: `  ${m}${m === 'lexical' ? ' (baseline)' : ''}: ${o.showKey ? `${ok}/${rows.length} correct` : `${rows.length} sample(s), verdicts hidden`}`,
      role: 'muted',
    });
    for (const a of rows) {
      const verdict = o.showKey ? (a.verdict ?? 'unparseable') : 'verdict hidden';
      const shown = a.order ? ` · shown as ${a.order.join('')}` : '';
      out.push({
        text: `    sample ${a.sample + 1}: ${a.letters ? a.letters.join(', ') : '—'} · ${verdict}${shown} · raw ${oneLine(a.raw ?? '', Math.max(10, o.width - 50 - shown.length))}`,
        role: a.verdict === 'correct' && o.showKey ? 'added' : a.verdict && o.showKey ? 'removed' : undefined,
      });
    }
  }
  return out;
}

const outcome = (o: TestOutcome | undefined) =>
  !o
    ? '?'
    : o.status === 'passed'
      ? 'passed'
      : `${o.status}${o.line ? ` at line ${o.line}` : ''}${o.exception ? ` (${o.exception})` : ''}`;
const value = (r: EvalResult | undefined) =>
  !r
    ? '?'
    : r.error
      ? `raises ${r.error.type}${r.error.message ? `: ${r.error.message}` : ''}`
      : JSON.stringify(r.value);

/** What one choice's validation says, whichever way it was validated. */
function validationText(v: ChoiceValidation): string {
  if ('edited' in v) return `edited and re-validated: ${v.reason}`;
  if ('kept' in v && v.buggy && v.fixed)
    return `${v.reason} — with it: buggy ${outcome(v.buggy)}, fixed ${outcome(v.fixed)}`;
  if ('patched' in v)
    return `buggy ${value(v.buggy)} | patched ${value(v.patched)} → ${v.changed ? 'changed' : 'unchanged'}`;
  if ('expected' in v) return `the test's own expression: buggy ${outcome(v.buggy)}, fixed ${outcome(v.fixed)}`;
  if ('observed' in v)
    return Array.isArray(v.observed)
      ? `observed ${v.observed.join(' and ')}`
      : `${('how' in v && v.how) || 'a distractor'}; observed ${v.observed}`;
  if ('wrong_because' in v) return v.wrong_because;
  if ('reason' in v) return v.reason;
  return JSON.stringify(v);
}

/**
 * "Why is B the key? Why was this candidate dropped?": a built question's provenance as lines —
 * how the test ran, each choice's validation, the candidates that were dropped and why. A
 * provenance that does not read as a built question's says which fields are wrong.
 */
export function provenanceLines(
  p: {provenance: ReadProvenance; validations: Record<string, ChoiceValidation>; reviews?: ReviewRow[]} | null,
  q: Question,
  width: number,
): DisplayLine[] {
  if (!p || (!p.provenance.built && !p.provenance.problems.length)) return [];
  const out: DisplayLine[] = [{text: ''}];
  const text = (t: string, role?: DisplayLine['role']) => {
    for (const l of wrapLines(sanitize(t), Math.max(10, width - 2)))
      out.push({text: `  ${l}`, ...(role ? {role} : {})});
  };
  const reviews = p.reviews ?? [];
  const last = reviews.at(-1);
  out.push({
    text: `Review: ${last && last.action !== 'rebuilt' ? `${last.action} by ${sanitize(last.reviewer)}` : 'not reviewed yet'} (A accept · X reject · E edit)`,
    role: 'heading',
  });
  for (const r of reviews)
    text(
      `${r.created_at.slice(0, 16).replace('T', ' ')} ${r.action} by ${r.reviewer}${r.note ? ` — ${r.note}` : ''}${
        r.action === 'edited' && r.previous
          ? ` (was: ${r.previous.choices
              .filter(c => c.role === 'correct' || c.role === 'distractor')
              .map(c => `${c.label}. ${c.text}`)
              .join(' · ')})`
          : ''
      }`,
      r.action === 'rejected' ? 'removed' : 'muted',
    );
  out.push({text: ''}, {text: 'How it was built (deltalens questions build)', role: 'heading'});
  const prov = p.provenance.built;
  if (!prov) {
    text(`the stored provenance does not read as a built ${q.type} question's:`, 'removed');
    for (const problem of p.provenance.problems.slice(0, 8)) text(`  ${problem}`, 'removed');
    if (p.provenance.problems.length > 8) text(`  … ${p.provenance.problems.length - 8} more`, 'removed');
    return out;
  }
  text(`${prov.generator} generators, builder v${prov.builder_version}, seed ${prov.seed}; test ${prov.test}`, 'muted');
  if (prov.hypothesis)
    text(
      `hypothesis: ${
        prov.hypothesis.falsifying
          ? `the failing example ${String(prov.hypothesis.falsifying)
              .replace(/\s*#[^\n]*/g, '')
              .replace(/\s+/g, ' ')}`
          : prov.hypothesis.search
      }; the test's runs: ${prov.hypothesis.test_runs}; traced and evaluated on ${prov.hypothesis.traced_and_evaluated_on}`,
      'muted',
    );
  text(
    `the test: buggy ${prov.test_validation.buggy.map(outcome).join(', ')}; fixed ${prov.test_validation.fixed.map(outcome).join(', ')}`,
    'muted',
  );
  if ('expected' in prov)
    text(
      `the expected expression (line ${prov.expected.line}, ${prov.expected.form ?? (prov.expected.marked ? 'marked [[EXPECTED]]' : 'the asserted comparison')}): ${prov.expected.expr}`,
    );
  if ('evaluated_at' in prov) {
    const at = prov.evaluated_at.buggy;
    text(
      `evaluated ${at.timing === 'return' ? 'at the return of the call that runs' : at.timing} ${at.file}:${at.line} (execution ${at.hit}) on both versions; changed = ${prov.changed_means}`,
    );
  }
  if ('no_effect' in prov)
    text(
      `no effect: the traces are complete and show no difference (${prov.no_effect.steps_compared} aligned steps compared)`,
    );
  if ('after' in prov) text(`after ${prov.agent}'s patch: ${prov.after.map(outcome).join(', ')}`);
  for (const c of q.choices) {
    const v = p.validations[c.label];
    if (!v) continue;
    text(
      `${c.label} (${c.role}): ${validationText(v)}`,
      c.role === 'correct' || (c.role === 'no_effect' && q.answer.includes(c.label)) ? 'added' : undefined,
    );
  }
  const candidates: {text: string; how?: string; kept?: boolean; reason?: string; changed?: boolean}[] =
    'candidates' in prov ? prov.candidates : [];
  const dropped = candidates.filter(c => c.kept === false);
  if (dropped.length) {
    text(`dropped candidates (${dropped.length}):`, 'muted');
    for (const c of dropped) text(`  ${c.text} (${c.how}): ${c.reason}`, 'removed');
  }
  const unused = candidates.filter(c => 'changed' in c && !q.choices.some(x => x.text === c.text));
  if (unused.length)
    text(
      `other candidates evaluated: ${unused.map(c => `${c.text} ${c.changed ? '(changed)' : '(unchanged)'}`).join(', ')}`,
      'muted',
    );
  return out;
}
