/**
 * npm run bench — import throughput, peak memory, and explorer latency.
 * Figures go to readme.md by hand, with the machine noted; nothing here asserts a target.
 */
import {benchDemoStart} from './demo-start.js';
import {firstScreenMs, hasPty} from './cli.js';
import {spawnSync} from 'node:child_process';
import {cpus, totalmem} from 'node:os';
import {copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import React from 'react';
import {render} from 'ink-testing-library';
import {openDb} from '../../source/store/db.js';
import {importPaths} from '../../source/services/importer.js';
import {App} from '../../source/ui/app.js';
import {storeData} from '../../source/ui/data/index.js';
import {NO_COLOR_THEME} from '../../source/ui/theme.js';
import {ROOT, SAMPLES} from '../helpers/paths.js';
import {benchDelta, benchTracer} from './traces.js';
import {benchLens} from './lens.js';
import {benchBatchScoring, benchScoring} from './scoring.js';
import {benchTeam} from './team.js';
import {benchSandbox} from './sandbox.js';
import {benchHeavy} from './heavy.js';
import {benchInterpreters} from './interpreters.js';
import {benchQuestions, benchQuestionsRealFixes} from './questions.js';
import {benchReasoning} from './reasoning.js';
import {benchAudit} from './audit.js';
import {benchExplainBenchQuestions} from './eb-questions.js';
import {benchExplainBench} from './explainbench.js';
import {benchHeldOut} from './heldout.js';
import {benchInstances} from './instances.js';
import {benchFleet} from './fleet.js';

const OUT = join(ROOT, 'test', 'bench', 'out');
const CORPUS = join(OUT, 'corpus');
const N = Number(process.env['BENCH_TRAJECTORIES'] ?? 5000);

function log(line: string) {
  console.log(line);
}

function sources(): {path: string; kind: 'mini' | 'swe' | 'oh'}[] {
  const out: {path: string; kind: 'mini' | 'swe' | 'oh'}[] = [];
  const multi = join(SAMPLES, 'mini-swe-agent-multi');
  for (const run of readdirSync(multi)) {
    if (!statSync(join(multi, run)).isDirectory()) continue;
    for (const file of readdirSync(join(multi, run))) out.push({path: join(multi, run, file), kind: 'mini'});
  }
  out.push({path: join(SAMPLES, 'swe-agent', 'pydicom__pydicom-1458.traj'), kind: 'swe'});
  out.push({path: join(SAMPLES, 'openhands', 'basic.json'), kind: 'oh'});
  return out;
}

/** Replicates the real files with varied instance ids (so every copy has its own content hash). */
function buildCorpus(): {files: number; bytes: number} {
  rmSync(CORPUS, {recursive: true, force: true});
  mkdirSync(CORPUS, {recursive: true});
  const real = sources().map(s => ({...s, doc: JSON.parse(readFileSync(s.path, 'utf8'))}));
  let bytes = 0;
  for (let i = 0; i < N; i++) {
    const source = real[i % real.length]!;
    const copy = i % 100;
    const dir = join(CORPUS, `run-${copy}`);
    if (!existsSync(dir)) mkdirSync(dir);
    let name: string;
    let doc = source.doc;
    if (source.kind === 'mini') {
      doc = {...doc, instance_id: `${doc.instance_id}-copy${i}`};
      name = `${doc.instance_id}.traj.json`;
    } else if (source.kind === 'swe') {
      doc = {...doc, info: {...doc.info, bench_copy: i}};
      name = `pydicom__pydicom-1458-copy${i}.traj`;
    } else {
      doc = {instance_id: `basic-copy${i}`, history: doc};
      name = `basic-copy${i}.json`;
    }
    const text = JSON.stringify(doc, null, 1);
    bytes += Buffer.byteLength(text);
    writeFileSync(join(dir, name), text);
  }
  return {files: N, bytes};
}

function benchImport() {
  log(`\n## Import: ${N} trajectories replicated from the real files in sample-data/`);
  const {bytes} = buildCorpus();
  const dbPath = join(OUT, 'import.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, {force: true});
  const db = openDb(dbPath);
  const start = performance.now();
  const report = importPaths(db, [CORPUS], {format: 'auto', maxBytes: 100 * 1024 * 1024});
  const seconds = (performance.now() - start) / 1000;
  db.close();
  const mb = bytes / 1024 / 1024;
  log(
    `imported ${report.added.length} (failed ${report.failed.length}) · ${mb.toFixed(0)} MB in ${seconds.toFixed(1)} s`,
  );
  log(`throughput: ${(report.added.length / seconds).toFixed(0)} trajectories/s, ${(mb / seconds).toFixed(1)} MB/s`);
  log(`peak RSS of this process so far: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  return dbPath;
}

/** One 50 MB trajectory, imported by the real CLI in its own process so its peak RSS is its own. */
function benchLargeFile() {
  log('\n## One 50 MB trajectory (own process, peak RSS from /usr/bin/time)');
  const jsonl = join(OUT, 'large.jsonl');
  const observation = 'x'.repeat(9_000);
  const lines = [JSON.stringify({type: 'trajectory', instance: 'large__big-1', agent: 'bench'})];
  let size = lines[0]!.length;
  for (let i = 0; size < 50 * 1024 * 1024; i++) {
    const line = JSON.stringify({
      type: 'step',
      thought: `step ${i}`,
      tool: 'bash',
      action: `cat file${i}.py`,
      observation,
    });
    lines.push(line);
    size += line.length + 1;
  }
  writeFileSync(jsonl, `${lines.join('\n')}\n`);
  const steps = lines.length - 1;
  const mini = JSON.parse(readFileSync(join(SAMPLES, 'mini-swe-agent', 'django__django-11099.traj.json'), 'utf8'));
  const messages = [...mini.messages.slice(0, 2)];
  for (let i = 0; i < steps; i++) {
    messages.push({role: 'assistant', content: `THOUGHT: step ${i}\n\n\`\`\`bash\ncat file${i}.py\n\`\`\``});
    messages.push({role: 'user', content: `<returncode>0</returncode>\n<output>\n${observation}\n</output>`});
  }
  const json = join(OUT, 'large.traj.json');
  writeFileSync(json, JSON.stringify({...mini, instance_id: 'large__big-2', messages}));
  const baseline = measure(['--help']);
  for (const [label, file] of [
    ['generic JSONL (streamed)', jsonl],
    ['mini-SWE-agent JSON (parsed whole)', json],
  ] as const) {
    const dbPath = join(OUT, 'large.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, {force: true});
    const result = measure(['import', file, '--db', dbPath, '--json']);
    log(
      `${label}: ${(statSync(file).size / 1024 / 1024).toFixed(0)} MB, ${steps} steps, ${result.seconds.toFixed(1)} s, peak RSS ${result.rssMb} MB (CLI doing nothing: ${baseline.rssMb} MB)`,
    );
  }
}

/** show trajectory on long runs: 20,000 and 100,000 steps (with a reasoning mark on each): linear means 5× the time. */
function benchShowLong() {
  log('\n## show trajectory on long runs (own process)');
  const times: number[] = [];
  for (const steps of [20_000, 100_000]) {
    const file = join(OUT, `long-${steps}.jsonl`);
    const lines = [JSON.stringify({type: 'trajectory', instance: `long__run-${steps}`, agent: 'bench', model: 'm'})];
    for (let i = 0; i < steps; i++)
      lines.push(
        JSON.stringify({
          type: 'step',
          thought: `I think x = ${i} because the loop returns early`,
          tool: 'bash',
          args: {command: `cat f${i}.py`},
          action: `cat f${i}.py`,
          observation: `line ${i}\n`.repeat(3),
        }),
      );
    writeFileSync(file, `${lines.join('\n')}\n`);
    const dbPath = join(OUT, 'long.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, {force: true});
    measure(['import', file, '--db', dbPath, '--json']);
    for (const json of [true, false]) {
      const r = measure(['show', 'trajectory', '1', '--db', dbPath, ...(json ? ['--json'] : [])]);
      if (json) times.push(r.seconds);
      log(
        `${steps} steps${json ? ' --json' : ''}: ${r.seconds.toFixed(1)} s (${Math.round(steps / r.seconds)} steps/s), peak RSS ${r.rssMb} MB`,
      );
    }
  }
  log(`100,000 against 20,000 steps: ${(times[1]! / times[0]!).toFixed(1)}× the time (linear: 5×)`);
}

function measure(args: string[]): {seconds: number; rssMb: number} {
  const start = performance.now();
  const run = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, join(ROOT, 'bin', 'deltalens.js'), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const seconds = (performance.now() - start) / 1000;
  const rssKb = Number(run.stderr.trim().split('\n').at(-1));
  return {seconds, rssMb: Math.round(rssKb / 1024)};
}

function grow(dbPath: string, target: number): string {
  const big = join(OUT, 'explorer.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(big + suffix, {force: true});
  copyFileSync(dbPath, big);
  const db = openDb(big);
  let count = (db.prepare('SELECT count(*) AS n FROM trajectory').get() as {n: number}).n;
  while (count < target) {
    const add = Math.min(count, target - count);
    db.transaction(() => {
      db.prepare(
        `INSERT INTO trajectory (instance, agent, source_format, source_path, content_hash, resolved, patch, exit_status, n_steps, meta)
         SELECT instance, agent, source_format, source_path, content_hash || '-' || ?, resolved, patch, exit_status, n_steps, meta
         FROM trajectory ORDER BY id LIMIT ?`,
      ).run(count, add);
    })();
    count += add;
  }
  db.close();
  return big;
}

async function benchExplorer(dbPath: string) {
  log('\n## Explorer on a 10,000-trajectory database');
  const big = grow(dbPath, 10_000);
  const db = openDb(big);
  const total = (db.prepare('SELECT count(*) AS n FROM trajectory').get() as {n: number}).n;
  const start = performance.now();
  const app = render(React.createElement(App, {data: storeData(db, 'bench'), theme: NO_COLOR_THEME}));
  while (!(app.lastFrame() ?? '').includes(`Trajectories (${total})`))
    await new Promise(resolve => setImmediate(resolve));
  log(
    `first frame (in-process render, modules loaded): ${(performance.now() - start).toFixed(0)} ms for ${total} trajectories`,
  );
  await new Promise(resolve => setTimeout(resolve, 30));

  async function keyTimes(key: string, times: number): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < times; i++) {
      const before = app.lastFrame();
      const t0 = performance.now();
      app.stdin.write(key);
      while (app.lastFrame() === before && performance.now() - t0 < 1000)
        await new Promise(resolve => setImmediate(resolve));
      out.push(performance.now() - t0);
    }
    return out.sort((a, b) => a - b);
  }
  const stats = (label: string, t: number[]) =>
    log(
      `${label}: median ${t[Math.floor(t.length / 2)]!.toFixed(1)} ms, p95 ${t[Math.floor(t.length * 0.95)]!.toFixed(1)} ms, max ${t.at(-1)!.toFixed(1)} ms (${t.length} keys)`,
    );
  stats('j (next row)', await keyTimes('j', 300));
  stats('PgDn', await keyTimes('\x1b[6~', 100));
  const jumps: number[] = [];
  for (let i = 0; i < 20; i++) jumps.push(...(await keyTimes('G', 1)), ...(await keyTimes('g', 1)));
  stats(
    'G / g (jump to last / first)',
    jumps.sort((a, b) => a - b),
  );
  stats('s (re-sort 10,000 rows)', await keyTimes('s', 12));
  app.unmount();
  db.close();
  await processStart(big);
}

/** The real CLI in a pseudo-terminal (util-linux `script`): process start to first screen. */
async function processStart(dbPath: string) {
  if (!hasPty()) {
    log('process start to first screen: skipped (no `script` command for a pseudo-terminal)');
    return;
  }
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push(await firstScreenMs(['--db', dbPath], process.env, 10_000));
  times.sort((a, b) => a - b);
  log(
    `process start to first screen (real CLI in a pty: Node start, bundle and Ink load, SQLite open, first render): median ${times[2]?.toFixed(0)} ms, min ${times[0]?.toFixed(0)} ms`,
  );
}

async function main() {
  mkdirSync(OUT, {recursive: true});
  // The CLI runs from the dist/ bundle when it is fresh; build it so the figures are for that.
  spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.js')], {cwd: ROOT, stdio: 'inherit'});
  log(
    `# deltalens bench — ${cpus()[0]?.model ?? 'cpu'} × ${cpus().length}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
  );
  const only = process.env['BENCH_ONLY'];
  if (only === 'show') benchShowLong();
  if (!only || only === 'import') {
    const dbPath = benchImport();
    benchLargeFile();
    benchShowLong();
    await benchExplorer(dbPath);
  }
  if (!only || only === 'demo-start') await benchDemoStart(log);
  if (!only || only === 'scoring') await benchScoring(OUT, log);
  if (!only || only === 'scoring' || only === 'batch') await benchBatchScoring(OUT, log);
  if (!only || only === 'team') await benchTeam(OUT, log);
  if (!only || only === 'lens') benchLens(OUT, log);
  if (!only || only === 'traces') {
    await benchDelta(OUT, log);
    benchTracer(OUT, log);
  }
  if (!only || only === 'traces' || only === 'sandbox') await benchSandbox(OUT, log);
  if (only === 'heavy') await benchHeavy(OUT, log);
  if (!only || only === 'traces' || only === 'interpreters') await benchInterpreters(OUT, log);
  if (!only || only === 'questions') await benchQuestions(OUT, log);
  if (!only || only === 'audit') await benchAudit(OUT, log);
  if (!only || only === 'delta' || only === 'heldout') await benchHeldOut(OUT, log);
  if (!only || only === 'heldout' || only === 'questions' || only === 'real-questions')
    await benchQuestionsRealFixes(OUT, log);
  if (!only || only === 'delta' || only === 'explainbench') await benchExplainBench(OUT, log);
  if (!only || only === 'explainbench' || only === 'eb-questions') await benchExplainBenchQuestions(OUT, log);
  if (!only || only === 'instances') await benchInstances(OUT, log);
  if (!only || only === 'instances' || only === 'fleet') await benchFleet(OUT, log);
  if (!only || only === 'reasoning') {
    if (!existsSync(CORPUS)) buildCorpus();
    await benchReasoning(OUT, CORPUS, log);
  }
  if (!process.env['BENCH_KEEP']) rmSync(CORPUS, {recursive: true, force: true});
}

await main();
