/**
 * Trace benchmarks: tracer overhead (traced / untraced wall time of the same pytest run on
 * a copy of the installed sympy), steps recorded per second, bytes per step; ingest rate
 * and delta extraction rate and peak memory on a synthetic 1,000,000-step trace pair.
 */
import {spawnSync} from 'node:child_process';
import {cpSync, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {once} from 'node:events';
import {TRACER_DIR} from '../../source/services/python.js';
import {ROOT} from '../helpers/paths.js';

const PY = process.env['DELTALENS_PYTHON'] ?? 'python3';

function time(
  cmd: string[],
  cwd: string,
  env: Record<string, string>,
): {s: number; rssMb: number; ok: boolean; stderr: string} {
  const t = performance.now();
  const child = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? '/',
    PYTHONPATH: TRACER_DIR,
    PYTHONHASHSEED: '0',
    PYTHONDONTWRITEBYTECODE: '1',
    ...env,
  };
  const r = spawnSync('/usr/bin/time', ['-f', '%M', ...cmd], {cwd, env: child, encoding: 'utf8', maxBuffer: 1 << 28});
  const rssKb = Number(r.stderr.trim().split('\n').at(-1));
  return {s: (performance.now() - t) / 1000, rssMb: Math.round(rssKb / 1024), ok: r.status === 0, stderr: r.stderr};
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export function benchTracer(out: string, log: (line: string) => void): void {
  const where = spawnSync(PY, ['-c', 'import sympy, os; print(os.path.dirname(sympy.__file__))'], {encoding: 'utf8'});
  if (where.status !== 0) {
    log(`tracer overhead: skipped (sympy is not installed for ${PY})`);
    return;
  }
  const root = join(out, 'sympy-root');
  if (!existsSync(join(root, 'sympy'))) {
    mkdirSync(join(root, 'tests'), {recursive: true});
    cpSync(where.stdout.trim(), join(root, 'sympy'), {recursive: true, filter: src => !src.includes('__pycache__')});
  }
  writeFileSync(
    join(root, 'tests', 'test_sym.py'),
    [
      'from sympy import S, Rational, Symbol, expand, factor',
      '',
      'def test_float_false_and_factor():',
      '    x = Symbol("x")',
      '    assert (S(0.0) == S.false) is False',
      '    assert factor(expand((x + 1) ** 3)) == (x + 1) ** 3',
      '    assert Rational(3, 6) == S(1) / 2',
      '',
    ].join('\n'),
  );
  const env = {PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1'};
  const importTime = time([PY, '-c', 'import sympy'], root, env).s;
  const test = 'tests/test_sym.py::test_float_false_and_factor';
  const plain = [1, 2, 3].map(() => time([PY, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', test], root, env).s);
  const trace = (label: string, extra: string[]) => {
    const file = join(out, `sympy-${label}.jsonl`);
    const runs = [1, 2, 3].map(() =>
      time([PY, '-m', 'deltatrace', 'run', '--root', root, '--out', file, ...extra, '--', test], root, env),
    );
    if (!runs.every(r => r.ok)) log(`  (${label}: ${runs.find(r => !r.ok)?.stderr.slice(-300)})`);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const end = JSON.parse(lines.at(-1)!) as {events: number; bytes: number; seconds: number};
    const events = end.events;
    // bytes of the event records alone (source texts are stored once per file)
    const eventBytes = lines
      .filter(l => /^\{"t":"(call|line|return|exception)"/.test(l))
      .reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    return {
      s: median(runs.map(r => r.s)),
      rss: Math.max(...runs.map(r => r.rssMb)),
      events,
      bytes: eventBytes,
      total: statSync(file).size,
      traced: end.seconds,
    };
  };
  const focus = trace('focus', ['--focus', 'sympy/core/numbers.py:Float.__eq__']);
  const all = trace('all', []);
  const base = median(plain);
  log(`tracer on a copy of sympy (import ${importTime.toFixed(2)} s) under pytest, ${PY}:`);
  log(`  untraced pytest run: ${base.toFixed(2)} s (median of 3; bytecode not cached, so sympy compiles on each run)`);
  log(
    `  traced with --focus Float.__eq__ (no bytecode cache, as the untraced run): ${focus.s.toFixed(2)} s = ${(focus.s / base).toFixed(2)}× untraced; ${focus.events} events, ${(focus.bytes / Math.max(1, focus.events)).toFixed(0)} bytes/event (+ ${((focus.total - focus.bytes) / 1024).toFixed(0)} KiB of source text), peak RSS ${focus.rss} MB`,
  );
  log(
    `  traced without focus (every sympy frame in the test): ${all.s.toFixed(2)} s = ${(all.s / base).toFixed(2)}× untraced; ${all.events} events at ${(all.events / Math.max(0.001, all.traced)).toFixed(0)} events/s while tracing, ${(all.bytes / Math.max(1, all.events)).toFixed(0)} bytes/event, ${(all.total / 2 ** 20).toFixed(1)} MB in all, peak RSS ${all.rss} MB`,
  );
}

/** A deltatrace file with `frames` frames of `lines` steps each under one test frame; the last step differs by `last`. */
async function writeSynthetic(path: string, frames: number, lines: number, last: number): Promise<number> {
  const w = createWriteStream(path);
  let seq = 0;
  let buf = '';
  const put = async (s: string) => {
    buf += `${s}\n`;
    if (buf.length > 1 << 20) {
      if (!w.write(buf)) await once(w, 'drain');
      buf = '';
    }
  };
  await put(
    JSON.stringify({
      t: 'header',
      format: 1,
      tracer: 'synthetic',
      python: '3.11',
      root: '/x',
      target: [],
      focus: [],
      limits: {},
    }),
  );
  await put(
    JSON.stringify({
      t: 'call',
      seq: ++seq,
      fid: 1,
      parent: null,
      fn: 'test_big',
      file: 'tests/test_big.py',
      def: 1,
      locals: {},
    }),
  );
  let fid = 1;
  for (let f = 0; f < frames; f++) {
    const id = ++fid;
    await put(
      `{"t":"call","seq":${++seq},"fid":${id},"parent":1,"fn":"work","file":"lib/work.py","def":10,"call_line":2,"locals":{"n":${f},"acc":[]}}`,
    );
    for (let l = 0; l < lines; l++) {
      const v = f === frames - 1 && l === lines - 1 ? last : l;
      await put(
        `{"t":"line","seq":${++seq},"fid":${id},"line":${11 + (l % 8)},"ch":{"i":${l},"total":${v},"acc":[${l},${l + 1}]}}`,
      );
    }
    await put(`{"t":"return","seq":${++seq},"fid":${id},"line":18,"kind":"return","value":${f},"locals":{}}`);
    await put(`{"t":"line","seq":${++seq},"fid":1,"line":2,"ch":{"r":${f}}}`);
  }
  await put(`{"t":"return","seq":${++seq},"fid":1,"line":3,"kind":"return","value":null,"locals":{}}`);
  await put(
    JSON.stringify({
      t: 'outcome',
      status: 'passed',
      tests: [{nodeid: 'tests/test_big.py::test_big', outcome: 'passed'}],
    }),
  );
  await put(JSON.stringify({t: 'end', events: seq, frames: fid}));
  w.end(buf);
  await once(w, 'finish');
  return seq;
}

export async function benchDelta(out: string, log: (line: string) => void): Promise<void> {
  const frames = Number(process.env['BENCH_DELTA_FRAMES'] ?? 50_000);
  const lines = 20;
  const a = join(out, 'synthetic-buggy.jsonl');
  const b = join(out, 'synthetic-patched.jsonl');
  const events = await writeSynthetic(a, frames, lines, -1);
  await writeSynthetic(b, frames, lines, -2);
  const db = join(out, 'delta.db');
  for (const s of ['', '-wal', '-shm']) rmSync(db + s, {force: true});
  const child = join(ROOT, 'test', 'bench', 'delta-child.ts');
  const ingest = time([process.execPath, '--import', 'tsx', child, 'ingest', db, a, b], ROOT, {});
  const ingestInfo = JSON.parse(ingest.stderr.split('\n').find(l => l.startsWith('{'))!) as {
    seconds: number;
    events: number;
  };
  log(
    `synthetic pair: ${events.toLocaleString('en')} events per side (${frames.toLocaleString('en')} frames × ${lines} lines), ${(statSync(a).size / 2 ** 20).toFixed(0)} MB per file`,
  );
  log(
    `  ingest (streamed, batched transactions): ${((2 * events) / ingestInfo.seconds).toFixed(0)} events/s, peak RSS ${ingest.rssMb} MB`,
  );
  const run = time([process.execPath, '--import', 'tsx', child, 'delta', db], ROOT, {});
  const info = JSON.parse(run.stderr.split('\n').find(l => l.startsWith('{'))!) as {
    seconds: number;
    steps: number;
    status: string;
    line: number;
  };
  log(
    `  delta extraction from SQLite: ${info.steps.toLocaleString('en')} aligned steps in ${info.seconds.toFixed(2)} s = ${(info.steps / info.seconds).toFixed(0)} steps/s, peak RSS ${run.rssMb} MB (found: ${info.status} at line ${info.line}, the very last step)`,
  );
  void TRACER_DIR;
}
