import {spawn} from 'node:child_process';
import {createHash, randomUUID} from 'node:crypto';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import {basename, dirname, join, relative, resolve} from 'node:path';
import {packageRoot} from '../package-root.js';
import {alive, processAlive, selfIdentity} from './leftovers.js';
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
export const DEMO_DB = process.env.DELTALENS_DEMO_DB
  ? resolve(process.env.DELTALENS_DEMO_DB)
  : join(SAMPLE_DIR, 'demo.db');
export const TRACES_DIR = join(SAMPLE_DIR, 'traces');
export const EXPLAINBENCH_DIR = join(SAMPLE_DIR, 'explainbench');
const QUESTIONS_DIR = join(SAMPLE_DIR, 'questions');
const STAMP = `${DEMO_DB}.stamp`;

/**
 * The bundled demo dataset, in import order: the multi-run folder first so that its runs keep
 * their configuration names (the single mini-SWE-agent file is byte-identical to one of them).
 */
const DEMO_SOURCES = ['trajectories/swe-bench-instances', 'trajectories/mini-swe-agent-multi', 'trajectories'];

/** Changes whenever a sample file, a migration or this list changes, so the demo is rebuilt. */
/** The fingerprint of the sources as this process found them: the explorer polls the demo's state
 * each second and the sources do not change under a running command (hashing them reads ~2 MB). */
let fingerprint: string | null = null;
const currentFingerprint = () => (fingerprint ??= demoFingerprint());

