/**
 * Real sympy bug fixes no one here prepared, each traced with its own test: from sympy's history
 * (DELTALENS_SYMPY_GIT), the newest merged pull requests up to 2026-08-22 whose fix changes one
 * source file (≤ 40 lines) and one test file, where exactly one test function changed, and whose
 * message says it fixes something. As SWE-bench lays an instance out: the buggy tree is the first
 * parent with the fix's test file put in, the fixed tree the merge; the test must fail on the
 * buggy tree and pass on the fixed one (pytest, untraced). Then `deltalens trace` on the pair.
 * Reported: how many deltas land at the fix (in a function the fix changed, in a function that
 * reads a name it changed at module level, or at the call of a function it adds), the others
 * named, and the time per pair against its two plain pytest runs. Then, per fix, two patches that
 * change no behaviour, traced with the same test, ∅ expected: a comment at the place the fix
 * changes (a comment line put before the first line the fix touches, in the buggy tree), and a
 * docstring edit of the function around that place (a sentence added to its docstring; fixes
 * whose function has none are passed over).
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {cli} from './cli.js';
import {exportTree, sympyClone} from './git-trees.js';

const PY = process.env['DELTALENS_PYTHON'] ?? 'python3';

/** Adds a sentence to the docstring of the innermost function around a line (ast: no code runs). */
const EDIT_DOCSTRING = `import ast, sys
path, line = sys.argv[1], int(sys.argv[2])
text = open(path, encoding="utf-8").read()
best = None
for node in ast.walk(ast.parse(text)):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= node.end_lineno:
        if best is None or node.lineno > best.lineno:
            best = node
if best is None or ast.get_docstring(best) is None:
    sys.exit(3)
doc = best.body[0].value
lines = text.split("\\n")
end = lines[doc.end_lineno - 1]
quote = end.rstrip()[-3:]
cut = end.rstrip()[:-3]
lines[doc.end_lineno - 1] = cut + (" " if cut.strip() else "") + "Edited by a docstring-only patch." + quote
open(path, "w", encoding="utf-8").write("\\n".join(lines))
`;
const WANT = Number(process.env['BENCH_HELDOUT_N'] ?? 10);
const UNTIL = '2026-08-22T23:59:59Z';

interface Pick {
  pr: string;
  merge: string;
  parent: string;
  src: string;
  testFile: string;
  test: string;
}

/** What one fix gave, kept so that a stopped run continues where it stopped. */
interface Done {
  lines: string[];
  ratio: number;
  hit: boolean;
  none: boolean;
  docTried: boolean;
  docNone: boolean;
}

function git(dir: string, args: string[]): string {
  return execFileSync('git', ['--git-dir', dir, ...args], {encoding: 'utf8', maxBuffer: 1 << 28});
}

/** The test functions of a file whose lines the merge touched (the file as merged). */
function changedTests(gitDir: string, merge: string, path: string): string[] {
  const diff = git(gitDir, ['diff', '-U0', `${merge}^1`, merge, '--', path]);
  const touched: number[] = [];
  for (const m of diff.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
    const start = Number(m[1]);
    const n = Math.max(Number(m[2] ?? 1), 1);
    for (let i = 0; i < n; i++) touched.push(start + i);
  }
  const src = git(gitDir, ['show', `${merge}:${path}`]).split('\n');
  const out: string[] = [];
  const defs = src.map((line, i) => ({name: /^def (test_\w+)\(/.exec(line)?.[1], line: i + 1})).filter(d => d.name);
  for (const [k, d] of defs.entries()) {
    const end = k + 1 < defs.length ? defs[k + 1]!.line - 1 : src.length;
    if (touched.some(l => l >= d.line && l <= end)) out.push(d.name!);
  }
  return out;
}

function pytest(tree: string, id: string): {code: number | null; s: number} {
  const t = performance.now();
  const r = spawnSync(PY, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', id], {
    cwd: tree,
    timeout: 600_000,
    env: {PATH: '/usr/bin:/bin', HOME: '/tmp', PYTHONHASHSEED: '0'},
  });
  return {code: r.status, s: (performance.now() - t) / 1000};
}

