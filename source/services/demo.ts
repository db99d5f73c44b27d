import {createHash} from 'node:crypto';
import {existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {basename, dirname, join, relative, resolve} from 'node:path';
import {packageRoot} from '../package-root.js';
import {processAlive} from './leftovers.js';
import {demoProjects, ROOT, SAMPLE_DIR, PROJECTS_DIR} from './demo-projects.js';
import {checkpoint, MIGRATIONS_DIR, openDb, writeTx, type Db} from '../store/db.js';
import {problemStatement, upsertInstance} from '../store/instances.js';
import {importPaths, type ImportReport} from './importer.js';
import {runLensBuildWithSources} from './lens.js';
import {validateQuestion} from '../core/questions/model.js';
import {ensureExplanation, insertQuestion} from '../store/questions.js';

// Tracing, scoring and the openai client are loaded only when the demo is (re)built, so
// opening the explorer on a current demo does not pay for them.
const TRACER_DIR = join(packageRoot(), 'tracer');

export {ROOT, SAMPLE_DIR, PROJECTS_DIR, demoProjects, demoCheckouts, type DemoProject} from './demo-projects.js';
/** Where the demo database is built and read: sample-data/demo.db, or $DELTALENS_DEMO_DB (an
 * install whose folder is read-only, a test's own copy). */
export const DEMO_DB = process.env.DELTALENS_DEMO_DB ? resolve(process.env.DELTALENS_DEMO_DB) : join(SAMPLE_DIR, 'demo.db');
export const TRACES_DIR = join(SAMPLE_DIR, 'traces');
export const EXPLAINBENCH_DIR = join(SAMPLE_DIR, 'explainbench');
export const QUESTIONS_DIR = join(SAMPLE_DIR, 'questions');
const STAMP = `${DEMO_DB}.stamp`;

/**
 * The bundled demo dataset, in import order: the multi-run folder first so that its runs keep
 * their configuration names (the single mini-SWE-agent file is byte-identical to one of them).
 */
export const DEMO_SOURCES = ['trajectories/swe-bench-instances', 'trajectories/mini-swe-agent-multi', 'trajectories'];

/** Changes whenever a sample file, a migration or this list changes, so the demo is rebuilt. */
export function demoFingerprint(): string {
  const hash = createHash('sha256').update(DEMO_SOURCES.join('\n'));
  const files = [
    ...listFiles(join(SAMPLE_DIR, 'trajectories')),
    ...listFiles(PROJECTS_DIR),
    ...listFiles(TRACES_DIR),
    ...listFiles(EXPLAINBENCH_DIR),
    ...listFiles(QUESTIONS_DIR),
    ...listFiles(join(TRACER_DIR, 'deltatrace')),
    // the intent labeller labels runs at import: a new labeller means new labels
    ...listFiles(join(ROOT, 'source', 'core', 'lens')),
    // and the code-reasoning detector tags them
    join(ROOT, 'source', 'core', 'reasoning', 'detect.ts'),
    ...listFiles(MIGRATIONS_DIR),
    // the demo's built questions are this builder's output, its audits these services'
    join(ROOT, 'source', 'services', 'question-build.ts'),
    join(ROOT, 'source', 'services', 'audit.ts'),
    join(ROOT, 'source', 'services', 'audit-tools.ts'),
    join(ROOT, 'source', 'services', 'offline-auditor.ts'),
    // and what the build does
    join(ROOT, 'source', 'services', 'demo.ts'),
  ]
    .filter(file => !file.includes('__pycache__'))
    .sort();
  for (const file of files) hash.update(`${relative(ROOT, file)}\0${statSync(file).size}\0`).update(readFileSync(file));
  return hash.digest('hex');
}

export function demoIsCurrent(): boolean {
  return existsSync(DEMO_DB) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === demoFingerprint();
}

export interface DemoReport {
  import: ImportReport;
  pairs: number;
  /** why demo traces are missing (no Python, no pytest), when they are */
  traceProblems: string[];
}


/** Traces every demo project's patches (real tracer, real pytest) into `db`. */
export async function traceDemoProjects(db: Db, onProgress?: (message: string) => void): Promise<{pairs: number; problems: string[]}> {
  const {tracePair} = await import('./tracing.js');
  const {PythonError} = await import('./python.js');
  const python = process.env.DELTALENS_PYTHON ?? 'python3';
  let pairs = 0;
  const problems: string[] = [];
  for (const project of demoProjects()) {
    upsertInstance(db, {
      id: project.instance,
      repo: project.repo,
      baseCommit: null,
      problemStatement: project.problemStatement,
      goldPatch: readFileSync(project.patches.find(p => p.name === 'gold')?.file ?? '', 'utf8'),
      testPatch: null,
      failToPass: JSON.stringify([project.test]),
      passToPass: null,
      difficulty: null,
      sourcePath: relative(ROOT, project.dir),
    });
    for (const patch of project.patches) {
      onProgress?.(`tracing ${project.name} / ${patch.name}…`);
      try {
        await tracePair(db, {kind: 'patch', repo: join(project.dir, 'repo'), patch: patch.file, copy: true}, {
          python,
          test: project.test,
          instance: project.instance,
          label: patch.name,
          versionKind: patch.name === 'gold' ? 'gold' : 'agent',
          pytestPlugins: false,
          limits: {timeoutS: 120},
          // our own projects and patches: confined when bwrap is here, else run as they are
          sandbox: 'prefer',
        });
        pairs += 1;
      } catch (error) {
        if (error instanceof PythonError) {
          problems.push(error.message);
          return {pairs, problems};
        }
        problems.push(`${project.name}/${patch.name}: ${(error as Error).message}`);
      }
    }
  }
  return {pairs, problems};
}

/** The ExplainBench trace samples (swe-bench-tracer-py) as traced pairs. */
export async function importDemoTraces(db: Db, onProgress?: (message: string) => void): Promise<number> {
  const {importTracePair} = await import('./trace-ingest.js');
  if (!existsSync(TRACES_DIR)) return 0;
  let pairs = 0;
  for (const instance of readdirSync(TRACES_DIR).sort()) {
    const buggyFile = join(TRACES_DIR, instance, 'buggy.jsonl');
    const fixedFile = join(TRACES_DIR, instance, 'fixed.jsonl');
    if (!existsSync(buggyFile) || !existsSync(fixedFile)) continue;
    onProgress?.(`importing the ExplainBench traces of ${instance}…`);
    importTracePair(db, buggyFile, fixedFile, {instance, label: 'gold (ExplainBench traces)', test: 'reproduction test', options: ['match-by-text']});
    pairs += 1;
  }
  return pairs;
}

/**
 * Questions: the real ExplainBench sample (questions, keys, five agents' recorded answers)
 * and hand-written questions of all four types for the demo projects, with the demo agents'
 * explanations answered by the lexical baseline.
 */
export async function importDemoQuestions(db: Db, onProgress?: (message: string) => void): Promise<void> {
  const {importExplainBench} = await import('./explainbench.js');
  const {lexicalModel} = await import('./qa-models.js');
  const {scoreExplanations} = await import('./scoring.js');
  if (existsSync(EXPLAINBENCH_DIR)) {
    onProgress?.('importing the ExplainBench sample (questions and recorded answers)…');
    importExplainBench(db, EXPLAINBENCH_DIR);
  }
  const questions = join(QUESTIONS_DIR, 'demo-questions.jsonl');
  const explanations = join(QUESTIONS_DIR, 'demo-explanations.jsonl');
  if (!existsSync(questions)) return;
  onProgress?.('importing the demo questions and scoring them with the lexical baseline…');
  writeTx(db, () => {
    for (const line of readFileSync(questions, 'utf8').split('\n').filter(Boolean)) insertQuestion(db, validateQuestion(JSON.parse(line)), {source: relative(ROOT, questions)});
    if (existsSync(explanations)) {
      for (const line of readFileSync(explanations, 'utf8').split('\n').filter(Boolean)) {
        const e = JSON.parse(line) as {instance: string; agent: string; kind: 'original'; text: string};
        ensureExplanation(db, {...e, source: relative(ROOT, explanations)});
      }
    }
  });
  await scoreExplanations(db, {model: lexicalModel(), samples: 5, concurrency: 1, kinds: ['original', 'blank']});
}

/**
 * Built questions beside the hand-written ones: every demo project through `questions build`
 * (offline generators, all four types, its three agent patches — each project's ineffective one
 * gives "the patch has no effect"), the projects side by side, quality-checked with the lexical
 * baseline. The pairs the demo traced already are reused, so only the candidates run.
 */
export async function buildDemoQuestions(db: Db, onProgress?: (message: string) => void): Promise<{questions: number; excluded: string[]}> {
  const {buildQuestions, qualityChecks} = await import('./question-build.js');
  const {lexicalModel} = await import('./qa-models.js');
  const projects = demoProjects();
  onProgress?.(`building questions for ${projects.map(p => p.name).join(', ')} (questions build, offline)…`);
  const results = await Promise.all(
    projects.map(project =>
      buildQuestions(db, {
        instance: project.instance,
        buggyDir: join(project.dir, 'repo'),
        goldPatch: project.patches.find(p => p.name === 'gold')!.file,
        // named like the demo agents whose explanations are stored
        agentPatches: project.patches.filter(p => p.name !== 'gold').map(p => ({name: `demo-${p.name}`, file: p.file})),
        test: project.test,
        python: process.env.DELTALENS_PYTHON ?? 'python3',
        sandbox: 'prefer', // our own project and patches
        seed: 0,
        timeoutS: 120,
        types: ['e2e_intent', 'e2e_effect', 'local_intent', 'local_effect'],
      }),
    ),
  );
  const built = results.flatMap(r => r.questions);
  await qualityChecks(db, built.map(b => b.question), lexicalModel());
  return {questions: built.length, excluded: results.flatMap(r => r.excluded).map(e => `${e.instance} ${e.stage}${e.agent ? ` ${e.agent}` : ''}: ${e.reason}`)};
}

/**
 * Audits of the demo agents' explanations on the three demo projects (ExplainBench §6), made offline
 * by the scripted auditor (marked as such: model offline-scripted-auditor) through the real audit
 * loop and tools — the sandboxed diff_execution of the project's test before and after each patch —
 * then scored with the lexical baseline, so the audit screen and the Table 6 comparison have data.
 */
export async function auditDemoAgents(db: Db, onProgress?: (message: string) => void): Promise<{audits: number; problems: string[]}> {
  const {runAudit, DEFAULT_BUDGETS} = await import('./audit.js');
  const {offlineAuditor, testSource} = await import('./offline-auditor.js');
  const {findExplanation} = await import('../store/questions.js');
  const {lexicalModel} = await import('./qa-models.js');
  const {scoreExplanations} = await import('./scoring.js');
  const problems: string[] = [];
  let audits = 0;
  for (const project of demoProjects()) {
    const [file, fn] = project.test.split('::') as [string, string];
    const code = testSource(readFileSync(join(project.dir, 'repo', file), 'utf8'), fn);
    if (!code) {
      problems.push(`${project.name}: no ${project.test} to audit with`);
      continue;
    }
    for (const p of project.patches.filter(x => x.name !== 'gold')) {
      const agent = `demo-${p.name}`;
      const e = findExplanation(db, project.instance, agent, 'original');
      if (!e?.text) continue;
      onProgress?.(`auditing ${agent}'s explanation of ${project.instance} (offline scripted auditor, sandboxed runs)…`);
      const a = await runAudit(
        db,
        {instance: project.instance, agent, trajectory: null, buggyDir: join(project.dir, 'repo'), patch: readFileSync(p.file, 'utf8'), explanation: e.text, issue: problemStatement(db, project.instance) ?? ''},
        {model: offlineAuditor(code, e.text), budgets: {...DEFAULT_BUDGETS, maxToolCalls: 3}, python: process.env.DELTALENS_PYTHON ?? 'python3', sandbox: 'prefer', toolTimeoutS: 120, maxResultChars: 8000},
      );
      if (a.status === 'done') audits++;
      else problems.push(`audit of ${agent} on ${project.instance}: ${a.reason}`);
    }
  }
  await scoreExplanations(db, {model: lexicalModel(), samples: 5, concurrency: 1, kinds: ['audited']});
  return {audits, problems};
}

/** A build's temporary files: DEMO_DB.building-PID and its journal files. */
const BUILDING = new RegExp(`^${basename(DEMO_DB).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.building-(\\d+)(?:-wal|-shm|-journal)?$`);

/**
 * What a build that was killed (or lost its machine) left: its half-built database files, whose
 * process is gone. Removed before anything reads or builds the demo. Returns the files removed.
 */
export function sweepDemoLeftovers(): string[] {
  const removed: string[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dirname(DEMO_DB));
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = BUILDING.exec(name);
    if (!m || processAlive(Number(m[1]))) continue;
    rmSync(join(dirname(DEMO_DB), name), {force: true});
    removed.push(name);
  }
  return removed;
}