function demoFingerprint(): string {
  const hash = createHash('sha256').update(DEMO_SOURCES.join('\n'));
  const files = [
    ...listFiles(join(SAMPLE_DIR, 'trajectories')),
    ...listFiles(PROJECTS_DIR),
    ...listFiles(TRACES_DIR),
    ...listFiles(EXPLAINBENCH_DIR),
    ...listFiles(QUESTIONS_DIR),
    ...listFiles(join(TRACER_DIR, 'deltatrace')),
    // the intent labeller labels runs at import: a new labeller, or a format's tool names, means
    // new labels
    ...listFiles(join(ROOT, 'source', 'core', 'lens')),
    ...listFiles(join(ROOT, 'source', 'core', 'trajectory')),
    // and the code-reasoning detector tags them
    join(ROOT, 'source', 'core', 'reasoning', 'detect.ts'),
    ...listFiles(MIGRATIONS_DIR),
    // the demo's built questions are this builder's output (its stages and its pure parts), its
    // audits these services'
    ...listFiles(join(ROOT, 'source', 'services', 'questions')),
    ...listFiles(join(ROOT, 'source', 'core', 'questions')),
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

/**
 * The demo is built in two parts. The quick part — the real runs, the ExplainBench sample, the
 * hand-written questions and their baseline scores, lens scores — takes seconds; the traced part
 * — the demo projects' pairs, questions build and the offline audits — takes a minute or more.
 * The explorer opens on the quick part and the traced part is built beside it by another
 * process (`build-demo --finish`) into the same file; every other command waits for the whole.
 *
 * The stamp (DEMO_DB.stamp) says which part is in the file and of which sources (the
 * fingerprint). While the traced part is built, DEMO_DB.finishing says by whom and how far.
 */
interface Stamp {
  fingerprint: string;
  stage: 'quick' | 'full';
  /** one id per quick build: a finisher only completes the file it started on */
  build: string;
  /** what the traced part could not build (no Python, a project that did not trace) */
  problems?: string[];
}

/** How far the background part is: written by the process building it. */
interface Finishing {
  pid: number;
  start: string | null;
  build: string;
  done: number;
  total: number;
  message: string;
  /** set when the build failed: why */
  failed?: string;
}

export const FINISHING = `${DEMO_DB}.finishing`;
/** What the background build writes (its progress and any error). */
export const BUILD_LOG = `${DEMO_DB}.log`;

function readStamp(): Stamp | null {
  let text: string;
  try {
    text = readFileSync(STAMP, 'utf8').trim();
  } catch {
    return null;
  }
  // a stamp of an older deltalens: its fingerprint alone, for a whole build
  if (/^[0-9a-f]{64}$/.test(text)) return {fingerprint: text, stage: 'full', build: ''};
  try {
    const s = JSON.parse(text) as Stamp;
    return typeof s.fingerprint === 'string' && (s.stage === 'quick' || s.stage === 'full') ? s : null;
  } catch {
    return null;
  }
}

/** Written beside the file and renamed over the old one: a reader sees one or the other. */
function writeAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

function readFinishing(): Finishing | null {
  try {
    const f = JSON.parse(readFileSync(FINISHING, 'utf8')) as Finishing;
    return typeof f.pid === 'number' && typeof f.build === 'string' ? f : null;
  } catch {
    return null;
  }
}

export type DemoState =
  /** no demo, or one of other sources: it is built anew */
  | {kind: 'missing'}
  /** the quick part is built; nobody builds the rest */
  | {kind: 'quick'; build: string}
  /** the rest is being built by a running process */
  | {kind: 'finishing'; build: string; progress: Finishing}
  /** a process building the rest stopped or failed midway: the file holds half of it */
  | {kind: 'interrupted'; build: string; progress: Finishing}
  | {kind: 'full'};

export function demoState(): DemoState {
  if (!existsSync(DEMO_DB)) return {kind: 'missing'};
  const stamp = readStamp();
  if (!stamp || stamp.fingerprint !== currentFingerprint()) return {kind: 'missing'};
  if (stamp.stage === 'full') return {kind: 'full'};
  const progress = readFinishing();
  if (!progress || progress.build !== stamp.build) return {kind: 'quick', build: stamp.build};
  return !progress.failed && alive(progress)
    ? {kind: 'finishing', build: stamp.build, progress}
    : {kind: 'interrupted', build: stamp.build, progress};
}

export function demoIsCurrent(): boolean {
  return demoState().kind === 'full';
}

interface DemoReport {
  import: ImportReport;
  pairs: number;
  /** why demo traces are missing (no Python, no pytest), when they are */
  traceProblems: string[];
}

/** The demo projects' instance records (their issue, gold patch and test). */
function recordDemoInstances(db: Db): void {
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
  }
}

/** Traces every demo project's patches (real tracer, real pytest) into `db`; onDone after each pair. */
async function traceDemoProjects(
  db: Db,
  onProgress?: (message: string) => void,
  onDone?: () => void,
): Promise<{pairs: number; problems: string[]}> {
  const {tracePair} = await import('./tracing.js');
  const {PythonError} = await import('./python.js');
  const python = process.env.DELTALENS_PYTHON ?? 'python3';
  let pairs = 0;
  const problems: string[] = [];
  for (const project of demoProjects()) {
    for (const patch of project.patches) {
      onProgress?.(`tracing ${project.name} / ${patch.name}…`);
      try {
        await tracePair(
          db,
          {kind: 'patch', repo: join(project.dir, 'repo'), patch: patch.file, copy: true},
          {
            python,
            test: project.test,
            instance: project.instance,
            label: patch.name,
            versionKind: patch.name === 'gold' ? 'gold' : 'agent',
            pytestPlugins: false,
            limits: {timeoutS: 120},
            // our own projects and patches: confined when bwrap is here, else run as they are
            sandbox: 'prefer',
          },
        );
        pairs += 1;
      } catch (error) {
        if (error instanceof PythonError) {
          problems.push(error.message);
          return {pairs, problems};
        }
        problems.push(`${project.name}/${patch.name}: ${(error as Error).message}`);
      } finally {
        onDone?.();
      }
    }
  }
  return {pairs, problems};
}

/** The ExplainBench trace samples (swe-bench-tracer-py) as traced pairs. */
async function importDemoTraces(db: Db, onProgress?: (message: string) => void): Promise<number> {
  const {importTracePair} = await import('./trace-ingest.js');
  if (!existsSync(TRACES_DIR)) return 0;
  let pairs = 0;
  for (const instance of readdirSync(TRACES_DIR).sort()) {
    const buggyFile = join(TRACES_DIR, instance, 'buggy.jsonl');
    const fixedFile = join(TRACES_DIR, instance, 'fixed.jsonl');
    if (!existsSync(buggyFile) || !existsSync(fixedFile)) continue;
    onProgress?.(`importing the ExplainBench traces of ${instance}…`);
    importTracePair(db, buggyFile, fixedFile, {
      instance,
      label: 'gold (ExplainBench traces)',
      test: 'reproduction test',
      options: ['match-by-text'],
    });
    pairs += 1;
  }
  return pairs;
}

/**
 * Questions: the real ExplainBench sample (questions, keys, five agents' recorded answers)
 * and hand-written questions of all four types for the demo projects, with the demo agents'
 * explanations answered by the lexical baseline.
 */
async function importDemoQuestions(db: Db, onProgress?: (message: string) => void): Promise<void> {
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
    for (const line of readFileSync(questions, 'utf8').split('\n').filter(Boolean))
      insertQuestion(db, validateQuestion(JSON.parse(line)), {source: relative(ROOT, questions)});
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
async function buildDemoQuestions(
  db: Db,
  onProgress?: (message: string) => void,
  onDone?: () => void,
): Promise<{questions: number; excluded: string[]}> {
  const {buildQuestions} = await import('./questions/build.js');
  const {qualityChecks} = await import('./questions/quality.js');
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
      }).finally(onDone),
    ),
  );
  const built = results.flatMap(r => r.questions);
  await qualityChecks(
    db,
    built.map(b => b.question),
    lexicalModel(),
  );
  return {
    questions: built.length,
    excluded: results
      .flatMap(r => r.excluded)
      .map(e => `${e.instance} ${e.stage}${e.agent ? ` ${e.agent}` : ''}: ${e.reason}`),
  };
}

