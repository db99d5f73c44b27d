/** The command line was wrong (exit code 2), as opposed to the input or the work failing. */
export class UsageError extends Error {
  override name = 'UsageError';
}
