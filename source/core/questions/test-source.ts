/**
 * Reading a test's (or a function's) source as text: its lines numbered as in the file, the test
 * function's lines, its assert lines, a function's parameters. A plain scan by indentation — no
 * code is parsed or run here.
 */
export const testFileOf = (nodeid: string) => nodeid.split('::')[0]!;
export const testPathOf = (nodeid: string) => nodeid.split('::').slice(1).join('::');

/** Lines of a function's source, numbered as in the file ("11: assert …"). */
export function numbered(source: string, firstLine: number): string {
  return source
    .replace(/\n$/, '')
    .split('\n')
    .map((l, i) => `${firstLine + i}: ${l}`)
    .join('\n');
}

/** The first and last line of the test function (by indentation), or null. */
export function functionLines(text: string, fnPath: string): [number, number] | null {
  const name = fnPath.split('::').at(-1)!.split('[')[0]!;
  const lines = text.split('\n');
  const start = lines.findIndex(l =>
    new RegExp(`^\\s*(async\\s+)?def\\s+${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\(`).test(l),
  );
  return start < 0 ? null : [start + 1, blockEnd(lines, start + 1)];
}

/** The test function's lines with the decorators above it, numbered as in the file; the whole file when the function is not found. */
export function testFunctionContext(text: string, fnPath: string): string {
  const range = functionLines(text, fnPath);
  if (!range) return numbered(text, 1);
  const lines = text.split('\n');
  const indent = /^\s*/.exec(lines[range[0] - 1]!)![0];
  // up over its decorators, a decorator's arguments over several lines included
  let first = range[0];
  for (let k = range[0] - 1; k >= 1; k--) {
    const line = lines[k - 1]!;
    if (!line.trim()) break;
    if (line.startsWith(`${indent}@`)) first = k;
    else if (!(line.startsWith(`${indent} `) || line.startsWith(`${indent}\t`) || /^\s*[)\]}]/.test(line))) break;
  }
  return numbered(lines.slice(first - 1, range[1]).join('\n'), first);
}

/** Line numbers of the assert statements of the test function (a plain scan: `assert` at the
 * start of a line of the function's body). */
export function assertLines(text: string, fnPath: string): number[] {
  const range = functionLines(text, fnPath);
  if (!range) return [];
  const lines = text.split('\n');
  const out: number[] = [];
  for (let n = range[0] + 1; n <= range[1]; n++) if (/^\s*assert\b/.test(lines[n - 1]!)) out.push(n);
  return out;
}

export const ordinal = (n: number) =>
  `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;

/** The parameter names of a one-line `def` (null when the line is not one): defaults,
 * annotations and stars dropped. */
export function parametersOf(defLine: string): string[] | null {
  const m = /^\s*(?:async\s+)?def\s+\w+\s*\((.*)\)\s*(?:->.*)?:/.exec(defLine);
  if (!m) return null;
  return m[1]!
    .split(',')
    .map(p =>
      p
        .split(/[:=]/)[0]!
        .replace(/^\s*\*{1,2}/, '')
        .trim(),
    )
    .filter(p => p && p !== '/' && p !== '*');
}

/** The last line (1-based) of the block whose header is line `first`: the lines after it that are
 * more indented (or blank, or closing a bracket at its indent), trailing blank lines left out. */
function blockEnd(lines: string[], first: number): number {
  const indent = /^\s*/.exec(lines[first - 1] ?? '')![0].length;
  let end = first;
  for (let i = first; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() && /^\s*/.exec(l)![0].length <= indent && !/^\s*[)\]}]/.test(l)) break;
    if (l.trim()) end = i + 1;
  }
  return end;
}

/** The function around `defLine` in `source` (by indentation). */
export function functionSource(source: string[], defLine: number): string {
  return source.slice(defLine - 1, blockEnd(source, defLine)).join('\n');
}