/**
 * Audits of the demo agents' explanations on the three demo projects (ExplainBench §6), made offline
 * by the scripted auditor (marked as such: model offline-scripted-auditor) through the real audit
 * loop and tools — the sandboxed diff_execution of the project's test before and after each patch —
 * then scored with the lexical baseline, so the audit screen and the Table 6 comparison have data.
 */
async function auditDemoAgents(
  db: Db,
  onProgress?: (message: string) => void,
  onDone?: () => void,
): Promise<{audits: number; problems: string[]}> {
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
      if (!e?.text) {
        onDone?.();
        continue;
      }
      onProgress?.(
        `auditing ${agent}'s explanation of ${project.instance} (offline scripted auditor, sandboxed runs)…`,
      );
      const a = await runAudit(
        db,
        {
          instance: project.instance,
          agent,
          trajectory: null,
          buggyDir: join(project.dir, 'repo'),
          patch: readFileSync(p.file, 'utf8'),
          explanation: e.text,
          issue: problemStatement(db, project.instance) ?? '',
        },
        {
          model: offlineAuditor(code, e.text),
          budgets: {...DEFAULT_BUDGETS, maxToolCalls: 3},
          python: process.env.DELTALENS_PYTHON ?? 'python3',
          sandbox: 'prefer',
          toolTimeoutS: 120,
          maxResultChars: 8000,
        },
      );
      if (a.status === 'done') audits++;
      else problems.push(`audit of ${agent} on ${project.instance}: ${a.reason}`);
      onDone?.();
    }
  }
  await scoreExplanations(db, {model: lexicalModel(), samples: 5, concurrency: 1, kinds: ['audited']});
  return {audits, problems};
}

/** A build's temporary files: DEMO_DB.building-PID and its journal files. */
const BUILDING = new RegExp(
  `^${basename(DEMO_DB).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.building-(\\d+)(?:-wal|-shm|-journal)?$`,
);

/** A stamp or progress file being written (writeAtomically): NAME.PID.tmp. */
const WRITING = new RegExp(
  `^${basename(DEMO_DB).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(?:stamp|finishing)\\.(\\d+)\\.tmp$`,
);

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
  // a finisher's progress of another build, or of a demo that is whole
  const progress = readFinishing();
  const stamp = readStamp();
  if (progress && stamp && (stamp.stage === 'full' || stamp.build !== progress.build) && !alive(progress)) {
    rmSync(FINISHING, {force: true});
    removed.push(basename(FINISHING));
  }
  for (const name of names) {
    const m = BUILDING.exec(name) ?? WRITING.exec(name);
    if (!m || processAlive(Number(m[1]))) continue;
    rmSync(join(dirname(DEMO_DB), name), {force: true});
    removed.push(name);
  }
  return removed;
}

/**
 * Builds the whole demo into a temporary file and renames it into place, so a crash never leaves
 * half a demo. The temporary files go on every way out: an error, Ctrl+C or SIGTERM (then exit
 * 130/143), an early process.exit; after a SIGKILL, at the next start (sweepDemoLeftovers).
 */
