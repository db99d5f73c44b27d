/**
 * Question construction (`deltalens questions build`) timed as a user runs it: the three demo
 * projects (all four types, three agent patches each), the real-library case — the sympy test
 * of the heavy tracing bench, end-to-end and local intent — and real sympy fixes built from
 * their own tests (the held-out bench's first three picks, which it keeps): all four types, with
 * the fix itself and a comment-only patch as the two agents' patches.
 */
import {spawn, spawnSync} from 'node:child_process';
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {openDb} from '../../source/store/db.js';
import {listExclusions, listQuestions} from '../../source/store/questions.js';
import {ROOT} from '../helpers/paths.js';
import {TEST, trees} from './heavy.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');

export async function benchQuestions(out: string, log: (line: string) => void): Promise<void> {
  log('\n## Question construction (questions build, offline generators, sandboxed runs)');
  const projects = join(ROOT, 'sample-data', 'projects');
  for (const name of ['durations', 'graphs', 'ledger']) {
    const dir = join(projects, name);
    const meta = JSON.parse(readFileSync(join(dir, 'project.json'), 'utf8')) as {instance: string; test: string};
    const agents = ['agent-correct', 'agent-wrong', 'agent-ineffective'].flatMap(a => [
      '--agent-patch',
      `${a}=${join(dir, 'patches', `${a}.diff`)}`,
    ]);
    const r = await timedBuild(
      [
        '--instance',
        meta.instance,
        '--buggy-dir',
        join(dir, 'repo'),
        '--gold-patch',
        join(dir, 'patches', 'gold.diff'),
        '--test',
        meta.test,
        ...agents,
      ],
      join(out, `questions-${name}.db`),
    );
    log(
      `${name}: ${r.s.toFixed(1)} s for ${r.out?.questions.length ?? 0} questions (${r.out?.questions.map(q => q.type).join(', ')}); excluded: ${r.out?.excluded.map(e => `${e.stage}: ${e.reason}`).join('; ') || 'none'}${r.out ? '' : ` — failed: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`}`,
    );
  }
  const t = trees(out);
  if (typeof t === 'string') {
    log(`sympy case: skipped (${t})`);
    return;
  }
  const r = await timedBuild(
    [
      '--instance',
      'bench__sympy-pow-zoo',
      '--buggy-dir',
      t.buggy,
      '--fixed-dir',
      t.fixed,
      '--test',
      TEST,
      '--type',
      'e2e_intent',
      '--type',
      'local_intent',
      '--timeout',
      '600',
    ],
    join(out, 'questions-sympy.db'),
  );
  log(
    `sympy case (a test through simplify and integrate, fix in Pow.__new__): ${r.s.toFixed(1)} s for ${r.out?.questions.length ?? 0} questions (${r.out?.questions.map(q => q.id).join(', ')}); excluded: ${r.out?.excluded.map(e => `${e.stage}: ${e.reason}`).join('; ') || 'none'}${r.out ? '' : ` — failed: ${r.stderr.trim().split('\n').slice(-3).join(' ')}`}`,
  );
}

/** A unified diff of one file between two trees, as an agent's patch (a/ and b/ paths). */
function fileDiff(before: string, after: string, rel: string): string {
  const r = spawnSync(
    'diff',
    ['-u', '--label', `a/${rel}`, '--label', `b/${rel}`, join(before, rel), join(after, rel)],
    {encoding: 'utf8'},
  );
  return r.stdout;
}

/** Where a build's time goes, by the progress line in effect (stderr, timestamped as it comes). */
function phaseOf(line: string): 'test runs' | 'tracing' | 'evaluation' | 'other' {
  if (/evaluating \d+ candidate/.test(line)) return 'evaluation';
  if (/· (local_intent|local_effect): /.test(line) && !/using traced pair/.test(line)) return 'tracing';
  if (/· validate: |validating candidate|running the test with/.test(line)) return 'test runs';
  return 'other';
}

