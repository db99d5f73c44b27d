/**
 * The explanation audit's tools (ExplainBench §6): what an auditing model may do to test a
 * patch's explanation, every one on throw-away trees and every run in the sandbox.
 *
 * Three trees: `buggy` and `patched` (the buggy tree and the same with the agent's patch; only
 * the audit's test file is ever written into them) for `diff_execution`, and `work`, the model's
 * own copy of the buggy tree, where `read_file`, `write_file`, `apply_patch`, `revert_patch` and
 * `bash` act. A tool never throws: a bad call (a path outside the tree, a patch that does not
 * apply, a runaway command) comes back as a result the model can read.
 */
import {createReadStream, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync} from 'node:fs';
import {createInterface} from 'node:readline';
import {dirname, join, relative, resolve, sep} from 'node:path';
import type {Db} from '../store/db.js';
import {forget, makeTempDir} from './leftovers.js';
import {pythonRunner, runPython, type PythonRunner} from './python.js';
import type {SandboxPolicy} from './sandbox.js';
import {tracePair} from './tracing.js';
import {scopesIn} from './scopes.js';
import {prepareWorkspace, type Workspace} from './workspace.js';

export const AUDIT_TEST = 'test_deltalens_audit.py';
/** what one inspect_call_graph answer lists at most: a tool result is capped (8,000 characters by
 * default), and the answer must fit whole — chains and callers each to a share of it */
const MAX_CHAINS = 8;
const MAX_CALLERS = 20;
const CHAIN_CHARS = 4000;
const CALLER_CHARS = 1500;

/** The first items of a list whose JSON fits in `chars` (the first one always). */
function fitting<T>(items: T[], chars: number): T[] {
  let used = 0;
  const out: T[] = [];
  for (const item of items) {
    used += JSON.stringify(item).length + 1;
    if (out.length && used > chars) break;
    out.push(item);
  }
  return out;
}

export interface AuditToolOptions {
  instance: string;
  /** the buggy tree (a folder, copied) */
  buggyDir: string;
  /** the agent's patch (unified diff text) */
  patch: string;
  python: string;
  sandbox: SandboxPolicy;
  passEnv?: string[];
  /** per test run and per bash command, seconds */
  timeoutS: number;
  /** characters of output a tool result carries at most */
  maxOutput: number;
  /** stops a running test, trace or command (Ctrl+C) */
  signal?: AbortSignal;
}

export interface RunOutcome {
  exit_code: number | null;
  outcome: 'passed' | 'failed' | 'error' | 'timeout';
  stdout: string;
  stderr: string;
}

const tailOf = (text: string, n: number) => (text.length > n ? `…${text.slice(text.length - n)}` : text);

export class AuditTools {
  private constructor(
    readonly db: Db,
    readonly o: AuditToolOptions,
    readonly runner: PythonRunner,
    readonly ws: Workspace,
    readonly work: string,
    private readonly scratch: string,
  ) {}

  /** Makes the three trees (the patch must apply: else the audit cannot start). */
  static async open(db: Db, o: AuditToolOptions): Promise<AuditTools> {
    const runner = await pythonRunner(o.python, o.sandbox, {passEnv: o.passEnv});
    const scratch = makeTempDir('audit');
    try {
      const patchFile = join(scratch, 'agent.diff');
      writeFileSync(patchFile, o.patch.endsWith('\n') ? o.patch : `${o.patch}\n`);
      const ws = await prepareWorkspace({kind: 'patch', repo: o.buggyDir, patch: patchFile, copy: true}, runner);
      const work = join(scratch, 'work');
      cpSync(ws.buggy, work, {recursive: true});
      return new AuditTools(db, o, runner, ws, work, scratch);
    } catch (error) {
      forget(scratch);
      throw error;
    }
  }

  close(): void {
    this.ws.cleanup();
    forget(this.scratch);
  }

  /** A path inside the work tree, or why not (absolute, `..`, a symlink out of it). */
  private inside(path: string): {ok: string} | {error: string} {
    if (typeof path !== 'string' || !path.trim()) return {error: 'path must be a non-empty string'};
    const full = resolve(this.work, path);
    if (full !== this.work && !full.startsWith(this.work + sep)) return {error: `refused: ${path} is outside the audit's tree (paths are relative to it)`};
    // a symlink in the tree must not lead out of it
    let probe = full;
    while (!existsSync(probe) && probe !== this.work) probe = dirname(probe);
    const real = realpathSync(probe);
    const root = realpathSync(this.work);
    if (real !== root && !real.startsWith(root + sep)) return {error: `refused: ${path} leads outside the audit's tree`};
    return {ok: full};
  }

