import {formatValue} from '../trace/values.js';
import {functionSource} from './test-source.js';

/** The prompts a generating model gets when it writes candidates (ExplainBench §5.2–5.3). */

/** What the local prompt reads of a delta point (the stepper's DeltaPoint has it). */
interface PointView {
  line: number;
  timing: string;
  defLine: number | null;
  source: string[] | null;
  locals: Map<string, unknown> | null;
}
/** The prompt for end-to-end intent distractors (ExplainBench §5.2.2): similar, wrong. */
export function intentPrompt(masked: string, expected: string): string {
  return [
    'A test checks a bug fix. Its expected-behaviour expression is masked as [[MASKED]]:',
    '',
    masked,
    '',
    `The correct expression is: ${expected}`,
    '',
    'Write 6 alternative Python expressions that could plausibly replace [[MASKED]] but describe',
    'different (wrong) behaviour: similar in form to the correct one. One expression per line,',
    'nothing else on the line, no explanation.',
  ].join('\n');
}

/** The prompt for local candidates (§5.3): the function on the buggy side, the line, the variables
 * at the delta point with the ones that differ between the versions marked. */
export function localPrompt(pb: PointView, pp: PointView, d: {function: string | null; line: number | null}): string {
  const vars = (p: PointView) => [...(p.locals ?? new Map())].map(([k, v]) => `${k} = ${formatValue(v, 120)}`);
  const bv = vars(pb);
  const pv = new Set(vars(pp));
  const source = pb.defLine && pb.source ? functionSource(pb.source, pb.defLine) : '';
  return [
    `A patch changes the behaviour of ${d.function} at line ${d.line}. The function before the patch:`,
    '',
    source,
    '',
    `At line ${pb.line} (${pb.timing} it runs), the variables are (≠: differs after the patch):`,
    ...bv.map(v => `  ${pv.has(v) ? ' ' : '≠'} ${v}`),
    '',
    'Write 8 Python expressions over these variables that can be evaluated at that point: some',
    'whose value the patch changes and some whose value stays the same. One expression per line,',
    'nothing else on the line.',
  ].join('\n');
}

/** The prompt for end-to-end effect distractors (§5.2.3): other lines and exceptions. */
export function effectPrompt(test: string, before: string, after: string): string {
  return [
    'A test (lines numbered) was run before and after a patch:',
    '',
    test,
    '',
    `Before the patch: ${before}`,
    `After the patch: ${after}`,
    '',
    'Write 4 other plausible but wrong results, each as "line N, ExceptionName" (a line of the',
    'test function where it could fail, and the exception), one per line, nothing else.',
  ].join('\n');
}

export function pbtPrompt(issue: string, gold: string, own: string | null, lastFailure: string | null): string {
  return [
    'Write a bug-reproducing property-based test (pytest with hypothesis) for this issue. It must',
    'fail on the current (buggy) code and pass once the developer fix below is applied.',
    '',
    'Issue:',
    issue,
    '',
    'The developer fix:',
    gold,
    ...(own ? ['', "The developer's own test file:", own] : []),
    ...(lastFailure ? ['', `Your previous test was not usable: ${lastFailure}. Write a different one.`] : []),
    '',
    'Answer with one ```python code block holding the whole test file (imports included), one',
    'test_ function.',
  ].join('\n');
}