export async function buildDemo(onProgress?: (message: string) => void): Promise<DemoReport> {
  return inTemporary(async db => {
    const report = await quickInto(db, onProgress);
    let last = '';
    // a line per part started (a part's end repeats its message: not said again)
    const traced = await finishInto(
      db,
      onProgress && (s => s.message !== last && onProgress(`[${s.done}/${s.total}] ${(last = s.message)}`)),
    );
    return {import: report, pairs: report.tracePairs + traced.pairs, traceProblems: traced.traceProblems};
  }, 'full');
}

/** The quick part alone (seconds), in place of any demo there was; the rest is left to finishDemo. */
export async function buildDemoQuick(
  onProgress?: (message: string) => void,
): Promise<ImportReport & {tracePairs: number}> {
  return inTemporary(db => quickInto(db, onProgress), 'quick');
}

/** A process still building the traced part of a demo that is being built anew: stopped (its work is for a file about to be replaced). */
function stopOlderFinisher(): void {
  const f = readFinishing();
  if (f && f.pid !== process.pid && alive(f)) {
    try {
      process.kill(f.pid, 'SIGTERM');
    } catch {
      /* it ended meanwhile */
    }
  }
}

async function inTemporary<T>(fill: (db: Db) => Promise<T>, stage: Stamp['stage']): Promise<T> {
  sweepDemoLeftovers();
  stopOlderFinisher();
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
    const db = openDb(temporary);
    let result: T;
    try {
      result = await fill(db);
      checkpoint(db);
    } finally {
      db.close();
    }
    for (const suffix of ['-wal', '-shm']) rmSync(`${DEMO_DB}${suffix}`, {force: true});
    renameSync(temporary, DEMO_DB);
    for (const suffix of ['-wal', '-shm']) rmSync(`${temporary}${suffix}`, {force: true});
    rmSync(FINISHING, {force: true});
    writeAtomically(
      STAMP,
      `${JSON.stringify({fingerprint: currentFingerprint(), stage, build: randomUUID()} satisfies Stamp)}\n`,
    );
    return result;
  } finally {
    removeTemporary();
    process.off('exit', removeTemporary);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** What imports in seconds: the runs, the instances, the ExplainBench sample, the hand-written questions, lens scores. */
async function quickInto(db: Db, onProgress?: (message: string) => void): Promise<ImportReport & {tracePairs: number}> {
  const report = importPaths(
    db,
    DEMO_SOURCES.map(source => join(SAMPLE_DIR, source)),
    {
      format: 'auto',
      maxBytes: 100 * 1024 * 1024,
      onProgress: onProgress && ((done, total) => onProgress(`importing trajectories ${done}/${total}`)),
    },
  );
  if (report.failed.length)
    throw new Error(`demo build failed: ${report.failed.map(f => `${f.path}: ${f.error}`).join('; ')}`);
  recordDemoInstances(db);
  const tracePairs = await importDemoTraces(db, onProgress);
  await importDemoQuestions(db, onProgress);
  onProgress?.('scoring process quality (lens build)');
  await runLensBuildWithSources(db, {}, new Map(demoProjects().map(p => [p.instance, join(p.dir, 'repo')] as const)));
  return {...report, tracePairs};
}

/** One step of the traced part: how many of how many are done, and what runs now. */
interface FinishStep {
  done: number;
  total: number;
  message: string;
}

/** The traced part: every demo project's pairs, its questions build, the offline audits. */
async function finishInto(db: Db, onStep?: (s: FinishStep) => void): Promise<{pairs: number; traceProblems: string[]}> {
  const projects = demoProjects();
  const agents = projects.reduce((n, p) => n + p.patches.filter(x => x.name !== 'gold').length, 0);
  const total = projects.reduce((n, p) => n + p.patches.length, 0) + projects.length + agents;
  let done = 0;
  let message = '';
  const say = (m: string) => onStep?.({done, total, message: (message = m)});
  const one = () => {
    done = Math.min(total, done + 1);
    onStep?.({done, total, message});
  };
  const traced = await traceDemoProjects(db, say, one);
  const built = await buildDemoQuestions(db, say, one);
  traced.problems.push(...built.excluded);
  const audited = await auditDemoAgents(db, say, one);
  traced.problems.push(...audited.problems);
  return {pairs: traced.pairs, traceProblems: traced.problems};
}

/**
 * Builds the traced part into the demo file whose quick part is built, while others read it:
 * what the explorer starts in the background (`build-demo --finish`). One process at a time
 * (DEMO_DB.finishing is made exclusively); it says how far it is there, and stamps the demo whole
 * at the end — unless the file was rebuilt meanwhile. A process that stops midway leaves the
 * file half-finished: the next start sees that (demoState 'interrupted') and builds anew.
 */
export async function finishDemo(
  onStep?: (s: FinishStep) => void,
): Promise<
  | {status: 'done'; pairs: number; traceProblems: string[]}
  | {status: 'busy'; pid: number}
  | {status: 'not-needed'; why: string}
> {
  const state = demoState();
  if (state.kind === 'finishing') return {status: 'busy', pid: state.progress.pid};
  if (state.kind !== 'quick')
    return {
      status: 'not-needed',
      why:
        state.kind === 'full'
          ? 'the demo is whole already'
          : state.kind === 'missing'
            ? 'the quick part of the demo is not built'
            : 'an earlier build stopped midway: the demo is built anew',
    };
  const me = {...selfIdentity(), build: state.build};
  let progress: Finishing = {...me, done: 0, total: 0, message: 'starting'};
  try {
    const fd = openSync(FINISHING, 'wx');
    writeFileSync(fd, JSON.stringify(progress));
    closeSync(fd);
  } catch {
    const other = readFinishing();
    return {status: 'busy', pid: other?.pid ?? 0};
  }
  // the progress file is this process's only while it names it: a demo rebuilt meanwhile has another
  const mine = () => {
    const now = readFinishing();
    return now?.pid === me.pid && now.build === me.build;
  };
  const db = openDb(DEMO_DB);
  try {
    const result = await finishInto(db, s => {
      progress = {...me, ...s};
      if (mine()) writeAtomically(FINISHING, JSON.stringify(progress));
      onStep?.(s);
    });
    checkpoint(db);
    const stamp = readStamp();
    if (stamp?.build === state.build)
      writeAtomically(
        STAMP,
        `${JSON.stringify({...stamp, stage: 'full', ...(result.traceProblems.length ? {problems: result.traceProblems} : {})} satisfies Stamp)}\n`,
      );
    if (mine()) rmSync(FINISHING, {force: true});
    return {status: 'done', ...result};
  } catch (error) {
    if (mine()) writeAtomically(FINISHING, JSON.stringify({...progress, failed: (error as Error).message}));
    throw error;
  } finally {
    db.close();
  }
}

/**
 * Starts finishDemo in a process of its own that goes on when the caller exits (its output to
 * DEMO_DB.log). Returns its pid.
 */
export function startDemoFinisher(): number {
  const log = openSync(BUILD_LOG, 'w');
  try {
    const child = spawn(process.execPath, [join(packageRoot(), 'bin', 'deltalens.js'), 'build-demo', '--finish'], {
      detached: true,
      stdio: ['ignore', log, log],
      env: process.env,
    });
    child.unref();
    return child.pid ?? 0;
  } finally {
    closeSync(log);
  }
}

/** What the explorer shows of the background build, read from DEMO_DB.finishing and the stamp. */
export interface BackgroundBuild {
  state: 'starting' | 'running' | 'done' | 'failed';
  text: string;
  done: number;
}

/** Reads how the background build of the demo is going; `pid` is the process started for it. */
export function demoBuildStatus(pid: number): BackgroundBuild {
  const state = demoState();
  if (state.kind === 'full') {
    const problems = readStamp()?.problems ?? [];
    return {
      state: 'done',
      text: problems.length
        ? `demo built; ${problems.length} part(s) could not be: ${problems[0]} (all in ${BUILD_LOG})`
        : 'demo: traced pairs, built questions and audits are ready',
      done: Number.MAX_SAFE_INTEGER,
    };
  }
  if (state.kind === 'finishing') {
    const p = state.progress;
    return {state: 'running', text: `demo build ${p.done}/${p.total}: ${p.message}`, done: p.done};
  }
  if (state.kind === 'interrupted')
    return {
      state: 'failed',
      text: `the demo's traced part stopped: ${state.progress.failed ?? 'its process ended'} (log: ${BUILD_LOG})`,
      done: state.progress.done,
    };
  if (state.kind === 'quick' && processAlive(pid))
    return {state: 'starting', text: "starting to build the demo's traced part…", done: 0};
  return {state: 'failed', text: `the demo's traced part is not being built (log: ${BUILD_LOG})`, done: 0};
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, {withFileTypes: true}).flatMap(entry =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : [],
  );
}