  readFile(path: string): {content: string; truncated: boolean} | {error: string} {
    const p = this.inside(path);
    if ('error' in p) return p;
    if (!existsSync(p.ok) || !statSync(p.ok).isFile()) return {error: `no file ${path}`};
    const text = readFileSync(p.ok, 'utf8');
    return {content: text.slice(0, this.o.maxOutput), truncated: text.length > this.o.maxOutput};
  }

  writeFile(path: string, content: string): {written: string; bytes: number} | {error: string} {
    if (typeof content !== 'string') return {error: 'content must be a string'};
    const p = this.inside(path);
    if ('error' in p) return p;
    mkdirSync(dirname(p.ok), {recursive: true});
    writeFileSync(p.ok, content);
    return {written: relative(this.work, p.ok), bytes: Buffer.byteLength(content)};
  }

  /** A program run in the work tree, confined (only the tree writable), as an argument array:
   * started by the sandbox's Python, which is what the sandbox knows how to start. */
  private inWork(argv: string[], timeoutMs: number, readable: string[] = []) {
    return runPython(this.runner, ['-c', 'import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)', ...argv], {cwd: this.work, timeoutMs, writable: [this.work], readable, signal: this.o.signal});
  }

  /** A bash command in the work tree, confined, cut at the time limit, its output capped. */
  async bash(command: string): Promise<RunOutcome | {error: string}> {
    if (typeof command !== 'string' || !command.trim()) return {error: 'command must be a non-empty string'};
    const r = await this.inWork(['bash', '-c', command], this.o.timeoutS * 1000);
    return {exit_code: r.exitCode, outcome: r.timedOut ? 'timeout' : r.exitCode === 0 ? 'passed' : 'failed', stdout: tailOf(r.stdout, this.o.maxOutput), stderr: tailOf(r.stderr, this.o.maxOutput)};
  }

  /** The agent's patch applied to the work tree (`revert_patch` puts the buggy files back). */
  async applyPatch(): Promise<{applied: boolean; detail: string}> {
    const file = join(this.scratch, 'agent.diff');
    const r = await this.inWork(['patch', '-p1', '--forward', '--batch', '-i', file], 60_000, [this.scratch]);
    return {applied: r.exitCode === 0, detail: tailOf(`${r.stdout}${r.stderr}`.trim(), 2000)};
  }

  revertPatch(): {reverted: boolean} {
    // the work tree back to the buggy files (what the model wrote elsewhere stays)
    for (const entry of readdirSync(this.ws.buggy)) cpSync(join(this.ws.buggy, entry), join(this.work, entry), {recursive: true, force: true});
    return {reverted: true};
  }

  /** The tests diff_execution ran, in order: inspect_call_graph traces them. */
  private readonly tests: string[] = [];