function timedBuild(
  args: string[],
  db: string,
): Promise<{
  s: number;
  out: {
    questions: {
      id: string;
      type: string;
      agent: string | null;
      choices: {label: string; text: string; role: string}[];
      answer: string[];
    }[];
    excluded: {stage: string; agent?: string; reason: string}[];
  } | null;
  phases: Record<string, number>;
  stderr: string;
}> {
  rmSync(db, {force: true});
  return new Promise(resolve => {
    const t0 = performance.now();
    // without --json, so that the progress lines come (on stderr); the questions are read from the store after
    const child = spawn(process.execPath, [BIN, 'questions', 'build', ...args, '--db', db], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const phases: Record<string, number> = {};
    let phase = 'other';
    let since = t0;
    let pending = '';
    child.stdout.on('data', d => (stdout += String(d)));
    child.stderr.on('data', d => {
      stderr += String(d);
      pending += String(d);
      const lines = pending.split(/\r|\n/);
      pending = lines.pop() ?? '';
      for (const line of lines.filter(l => l.trim())) {
        const now = performance.now();
        phases[phase] = (phases[phase] ?? 0) + (now - since) / 1000;
        phase = phaseOf(line);
        since = now;
      }
    });
    child.on('close', () => {
      const end = performance.now();
      phases[phase] = (phases[phase] ?? 0) + (end - since) / 1000;
      let out = null;
      try {
        const store = openDb(db);
        try {
          const instance = args[args.indexOf('--instance') + 1]!;
          out = {
            questions: listQuestions(store, {instance}),
            excluded: listExclusions(store, instance).map(e => ({
              stage: e.stage,
              reason: e.reason,
              ...(e.agent ? {agent: e.agent} : {}),
            })),
          };
        } finally {
          store.close();
        }
      } catch {
        /* reported by the caller */
      }
      resolve({s: (end - t0) / 1000, out, phases, stderr: stderr + stdout});
    });
  });
}

/** Real sympy fixes (the held-out bench's picks, their trees kept): all four types, the fix and a comment-only patch as agents. */
export async function benchQuestionsRealFixes(out: string, log: (line: string) => void): Promise<void> {
  log(
    '\n## Questions on real sympy fixes, built from their own tests (all four types; agents: the fix, a comment-only patch)',
  );
  const dir = join(out, 'heldout');
  const picksFile = join(dir, 'picks.json');
  if (!existsSync(picksFile)) {
    log(
      'skipped: run the held-out bench first (BENCH_ONLY=heldout, DELTALENS_SYMPY_GIT): its picks and trees are the input',
    );
    return;
  }
  const py = process.env['DELTALENS_PYTHON'] ?? 'python3';
  const picks = (JSON.parse(readFileSync(picksFile, 'utf8')) as {pr: string; src: string; test: string}[])
    .filter(p => existsSync(join(dir, p.pr, 'comment')))
    .slice(0, Number(process.env['BENCH_REAL_QUESTIONS_N'] ?? 3));
  const totals: Record<string, number> = {};
  let all = 0;
  for (const p of picks) {
    const tree = join(dir, p.pr);
    const gold = join(tree, 'gold.diff');
    const comment = join(tree, 'comment.diff');
    writeFileSync(gold, fileDiff(join(tree, 'buggy'), join(tree, 'fixed'), p.src));
    writeFileSync(comment, fileDiff(join(tree, 'buggy'), join(tree, 'comment'), p.src));
    const r = await timedBuild(
      [
        '--instance',
        `sympy__sympy-${p.pr}`,
        '--buggy-dir',
        join(tree, 'buggy'),
        '--fixed-dir',
        join(tree, 'fixed'),
        '--test',
        p.test,
        '--agent-patch',
        `fix=${gold}`,
        '--agent-patch',
        `comment-only=${comment}`,
        '--python',
        py,
        '--no-checks',
      ],
      join(out, `questions-real-${p.pr}.db`),
    );
    const keyOf = (q: NonNullable<typeof r.out>['questions'][number]) =>
      q.choices
        .filter(c => q.answer.includes(c.label))
        .map(c => c.text)
        .join(' | ');
    const types = new Set(r.out?.questions.map(q => q.type) ?? []);
    all += r.s;
    for (const [k, v] of Object.entries(r.phases)) totals[k] = (totals[k] ?? 0) + v;
    log(
      `#${p.pr} ${p.test}: ${r.s.toFixed(0)} s, ${r.out?.questions.length ?? 0} questions, ${types.size} of 4 types${r.out ? '' : ` — failed: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`}; time: ${Object.entries(
        r.phases,
      )
        .map(([k, v]) => `${k} ${v.toFixed(0)} s`)
        .join(', ')}`,
    );
    for (const q of r.out?.questions ?? [])
      log(`  ${q.type}${q.agent ? ` (${q.agent})` : ''}: ${keyOf(q).slice(0, 140)}`);
    for (const e of r.out?.excluded ?? [])
      log(`  excluded ${e.stage}${e.agent ? ` (${e.agent})` : ''}: ${e.reason.slice(0, 300)}`);
  }
  if (all)
    log(
      `share of the time: ${Object.entries(totals)
        .map(([k, v]) => `${k} ${Math.round((100 * v) / all)} %`)
        .join(', ')} (each interval counted to the progress line in effect)`,
    );
}
