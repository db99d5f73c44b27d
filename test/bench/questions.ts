/**
 * Question construction (`deltalens questions build`) timed as a user runs it: the three demo
 * projects (all four types, three agent patches each), and the real-library case — the sympy
 * test of the heavy tracing bench, end-to-end and local intent.
 */
import {spawnSync} from 'node:child_process';
import {readFileSync, rmSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {ROOT} from '../helpers/paths.js';
import {TEST, trees} from './heavy.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');

function build(args: string[], db: string): {s: number; out: {questions: {id: string; type: string}[]; excluded: {stage: string; reason: string}[]} | null; stderr: string} {
  rmSync(db, {force: true});
  const t = performance.now();
  const r = spawnSync(process.execPath, [BIN, 'questions', 'build', ...args, '--json', '--db', db], {encoding: 'utf8', maxBuffer: 1 << 28});
  const s = (performance.now() - t) / 1000;
  let out = null;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    /* reported below */
  }
  return {s, out, stderr: r.stderr};
}

export async function benchQuestions(out: string, log: (line: string) => void): Promise<void> {
  log('\n## Question construction (questions build, offline generators, sandboxed runs)');
  const projects = join(ROOT, 'sample-data', 'projects');
  for (const name of ['durations', 'graphs', 'ledger']) {
    const dir = join(projects, name);
    const meta = JSON.parse(readFileSync(join(dir, 'project.json'), 'utf8')) as {instance: string; test: string};
    const agents = ['agent-correct', 'agent-wrong', 'agent-ineffective'].flatMap(a => ['--agent-patch', `${a}=${join(dir, 'patches', `${a}.diff`)}`]);
    const r = build(['--instance', meta.instance, '--buggy-dir', join(dir, 'repo'), '--gold-patch', join(dir, 'patches', 'gold.diff'), '--test', meta.test, ...agents], join(out, `questions-${name}.db`));
    log(`${name}: ${r.s.toFixed(1)} s for ${r.out?.questions.length ?? 0} questions (${r.out?.questions.map(q => q.type).join(', ')}); excluded: ${r.out?.excluded.map(e => `${e.stage}: ${e.reason}`).join('; ') || 'none'}${r.out ? '' : ` — failed: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`}`);
  }
  const t = trees(out);
  if (typeof t === 'string') {
    log(`sympy case: skipped (${t})`);
    return;
  }
  const r = build(['--instance', 'bench__sympy-pow-zoo', '--buggy-dir', t.buggy, '--fixed-dir', t.fixed, '--test', TEST, '--type', 'e2e_intent', '--type', 'local_intent', '--timeout', '600'], join(out, 'questions-sympy.db'));
  log(`sympy case (a test through simplify and integrate, fix in Pow.__new__): ${r.s.toFixed(1)} s for ${r.out?.questions.length ?? 0} questions (${r.out?.questions.map(q => q.id).join(', ')}); excluded: ${r.out?.excluded.map(e => `${e.stage}: ${e.reason}`).join('; ') || 'none'}${r.out ? '' : ` — failed: ${r.stderr.trim().split('\n').slice(-3).join(' ')}`}`);
}