  /** The files of a tree that define a function by this name, and the lines (any tree) that call it. */
  private staticSearch(tree: string, name: string): {defs: string[]; callers: {file: string; line: number; text: string}[]; total: number} {
    const defs: string[] = [];
    const callers: {file: string; line: number; text: string}[] = [];
    let total = 0;
    const call = new RegExp(`(?<![\\w])${name}\\s*\\(`);
    const def = new RegExp(`^\\s*(?:async\\s+)?def\\s+${name}\\b`);
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, {withFileTypes: true})) {
        if (e.name.startsWith('.') || e.name === '__pycache__' || e.name.startsWith('test_deltalens_')) continue;
        const full = join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (e.isFile() && e.name.endsWith('.py')) {
          const rel = relative(tree, full);
          readFileSync(full, 'utf8').split('\n').forEach((l, i) => {
            if (def.test(l)) {
              if (!defs.includes(rel)) defs.push(rel);
            } else if (call.test(l) && total++ < MAX_CALLERS) callers.push({file: rel, line: i + 1, text: l.trim().slice(0, 120)});
          });
        }
      }
    };
    walk(tree);
    return {defs, callers, total};
  }

  /**
   * The call chains that reach a function in the tests diff_execution ran: the tests are traced
   * again with the function as the tracer's focus (control flow only), which records, in that one
   * run, every frame that called it up to the test; beside them, the lines of the model's tree that
   * call it by name (the fallback when no test has run or none reached it).
   */
  async callGraph(fn: string): Promise<{chains: {side: string; chain: string[]; times: number}[]; distinct_chains: number; callers: {file: string; line: number; text: string}[]; callers_total: number; how: string} | {error: string}> {
    // a qualified name as the delta names it (topo_sort.<locals>.visit) is the nested function
    const plain = typeof fn === 'string' ? fn.trim().replace(/<locals>\./g, '') : '';
    if (!/^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/.test(plain)) return {error: 'function must be a Python name (Class.method and outer.<locals>.inner allowed)'};
    const parts = plain.split('.');
    const name = parts.at(-1)!;
    const {callers: every, total} = this.staticSearch(this.work, name);
    const callers = fitting(every, CALLER_CHARS);
    const statics = (why: string) => ({chains: [], distinct_chains: 0, callers, callers_total: total, how: `${why}: callers are the lines of the tree that call it by name (static)`});
    if (!this.tests.length) return statics('no test run yet (diff_execution runs them; their traces give the call chains)');
    // where it is defined: the buggy tree, or the patched one for a function the patch adds
    let side: 'buggy' | 'patched' = 'buggy';
    let found = this.staticSearch(this.ws.buggy, name).defs;
    if (!found.length) [side, found] = ['patched', this.staticSearch(this.ws.patched, name).defs];
    if (!found.length) return statics('no function of that name is defined in the tree');
    const tree = side === 'buggy' ? this.ws.buggy : this.ws.patched;
    const {scopes, problem} = await scopesIn(tree, found, this.o.python);
    if (problem) return statics(problem);
    // the qualified names that end in what was asked (Class.method matches Class.method and Outer.Class.method)
    const wanted = (q: string) => {
      const tail = q.replace(/<locals>\./g, '').split('.');
      return parts.every((p, i) => tail[tail.length - parts.length + i] === p);
    };
    const focus = [...scopes].flatMap(([file, ss]) => ss.filter(s => s.kind === 'function' && wanted(s.qualname)).map(s => `${file}:${s.qualname}`));
    if (!focus.length) return statics('no function of that name is defined in the tree');
    // written into both trees alike, so later pairs see no change the patch did not make
    const files = this.tests.map((code, i) => {
      const file = `test_deltalens_audit_cg${i + 1}.py`;
      for (const t of [this.ws.buggy, this.ws.patched]) writeFileSync(join(t, file), code);
      return file;
    });
    const out = join(this.scratch, 'callgraph.jsonl');
    const args = ['-m', 'deltatrace', 'run', '--root', tree, '--out', out, '--record', 'skeleton', '--max-events', '2000000', '--timeout', String(Math.max(1, this.o.timeoutS - 2))];
    for (const f of focus) args.push('--focus', f);
    // one test that no longer imports (the model's tests are its own) does not stop the others
    args.push('--', '-q', '-p', 'no:cacheprovider', '--continue-on-collection-errors', ...files);
    const r = await runPython(this.runner, args, {cwd: tree, timeoutMs: this.o.timeoutS * 1000, writable: [tree, this.scratch], env: {PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1'}, signal: this.o.signal});
    if (!existsSync(out)) return statics(`the tests could not be traced (${r.timedOut ? 'timed out' : tailOf(r.stderr.trim(), 300) || `exit ${r.exitCode}`})`);
    const {chains, distinct} = await chainsIn(out, new Set(focus), side);
    forget(out);
    return {
      chains: fitting(chains, CHAIN_CHARS),
      distinct_chains: distinct,
      callers,
      callers_total: total,
      how: chains.length
        ? `chains: the tests diff_execution ran, traced with ${focus.join(', ')} as the focus (innermost first, ${side} tree); callers: the lines of the tree that call it by name (the first ones, callers_total of them in all)`
        : `the tests diff_execution ran never reached ${focus.join(', ')}: callers are the lines of the tree that call it by name (static)`,
    };
  }

  /**
   * The model's test, run before and after the patch (the buggy and patched trees), and — beyond
   * the paper — where behaviour first differs between the two runs: the delta point from our
   * tracer (function, line, differing values), null when the traces agree or cannot be compared.
   */
  async diffExecution(testCode: string): Promise<{before: RunOutcome; after: RunOutcome; delta: Record<string, unknown> | null; test: string} | {error: string}> {
    if (typeof testCode !== 'string' || !/^\s*(?:async\s+)?def\s+test\w*\s*\(/m.test(testCode)) return {error: 'test_code must hold a pytest test function (def test_…)'};
    const fn = /^\s*(?:async\s+)?def\s+(test\w*)\s*\(/m.exec(testCode)![1]!;
    this.tests.push(testCode);
    for (const tree of [this.ws.buggy, this.ws.patched]) writeFileSync(join(tree, AUDIT_TEST), testCode);
    const nodeid = `${AUDIT_TEST}::${fn}`;
    const run = async (tree: string): Promise<RunOutcome> => {
      const r = await runPython(this.runner, ['-m', 'pytest', '-x', '-q', '-p', 'no:cacheprovider', nodeid], {cwd: tree, timeoutMs: this.o.timeoutS * 1000, writable: [tree], signal: this.o.signal});
      return {exit_code: r.exitCode, outcome: r.timedOut ? 'timeout' : r.exitCode === 0 ? 'passed' : r.exitCode === 1 ? 'failed' : 'error', stdout: tailOf(r.stdout, this.o.maxOutput), stderr: tailOf(r.stderr, this.o.maxOutput)};
    };
    const [before, after] = await Promise.all([run(this.ws.buggy), run(this.ws.patched)]);
    let delta: Record<string, unknown> | null = null;
    if (before.outcome !== 'timeout' && after.outcome !== 'timeout' && !this.o.signal?.aborted) {
      try {
        const r = await tracePair(this.db, {kind: 'dirs', buggyDir: this.ws.buggy, patchedDir: this.ws.patched}, {python: this.o.python, test: nodeid, instance: this.o.instance, label: 'audit', sandbox: this.o.sandbox, passEnv: this.o.passEnv, pytestPlugins: false, limits: {timeoutS: this.o.timeoutS}, signal: this.o.signal});
        const d = r.delta;
        delta = d.status === 'found' ? {pair: r.pair, kind: d.kind, function: d.function, file: d.file, line: d.line, timing: d.timing, variables: (d as {variables?: unknown}).variables ?? null} : d.status === 'none' ? null : {pair: r.pair, status: d.status, reason: d.reason};
      } catch (error) {
        delta = {status: 'not traced', reason: (error as Error).message};
      }
    }
    return {before, after, delta, test: nodeid};
  }
}

/**
 * The distinct chains of frames from the function up to the test (innermost first), from a
 * skeleton trace read line by line: the function as `fn (file)`, each caller as `fn (file:line)`
 * with the line it made the call from. A call of the function from anywhere inside another call of
 * it (recursion, direct or not) is reached through the outer call's chain and not listed again.
 * At most MAX_CHAINS, the number of distinct ones beside.
 */
async function chainsIn(file: string, focus: Set<string>, side: string): Promise<{chains: {side: string; chain: string[]; times: number}[]; distinct: number}> {
  const frames = new Map<number, {fn: string; file: string; parent: number | null; callLine?: number; under: boolean}>();
  const hits: number[] = [];
  for await (const line of createInterface({input: createReadStream(file, 'utf8'), crlfDelay: Infinity})) {
    if (!line.startsWith('{"t":"call"')) continue;
    const rec = JSON.parse(line) as {fid: number; parent: number | null; fn: string; file: string; call_line?: number};
    if (frames.has(rec.fid)) continue; // a generator resuming
    const isFocus = focus.has(`${rec.file}:${rec.fn}`);
    const parentUnder = rec.parent !== null && (frames.get(rec.parent)?.under ?? false);
    frames.set(rec.fid, {fn: rec.fn, file: rec.file, parent: rec.parent, callLine: rec.call_line, under: isFocus || parentUnder});
    if (isFocus && !parentUnder) hits.push(rec.fid);
  }
  const chains = new Map<string, {side: string; chain: string[]; times: number}>();
  for (const fid of hits) {
    const chain: string[] = [];
    let below: {callLine?: number} | null = null;
    for (let at = frames.get(fid); at; at = at.parent === null ? undefined : frames.get(at.parent)) {
      chain.push(`${at.fn} (${at.file}${below?.callLine ? `:${below.callLine}` : ''})`);
      below = at;
    }
    const key = chain.join(' < ');
    const seen = chains.get(key);
    if (seen) seen.times++;
    else chains.set(key, {side, chain, times: 1});
  }
  return {chains: [...chains.values()].slice(0, MAX_CHAINS), distinct: chains.size};
}
