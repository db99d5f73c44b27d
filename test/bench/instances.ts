/**
 * SWE-bench instances: what tracing from a record costs over tracing trees laid out by hand (the
 * export of the base commit from a clone and the two patches applied, in the sandbox), on a real
 * sympy fix (PR #24562: `Rational('1.5', '1.5')`); and what running in an image's file system
 * costs over the plain sandbox at start-up (`python -c pass` confined both ways, the image built
 * from the host's own Python as the tests build it).
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {mkdirSync, rmSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {pythonRunner, TRACER_DIR} from '../../source/services/python.js';
import {bwrapArgs, runEnv} from '../../source/services/sandbox.js';
import {makeImage} from '../helpers/image.js';
import {ROOT} from '../helpers/paths.js';
import {sympyClone} from './git-trees.js';

const PY = process.env['DELTALENS_PYTHON'] ?? 'python3';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function time(cmd: string[], cwd: string): {s: number; code: number | null; stdout: string} {
  const t = performance.now();
  const r = spawnSync(cmd[0]!, cmd.slice(1), {cwd, encoding: 'utf8', maxBuffer: 1 << 28});
  return {s: (performance.now() - t) / 1000, code: r.status, stdout: r.stdout};
}

/** A SWE-bench dataset row for a merged sympy pull request: base = first parent, tests split off. */
export function record(gitDir: string, pr: string, failToPass: string[]): Record<string, unknown> | string {
  const merges = execFileSync('git', ['--git-dir', gitDir, 'log', '--merges', '--format=%H %P|%s', 'HEAD'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const line = merges.split('\n').find(l => l.includes(`|Merge pull request #${pr} `));
  if (!line) return `no merge of PR #${pr} in ${gitDir}`;
  const [merge, parent] = line.split(' ') as [string, string];
  const files = execFileSync('git', ['--git-dir', gitDir, 'diff', '--name-only', parent, merge], {encoding: 'utf8'})
    .trim()
    .split('\n');
  const tests = files.filter(f => f.includes('/tests/'));
  const diff = (paths: string[]) =>
    execFileSync('git', ['--git-dir', gitDir, 'diff', parent, merge, '--', ...paths], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
  return {
    repo: 'sympy/sympy',
    instance_id: `sympy__sympy-${pr}`,
    base_commit: parent,
    patch: diff(files.filter(f => !tests.includes(f))),
    test_patch: diff(tests),
    problem_statement: `PR #${pr}`,
    FAIL_TO_PASS: JSON.stringify(failToPass),
    PASS_TO_PASS: '[]',
  };
}

export async function benchInstances(out: string, log: (line: string) => void): Promise<void> {
  log('\n## SWE-bench instances: tracing from a record, and the image path');
  const dir = join(out, 'instances');
  rmSync(dir, {recursive: true, force: true});
  mkdirSync(dir, {recursive: true});
  const bin = join(ROOT, 'bin', 'deltalens.js');
  const clone = sympyClone();
  if (!clone) log('record vs hand-laid trees: skipped (set DELTALENS_SYMPY_GIT to a clone of sympy/sympy)');
  else {
    const {path: sympy, gitDir} = clone;
    const rec = record(gitDir, '24562', ['test_issue_24543']);
    if (typeof rec === 'string') log(`record vs hand-laid trees: skipped (${rec})`);
    else {
      writeFileSync(join(dir, 'rows.json'), JSON.stringify([rec]));
      execFileSync(process.execPath, [bin, 'instances', 'import', 'rows.json', '--db', 'bench.db'], {cwd: dir});
      // the same trees by hand: the base exported, the test patch and the fix applied
      const buggy = join(dir, 'buggy');
      const fixed = join(dir, 'fixed');
      for (const t of [buggy, fixed]) {
        rmSync(t, {recursive: true, force: true});
        mkdirSync(t);
        const archive = spawnSync('git', ['--git-dir', gitDir, 'archive', String(rec['base_commit'])], {
          maxBuffer: 1 << 30,
        });
        spawnSync('tar', ['-x', '-C', t], {input: archive.stdout});
        writeFileSync(join(dir, 'test.diff'), String(rec['test_patch']));
        // not git apply: inside a checkout (the bench's output is under this repository) it applies
        // relative to that repository's top and skips the rest without a word
        execFileSync('patch', ['-p1', '-s', '-i', join(dir, 'test.diff')], {cwd: t});
      }
      writeFileSync(join(dir, 'fix.diff'), String(rec['patch']));
      execFileSync('patch', ['-p1', '-s', '-i', join(dir, 'fix.diff')], {cwd: fixed});
      const fromRecord: number[] = [];
      const byHand: number[] = [];
      for (let i = 0; i < 3; i++) {
        const a = time(
          [
            process.execPath,
            bin,
            'trace',
            '--instance',
            'sympy__sympy-24562',
            '--repo',
            sympy,
            '--gold',
            '--python',
            PY,
            '--db',
            'bench.db',
            '--json',
          ],
          dir,
        );
        const b = time(
          [
            process.execPath,
            bin,
            'trace',
            '--buggy-dir',
            buggy,
            '--patched-dir',
            fixed,
            '--test',
            'sympy/core/tests/test_numbers.py::test_issue_24543',
            '--runner',
            'function',
            '--python',
            PY,
            '--db',
            'bench.db',
            '--json',
          ],
          dir,
        );
        if (a.code !== 0 || b.code !== 0) {
          log(`record vs hand-laid trees: a trace failed (exit ${a.code} / ${b.code})`);
          break;
        }
        fromRecord.push(a.s);
        byHand.push(b.s);
      }
      if (fromRecord.length === 3) {
        log(
          `a pair traced from the record (export + test patch + fix, in the sandbox): ${median(fromRecord).toFixed(1)} s; from the same trees laid out by hand: ${median(byHand).toFixed(1)} s — the layout costs ${(median(fromRecord) - median(byHand)).toFixed(1)} s (${(median(fromRecord) / median(byHand)).toFixed(2)}×), median of 3, sympy PR #24562, ${PY}`,
        );
      }
    }
  }
  // start-up: python -c pass, confined on the host's system vs in an image's
  const image = join(dir, 'image');
  try {
    makeImage(image, join(ROOT, 'tracer', 'tests', 'fixtures', 'runners'));
  } catch (error) {
    log(`image start-up: skipped (${(error as Error).message})`);
    return;
  }
  const host = await pythonRunner('/usr/bin/python3', 'require');
  const inImage = await pythonRunner('/usr/bin/python3', 'require', {image});
  const once = (runner: typeof host) => {
    const args = bwrapArgs({
      writable: [],
      cwd: '/',
      python: runner.install,
      tracerDir: TRACER_DIR,
      image: runner.image,
    });
    const env = runEnv({python: runner.install, confined: true, tracerDir: TRACER_DIR, image: Boolean(runner.image)});
    const t = performance.now();
    const r = spawnSync(runner.confinement.bwrap!, [...args, '--', runner.install.executable, '-c', 'pass'], {env});
    if (r.status !== 0) throw new Error(String(r.stderr));
    return (performance.now() - t) / 1000;
  };
  const plain: number[] = [];
  const imaged: number[] = [];
  for (let i = 0; i < 15; i++) {
    plain.push(once(host));
    imaged.push(once(inImage));
  }
  log(
    `start-up confined, python -c pass (median of 15): on the host's system ${(median(plain) * 1000).toFixed(0)} ms, in an image's file system ${(median(imaged) * 1000).toFixed(0)} ms (+${((median(imaged) - median(plain)) * 1000).toFixed(0)} ms)`,
  );
}