/**
 * Builds into a temporary file and renames it into place, so a crash never leaves half a demo.
 * The temporary files go on every way out: an error, Ctrl+C or SIGTERM (then exit 130/143), an
 * early process.exit; after a SIGKILL, at the next start (sweepDemoLeftovers).
 */
export async function buildDemo(onProgress?: (message: string) => void): Promise<DemoReport> {
  sweepDemoLeftovers();
  const temporary = `${DEMO_DB}.building-${process.pid}`;
  const removeTemporary = () => {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${temporary}${suffix}`, {force: true});
  };
  removeTemporary();
  const onSignal = (signal: NodeJS.Signals) => {
    removeTemporary();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('exit', removeTemporary);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await buildInto(temporary, onProgress);
  } finally {
    removeTemporary();
    process.off('exit', removeTemporary);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function buildInto(temporary: string, onProgress?: (message: string) => void): Promise<DemoReport> {
  const db = openDb(temporary);
  let report: ImportReport;
  let traced: {pairs: number; problems: string[]};
  try {
    report = importPaths(
      db,
      DEMO_SOURCES.map(source => join(SAMPLE_DIR, source)),
      {format: 'auto', maxBytes: 100 * 1024 * 1024, onProgress: onProgress && ((done, total) => onProgress(`importing trajectories ${done}/${total}`))},
    );
    traced = await traceDemoProjects(db, onProgress);
    traced.pairs += await importDemoTraces(db, onProgress);
    await importDemoQuestions(db, onProgress);
    const built = await buildDemoQuestions(db, onProgress);
    traced.problems.push(...built.excluded);
    const audited = await auditDemoAgents(db, onProgress);
    traced.problems.push(...audited.problems);
    onProgress?.('scoring process quality (lens build)');
    await runLensBuildWithSources(db, {}, new Map(demoProjects().map(p => [p.instance, join(p.dir, 'repo')] as const)));
    checkpoint(db);
  } finally {
    db.close();
  }
  if (report.failed.length) throw new Error(`demo build failed: ${report.failed.map(f => `${f.path}: ${f.error}`).join('; ')}`);
  for (const suffix of ['-wal', '-shm']) rmSync(`${DEMO_DB}${suffix}`, {force: true});
  renameSync(temporary, DEMO_DB);
  for (const suffix of ['-wal', '-shm']) rmSync(`${temporary}${suffix}`, {force: true});
  writeFileSync(STAMP, `${demoFingerprint()}\n`);
  return {import: report, pairs: traced.pairs, traceProblems: traced.problems};
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, {withFileTypes: true}).flatMap(entry =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : [],
  );
}
