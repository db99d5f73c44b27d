/** The Python test a model wrote: its first ```python (or bare ```) block, else the whole
 * answer when a line of it starts a test function; null when there is none. */
export function pythonTestCode(answer: string): string | null {
  return (
    /```(?:python|py)?\s*\n([\s\S]*?)```/.exec(answer)?.[1] ??
    (/^\s*(?:async\s+)?def\s+test\w*\s*\(/m.test(answer) ? answer : null)
  );
}