export async function benchHeldOut(out: string, log: (line: string) => void): Promise<void> {
  log('\n## Real sympy fixes traced with their own tests');
  const sympy = sympyClone();
  if (!sympy) {
    log('skipped: set DELTALENS_SYMPY_GIT to a clone of sympy/sympy');
    return;
  }
  const {gitDir} = sympy;
  const dir = join(out, 'heldout');
  mkdirSync(dir, {recursive: true});
  // a run that was stopped continues where it stopped (BENCH_HELDOUT_REDO=1 starts over)
  const redo = Boolean(process.env['BENCH_HELDOUT_REDO']);
  const picksFile = join(dir, 'picks.json');
  const doneFile = join(dir, 'results.json');
  const done: Record<string, Done> = existsSync(doneFile) && !redo ? JSON.parse(readFileSync(doneFile, 'utf8')) : {};
  const picks: (Pick & {plain: number})[] =
    existsSync(picksFile) && !redo ? JSON.parse(readFileSync(picksFile, 'utf8')) : [];
  for (const line of picks.length
    ? []
    : git(gitDir, [
        'log',
        '--merges',
        '--first-parent',
        '--until',
        UNTIL,
        '--since',
        '2023-06-01',
        '--format=%H %P|%s',
        'HEAD',
      ]).split('\n')) {
    if (picks.length >= WANT) break;
    const m = /^(\w+) (\w+) \w+.*\|Merge pull request #(\d+) /.exec(line);
    if (!m) continue;
    const [, merge, parent, pr] = m as unknown as [string, string, string, string];
    const rows = git(gitDir, ['diff', '--numstat', parent, merge])
      .trim()
      .split('\n')
      .map(r => r.split('\t'));
    const src = rows.filter(r => r[2]?.endsWith('.py') && !r[2].includes('/tests/'));
    const tests = rows.filter(r => r[2]?.includes('/tests/test_'));
    const other = rows.filter(
      r => !src.includes(r) && !tests.includes(r) && !/^\.mailmap$|\.md$|release|AUTHORS/.test(r[2] ?? ''),
    );
    if (src.length !== 1 || tests.length !== 1 || other.length || Number(src[0]![0]) + Number(src[0]![1]) > 40)
      continue;
    const body = git(gitDir, ['log', '-1', '--format=%s %b', merge]);
    if (!/\bfix|bug|wrong|incorrect|error|raise/i.test(body)) continue;
    const changed = changedTests(gitDir, merge, tests[0]![2]!);
    if (changed.length !== 1) continue;
    const tree = join(dir, pr);
    exportTree(gitDir, parent, join(tree, 'buggy'));
    exportTree(gitDir, merge, join(tree, 'fixed'));
    writeFileSync(join(tree, 'buggy', tests[0]![2]!), git(gitDir, ['show', `${merge}:${tests[0]![2]}`]));
    const test = `${tests[0]![2]}::${changed[0]}`;
    const before = pytest(join(tree, 'buggy'), test);
    const after = pytest(join(tree, 'fixed'), test);
    if (before.code !== 1 || after.code !== 0) continue;
    // warm (bytecode written by the runs above), as the traced trees are
    const plain = pytest(join(tree, 'buggy'), test).s + pytest(join(tree, 'fixed'), test).s;
    picks.push({pr, merge, parent, src: src[0]![2]!, testFile: tests[0]![2]!, test, plain});
  }
  writeFileSync(picksFile, JSON.stringify(picks, null, 1));
  log(`${picks.length} fixes (newest first, up to ${UNTIL.slice(0, 10)}), ${PY}`);
  let at = 0;
  let none = 0;
  const docs = {tried: 0, none: 0};
  const ratios: number[] = [];
  const traceJson = async (
    buggy: string,
    patched: string,
    test: string,
    instance: string,
  ): Promise<Record<string, unknown>> => {
    const r = await cli([
      'trace',
      '--buggy-dir',
      buggy,
      '--patched-dir',
      patched,
      '--test',
      test,
      '--python',
      PY,
      '--json',
      '--db',
      join(dir, 'traces.db'),
      '--instance',
      instance,
    ]);
    try {
      return JSON.parse(r.stdout) as Record<string, unknown>;
    } catch {
      return {status: 'error'};
    }
  };
  for (const p of picks) {
    const prior = done[p.pr];
    if (prior) {
      for (const l of prior.lines) log(l);
      ratios.push(prior.ratio);
      at += prior.hit ? 1 : 0;
      none += prior.none ? 1 : 0;
      docs.tried += prior.docTried ? 1 : 0;
      docs.none += prior.docNone ? 1 : 0;
      continue;
    }
    const lines: string[] = [];
    const say = (l: string) => {
      lines.push(l);
      log(l);
    };
    const record = (r: Omit<Done, 'lines'>) => {
      done[p.pr] = {...r, lines};
      writeFileSync(doneFile, JSON.stringify(done, null, 1));
    };
    const t = performance.now();
    const j = await traceJson(join(dir, p.pr, 'buggy'), join(dir, p.pr, 'fixed'), p.test, `sympy__sympy-${p.pr}`);
    const s = (performance.now() - t) / 1000;
    ratios.push(s / p.plain);
    const where = (j['landing'] as {kind: string; target: string | null} | undefined) ?? {kind: '-', target: null};
    const hit = ['changed function', 'reads a changed name', 'calls an added function'].includes(where.kind);
    if (hit) at += 1;
    say(
      `#${p.pr} ${p.test}: ${j['status']} ${j['kind'] ?? ''} in ${j['file'] ?? '-'}:${j['function'] ?? '-'} — ${where.kind}${where.target ? ` (${where.target})` : ''}; ${s.toFixed(0)} s = ${(s / p.plain).toFixed(1)}× its two plain runs`,
    );
    // a comment where the fix changes the code: no behaviour changes
    const commented = join(dir, p.pr, 'comment');
    if (!existsSync(commented)) {
      cpSync(join(dir, p.pr, 'buggy'), commented, {recursive: true});
      const before = readFileSync(join(dir, p.pr, 'buggy', p.src), 'utf8').split('\n');
      const after = readFileSync(join(dir, p.pr, 'fixed', p.src), 'utf8').split('\n');
      let i = 0;
      while (i < before.length && before[i] === after[i]) i++;
      const indent = /^\s*/.exec(before[i] ?? '')![0];
      before.splice(i, 0, `${indent}# a comment that changes nothing`);
      writeFileSync(join(commented, p.src), before.join('\n'));
    }
    const c = await traceJson(join(dir, p.pr, 'buggy'), commented, p.test, `sympy__sympy-${p.pr}-comment`);
    if (c['status'] === 'none') none += 1;
    const said = (x: Record<string, unknown>) =>
      x['status'] === 'none'
        ? '∅'
        : `${x['status']} ${x['kind'] ?? ''} in ${x['function'] ?? '-'} (${x['reason'] ?? JSON.stringify(x['variables'] ?? '').slice(0, 200)})`;
    say(`  a comment at the fix's place: ${said(c)}`);
    const documented = join(dir, p.pr, 'docstring');
    if (!existsSync(documented)) {
      cpSync(join(dir, p.pr, 'buggy'), documented, {recursive: true});
      const before = readFileSync(join(dir, p.pr, 'buggy', p.src), 'utf8').split('\n');
      const after = readFileSync(join(dir, p.pr, 'fixed', p.src), 'utf8').split('\n');
      let i = 0;
      while (i < before.length && before[i] === after[i]) i++;
      if (spawnSync(PY, ['-c', EDIT_DOCSTRING, join(documented, p.src), String(i + 1)]).status !== 0) {
        rmSync(documented, {recursive: true, force: true});
        say('  a docstring edit: passed over (no docstring around the fix)');
        record({ratio: s / p.plain, hit, none: c['status'] === 'none', docTried: false, docNone: false});
        continue;
      }
    }
    docs.tried += 1;
    const d = await traceJson(join(dir, p.pr, 'buggy'), documented, p.test, `sympy__sympy-${p.pr}-docstring`);
    if (d['status'] === 'none') docs.none += 1;
    say(`  a docstring edit of the function there: ${said(d)}`);
    record({ratio: s / p.plain, hit, none: c['status'] === 'none', docTried: true, docNone: d['status'] === 'none'});
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  log(
    `at the fix: ${at} of ${picks.length}; a comment at the fix's place gives ∅: ${none} of ${picks.length}; a docstring edit: ${docs.none} of ${docs.tried}; time per pair: median ${sorted.length ? sorted[Math.floor(sorted.length / 2)]!.toFixed(1) : '-'}× its two plain runs`,
  );
}
