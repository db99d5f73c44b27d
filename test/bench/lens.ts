/**
 * AgentLens benchmark: 2,000 runs over 50 tasks, made by replicating the real runs of
 * sample-data (the mini-SWE-agent multi-run set and the scripted demo runs) in SQLite; then, in
 * a child process so its peak memory is its own, relabel every step (lens label) and run lens
 * build (load, leave-one-out PTAs, signals, threshold, tiers, waste, mechanisms, rankings, save).
 */
import {spawnSync} from 'node:child_process';
import {rmSync} from 'node:fs';
import {join} from 'node:path';
import {importPaths} from '../../source/services/importer.js';
import {openDb} from '../../source/store/db.js';

const ROOT = join(import.meta.dirname, '..', '..');
export const TASKS = 50;
export const RUNS_PER_TASK = 40;

export function prepareLensDb(out: string): string {
  const path = join(out, 'lens.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, {force: true});
  const db = openDb(path);
  const samples = join(ROOT, 'sample-data', 'trajectories');
  importPaths(db, [join(samples, 'mini-swe-agent-multi'), join(samples, 'demo-runs')], {
    format: 'auto',
    maxBytes: 100 * 1024 * 1024,
  });
  // every task draws its 40 runs from all 48 real runs (different tasks, agents and lengths), so a
  // task's runs are nearly all distinct and its reference trees branch as much as they can
  const all = db.prepare('SELECT id FROM trajectory ORDER BY id').pluck().all() as number[];
  const copyRun = db.prepare(
    `INSERT INTO trajectory (instance, agent, source_format, source_path, content_hash, resolved, resolved_source, patch, exit_status, n_steps, meta)
     SELECT ?, agent, source_format, source_path, content_hash || ?, resolved, resolved_source, patch, exit_status, n_steps, meta FROM trajectory WHERE id = ?`,
  );
  const copySteps = db.prepare(
    `INSERT INTO step (trajectory, idx, thought, action_tool, action_args, action_text, observation, intent_stage, labeller_rule)
     SELECT ?, idx, thought, action_tool, action_args, action_text, observation, intent_stage, labeller_rule FROM step WHERE trajectory = ?`,
  );
  const instance = db.prepare('INSERT OR IGNORE INTO instance (id) VALUES (?)');
  db.transaction(() => {
    for (let t = 0; t < TASKS; t += 1) {
      const name = `bench-task#${t}`;
      instance.run(name);
      for (let k = 0; k < RUNS_PER_TASK; k += 1) {
        const from = all[(t * 7 + k) % all.length]!;
        const id = Number(copyRun.run(name, `-${t}-${k}`, from).lastInsertRowid);
        copySteps.run(id, from);
      }
    }
    // keep only the copies
    db.prepare("DELETE FROM trajectory WHERE instance NOT LIKE '%#%'").run();
  })();
  db.close();
  return path;
}

export function benchLens(out: string, log: (line: string) => void): void {
  const dbPath = prepareLensDb(out);
  const runs = (() => {
    const db = openDb(dbPath, {readonly: true});
    const r = db
      .prepare(
        'SELECT count(*) AS runs, count(DISTINCT instance) AS tasks, (SELECT count(*) FROM step) AS steps FROM trajectory',
      )
      .get() as {runs: number; tasks: number; steps: number};
    db.close();
    return r;
  })();
  const child = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', process.execPath, '--import', 'tsx', join(import.meta.dirname, 'lens-child.ts'), dbPath],
    {encoding: 'utf8', cwd: ROOT},
  );
  const lines = child.stderr.trim().split('\n');
  const peakKb = Number(lines.at(-1));
  const result = JSON.parse(lines.find(l => l.startsWith('{'))!) as {
    label: number;
    build: number;
    scored: number;
    skipped: number;
    lucky: number;
  };
  log(
    `lens: ${runs.runs} runs over ${runs.tasks} tasks (${runs.steps} steps; each task's runs drawn from all 48 real and scripted sample runs): relabel ${result.label.toFixed(2)} s, lens build ${result.build.toFixed(2)} s (${result.scored} scored, ${result.lucky} Lucky, ${result.skipped} tasks skipped), total ${(result.label + result.build).toFixed(2)} s; peak RSS ${(peakKb / 1024).toFixed(0)} MB`,
  );
}
