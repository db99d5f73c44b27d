/**
 * Questions built on ExplainBench's own sympy instances, beside the package's: for each instance
 * the delta bench traced (BENCH_ONLY=explainbench with BENCH_KEEP=1 keeps its trees), `questions
 * build` makes the two intent types offline from the same buggy and fixed trees and the PBT the
 * package ran (`dataset/context/raw_pbts.json`), then `questions compare --explainbench` sets
 * each beside the package's question of the same instance and type. Reported: how many of each
 * type were built and why the others were not, the time per instance, and the agreement — the
 * same function and line (local intent), the same key, the share of the package's options that
 * are among ours. The effect types need the agents' patches, which the package does not hold.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {cli} from './cli.js';

interface Built {
  seconds: number;
  built: string[];
  excluded: {stage: string; reason: string}[];
  error?: string;
}

/** A reason without its particulars (numbers, names), to count reasons alike. */
const reasonKind = (r: string) => r.replace(/\(.*$/s, '').replace(/:.*$/s, '').trim();

export async function benchExplainBenchQuestions(out: string, log: (line: string) => void): Promise<void> {
  log('\n## Questions built on ExplainBench’s sympy instances, beside the package’s');
  const eb = process.env['DELTALENS_EXPLAINBENCH'];
  const dir = join(out, 'explainbench');
  const traced = join(dir, 'results.json');
  if (!eb || !existsSync(join(eb, 'dataset', 'context', 'raw_pbts.json'))) {
    log('skipped: set DELTALENS_EXPLAINBENCH to a checkout of pan2013e/explainbench');
    return;
  }
  if (!existsSync(traced) || !existsSync(join(dir, 'inst'))) {
    log('skipped: run the delta bench on the package first with its trees kept (BENCH_ONLY=explainbench BENCH_KEEP=1)');
    return;
  }
  const py = process.env['DELTALENS_PY_OLD'] ?? join(dir, 'venv-3.9', 'bin', 'python');
  const maxTrace = Number(process.env['BENCH_EBQ_MAX_TRACE_S'] ?? 120);
  const pbts = new Map(
    (
      JSON.parse(readFileSync(join(eb, 'dataset', 'context', 'raw_pbts.json'), 'utf8')) as {
        instance_id: string;
        test: string;
      }[]
    ).map(p => [p.instance_id, p.test]),
  );
  const runs = Object.values(
    JSON.parse(readFileSync(traced, 'utf8')) as Record<string, {id: string; seconds?: number; status?: string}>,
  )
    .filter(r => r.seconds !== undefined && existsSync(join(dir, 'inst', r.id, 'buggy')))
    .sort((a, b) => a.seconds! - b.seconds!);
  const slow = runs.filter(r => r.seconds! > maxTrace);
  const ids = runs.filter(r => r.seconds! <= maxTrace).map(r => r.id);
  log(
    `${ids.length} instances whose PBT fails before and passes after here and whose pair traced in ≤ ${maxTrace} s (${slow.length} slower left out: ${slow.map(r => r.id.replace('sympy__sympy-', '')).join(', ') || 'none'}); ${py}`,
  );
  const db = join(dir, 'questions.db');
  const doneFile = join(dir, 'questions.json');
  const done: Record<string, Built> =
    existsSync(doneFile) && !process.env['BENCH_EBQ_REDO'] ? JSON.parse(readFileSync(doneFile, 'utf8')) : {};
  for (const id of ids) {
    if (done[id]) continue;
    const pbt = join(dir, 'inst', id, 'pbt.py');
    writeFileSync(pbt, pbts.get(id)!);
    const t = performance.now();
    const r = await cli([
      'questions',
      'build',
      '--instance',
      id,
      '--buggy-dir',
      join(dir, 'inst', id, 'buggy'),
      '--fixed-dir',
      join(dir, 'inst', id, 'fixed'),
      '--pbt',
      pbt,
      '--python',
      py,
      '--type',
      'e2e_intent',
      '--type',
      'local_intent',
      '--offline',
      '--no-checks',
      '--json',
      '--db',
      db,
    ]);
    const seconds = (performance.now() - t) / 1000;
    let row: Built;
    try {
      const j = JSON.parse(r.stdout) as {questions: {type: string}[]; excluded: {stage: string; reason: string}[]};
      row = {
        seconds,
        built: j.questions.map(q => q.type),
        excluded: j.excluded.map(e => ({stage: e.stage, reason: e.reason})),
      };
    } catch {
      row = {
        seconds,
        built: [],
        excluded: [],
        error: (r.stderr.trim().split('\n').at(-1) ?? `exit ${r.code}`).slice(0, 300),
      };
    }
    done[id] = row;
    writeFileSync(doneFile, JSON.stringify(done, null, 1));
    log(
      `${id}: ${row.built.join(', ') || 'nothing built'}${row.excluded.length ? `; excluded ${row.excluded.map(e => `${e.stage}: ${e.reason.slice(0, 160)}`).join('; ')}` : ''}${row.error ? `; error: ${row.error}` : ''} (${seconds.toFixed(0)} s)`,
    );
  }
  const rows = ids.map(id => done[id]!).filter(Boolean);
  for (const type of ['e2e_intent', 'local_intent']) {
    const built = rows.filter(r => r.built.includes(type)).length;
    const reasons = new Map<string, number>();
    for (const r of rows)
      for (const e of r.excluded.filter(x => x.stage === type || x.stage === 'instance'))
        reasons.set(
          `${e.stage}: ${reasonKind(e.reason)}`,
          (reasons.get(`${e.stage}: ${reasonKind(e.reason)}`) ?? 0) + 1,
        );
    log(
      `${type}: built on ${built} of ${rows.length}${reasons.size ? `; not built: ${[...reasons].map(([k, n]) => `${n} × ${k}`).join('; ')}` : ''}`,
    );
  }
  const secs = rows.map(r => r.seconds).sort((a, b) => a - b);
  if (secs.length)
    log(
      `time per instance (both types, the pair traced once): median ${secs[Math.floor(secs.length / 2)]!.toFixed(0)} s, max ${secs.at(-1)!.toFixed(0)} s`,
    );
  const cmp = await cli(['questions', 'compare', '--explainbench', eb, '--json', '--db', db]);
  try {
    const c = JSON.parse(cmp.stdout) as {
      totals: Record<
        string,
        {
          compared: number;
          same_key: number;
          same_function: number | null;
          same_line: number | null;
          shared_choices: number | null;
        }
      >;
      rows: {
        instance: string;
        type: string;
        point: {same_function: boolean; same_line: boolean; same_timing: boolean} | null;
        key: {same: boolean};
      }[];
    };
    const pct = (n: number, d: number) => `${n} of ${d} (${d ? Math.round((100 * n) / d) : 0} %)`;
    for (const [type, t] of Object.entries(c.totals)) {
      if (!t.compared) continue;
      const timing =
        type === 'local_intent' ? c.rows.filter(r => r.type === type && r.point?.same_timing).length : null;
      log(
        `compared with the package, ${type}: ${t.compared} questions; the same key ${pct(t.same_key, t.compared)}${t.same_function !== null ? `; the same function ${pct(t.same_function, t.compared)}; the same line ${pct(t.same_line ?? 0, t.compared)}; the same timing ${pct(timing ?? 0, t.compared)}` : ''}; the package's options among ours ${t.shared_choices !== null ? `${Math.round(100 * t.shared_choices)} %` : '—'} on average`,
      );
    }
  } catch {
    log(`questions compare failed: ${cmp.stderr.trim().split('\n').at(-1) ?? ''}`);
  }
}
