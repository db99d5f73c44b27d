// Runs the Python test suites of the tracer (tracer/tests) with the standard library's unittest
// runner, from tracer/ so `deltatrace` imports as the package it is — on every interpreter from
// 3.6 on this machine (pyenv's versions, python3 on PATH, $DELTALENS_PYTHON), two at a time; with
// --quick on the one deltalens runs only.
// Each says how many tests it left out and why (no pytest for that Python; the question helpers
// before 3.9); an interpreter that fails fails the run.
import {spawn, spawnSync} from 'node:child_process';
import {existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';

const tracer = fileURLToPath(new URL('../tracer', import.meta.url));

function interpreters() {
  const found = [];
  const pyenv = join(process.env.PYENV_ROOT ?? join(process.env.HOME ?? '/root', '.pyenv'), 'versions');
  if (existsSync(pyenv)) for (const v of readdirSync(pyenv)) found.push(join(pyenv, v, 'bin', 'python'));
  for (const p of [process.env.DELTALENS_PYTHON, 'python3', '/usr/bin/python3']) if (p) found.push(p);
  const byVersion = new Map();
  for (const exe of found) {
    const r = spawnSync(exe, ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (r.status !== 0) continue;
    const version = r.stdout.trim();
    const [major, minor] = version.split('.').map(Number);
    if (major !== 3 || minor < 6) continue;
    let real = exe;
    try {
      real = realpathSync(exe);
    } catch {
      /* on PATH: keep the name */
    }
    // one run per version (the first found: pyenv's, then the one on PATH)
    if (![...byVersion.values()].some(x => x.real === real) && !byVersion.has(version))
      byVersion.set(version, {exe, real, version});
  }
  return [...byVersion.values()].sort((a, b) => a.version.localeCompare(b.version, undefined, {numeric: true}));
}

const PURE = [
  'pytest',
  '_pytest',
  'pluggy',
  'iniconfig',
  'packaging',
  'pygments',
  'py.py',
  'hypothesis',
  '_hypothesis_globals.py',
  '_hypothesis_ftz_detector.py',
  '_hypothesis_pytestplugin.py',
  'attr',
  'attrs',
  'sortedcontainers',
];

/**
 * pytest (pure Python) for 3.12+ interpreters that have none, borrowed from one that has it
 * (pytest 9 needs exceptiongroup and tomli before 3.11, so only 3.12 and later can borrow it):
 * a folder of links to its packages and their metadata, put on PYTHONPATH.
 */
function borrowedPytest(list) {
  for (const {exe} of list) {
    const r = spawnSync(exe, ['-c', 'import os, pytest; print(os.path.dirname(os.path.dirname(pytest.__file__)))'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (r.status !== 0) continue;
    const site = r.stdout.trim();
    const dir = mkdtempSync(join(tmpdir(), 'deltalens-pytest-'));
    for (const entry of readdirSync(site)) {
      const base = entry.replace(/-[\d.]+\.dist-info$/, '');
      if (PURE.includes(entry) || PURE.includes(base)) symlinkSync(join(site, entry), join(dir, entry));
    }
    process.on('exit', () => rmSync(dir, {recursive: true, force: true}));
    return dir;
  }
  return null;
}

const hasPytest = exe => spawnSync(exe, ['-c', 'import pytest'], {timeout: 30_000}).status === 0;

function run({exe, version}, borrowed) {
  return new Promise(resolve => {
    const [major, minor] = version.split('.').map(Number);
    const lend = borrowed && major === 3 && minor >= 12 && !hasPytest(exe);
    const extra = lend ? {DELTATRACE_TEST_PATH: borrowed, PYTHONPATH: borrowed} : {};
    const child = spawn(exe, ['-m', 'unittest', 'discover', '-v', '-s', 'tests', '-t', 'tests'], {
      cwd: tracer,
      env: {...process.env, PYTHONDONTWRITEBYTECODE: '1', ...extra},
    });
    let out = '';
    child.stdout.on('data', d => (out += d));
    child.stderr.on('data', d => (out += d));
    child.on('close', code => resolve({version, exe, code, out, lend}));
    child.on('error', error => resolve({version, exe, code: 1, out: String(error), lend}));
  });
}

// --quick (npm test): the one interpreter deltalens runs ($DELTALENS_PYTHON, else python3);
// --others (npm run test:slow): every other version from 3.6 on; neither: all of them
const quick = process.argv.includes('--quick');
const others = process.argv.includes('--others');
const every = interpreters();
const main = (() => {
  const r = spawnSync(process.env.DELTALENS_PYTHON ?? 'python3', ['-c', 'import sys; print(sys.executable)'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  try {
    return r.status === 0 ? realpathSync(r.stdout.trim()) : null;
  } catch {
    return null;
  }
})();
const mainOne = every.find(x => x.real === main);
const list = quick ? (mainOne ? [mainOne] : []) : others ? every.filter(x => x !== mainOne) : every;
if (quick && list.length)
  console.log(`Python tests on ${list[0].version} only (every interpreter from 3.6 on: npm run test:all)`);
if (!list.length) {
  console.error('python tests: no Python 3.6+ found (pyenv, python3 on PATH, or $DELTALENS_PYTHON)');
  process.exit(1);
}
const borrowed = borrowedPytest(every);
const results = [];
const queue = [...list];
await Promise.all(
  [0, 1].map(async () => {
    for (let next = queue.shift(); next; next = queue.shift()) results.push(await run(next, borrowed));
  }),
);
results.sort((a, b) => a.version.localeCompare(b.version, undefined, {numeric: true}));
let failed = false;
for (const r of results) {
  const ran = /Ran (\d+) tests?/.exec(r.out)?.[1] ?? '?';
  const skipped = Number(/skipped=(\d+)/.exec(r.out)?.[1] ?? 0);
  const reasons = [...new Set([...r.out.matchAll(/skipped '([^']+)'/g)].map(m => m[1].replace(/ \([\d.]+\)/, '')))];
  const verdict = r.code === 0 ? 'OK' : 'FAILED';
  console.log(
    `Python ${r.version} (${r.exe})${r.lend ? ' with pytest lent from another Python' : ''}: ${verdict}, ${ran} tests${skipped ? `, ${skipped} left out: ${reasons.join('; ') || 'see the output'}` : ''}`,
  );
  if (r.code !== 0) {
    failed = true;
    console.log(r.out);
  }
}
process.exit(failed ? 1 : 0);
