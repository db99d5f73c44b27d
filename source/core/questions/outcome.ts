/**
 * A test's run as questions build sees it (ExplainBench §5.2.1): passed, or failed at line N of
 * the test file with an exception; and what two runs say together.
 */
export interface TestOutcome {
  status: 'passed' | 'failed' | 'error' | 'skipped' | 'timeout';
  line: number | null;
  exception: string | null;
  message?: string;
  error?: string;
}

export function outcomeText(o: TestOutcome): string {
  if (o.status === 'passed') return 'The test passed.';
  if (o.status === 'timeout') return 'The test did not finish (timed out).';
  if (o.line !== null && o.exception) return `The test failed at line ${o.line} with exception: ${o.exception}.`;
  if (o.exception) return `The test failed with exception: ${o.exception}.`;
  return 'The test could not run (it errored before its body ran).';
}

export const sameOutcome = (a: TestOutcome, b: TestOutcome) => outcomeText(a) === outcomeText(b);
export const failsBeforePassesAfter = (before: TestOutcome, after: TestOutcome) =>
  before.status !== 'passed' && before.status !== 'skipped' && after.status === 'passed';

/** A test with an expression substituted, run on both versions: does it fail before the fix and
 * pass after it (the expression is also correct), or not run at all (it says nothing)? */
export function judgeVariant(b: TestOutcome, f: TestOutcome): {reproduces: boolean; broken: boolean} {
  return {
    reproduces: failsBeforePassesAfter(b, f),
    broken: [b, f].every(x => x.status === 'error' && x.line === null) || [b, f].some(x => x.status === 'timeout'),
  };
}
