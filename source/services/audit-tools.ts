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
import {readdirSync, writeFileSync} from 'node:fs';
import {join, relative} from 'node:path';
import type {Db} from '../store/db.js';
import {variableForModel} from '../core/audit/brief.js';
import type {VariableDiff} from '../core/trace/delta.js';
import {forget, makeTempDir} from './leftovers.js';
import {pythonRunner, runPython, type PythonRunner} from './python.js';
import type {SandboxPolicy} from './sandbox.js';
import {tracePair} from './tracing.js';
import {scopesIn} from './scopes.js';
import {readInTree, restoreTree, TreeFileError, writeInTree} from './tree-files.js';
import {copyTrees, prepareWorkspace, type Workspace} from './workspace.js';

const AUDIT_TEST = 'test_deltalens_audit.py';
/** what one inspect_call_graph answer lists at most: a tool result is capped (8,000 characters by
 * default), and the answer must fit whole — chains and callers each to a share of it */
const MAX_CHAINS = 8;
const MAX_CALLERS = 20;
const CHAIN_CHARS = 4000;
const CALLER_CHARS = 1500;
/** a .py file larger than this is not searched for callers (generated tables, not code) */
const MAX_SEARCHED_BYTES = 4 * 1024 * 1024;

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

interface AuditToolOptions {
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

interface RunOutcome {
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
    /** the buggy files as they were, which no run can write: what revert_patch puts back */
    private readonly pristine: string,
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
      const pristine = join(scratch, 'pristine');
      await copyTrees([
        [ws.buggy, work],
        [ws.buggy, pristine],
      ]);
      return new AuditTools(db, o, runner, ws, work, scratch, pristine);
    } catch (error) {
      forget(scratch);
      throw error;
    }
  }

  close(): void {
    this.ws.cleanup();
    forget(this.scratch);
  }

  /** A message with this audit's host folders said as what they are (the model and the transcript
   * never see the machine's temporary paths). */
  hidePaths(text: string): string {
    const names: [string, string][] = [
      [this.work, '<work tree>'],
      [this.pristine, '<buggy files>'],
      [this.ws.buggy, '<buggy tree>'],
      [this.ws.patched, '<patched tree>'],
      [this.scratch, '<audit folder>'],
    ];
    let out = text;
    for (const [path, name] of names.sort((a, b) => b[0].length - a[0].length)) out = out.split(path).join(name);
    return out;
  }

  /** The first maxOutput characters of a file of the work tree (at most 4 bytes a character read). */
  readFile(path: string): {content: string; truncated: boolean} | {error: string} {
    try {
      const r = readInTree(this.work, path, this.o.maxOutput * 4);
      const text = r.data.toString('utf8');
      return {content: text.slice(0, this.o.maxOutput), truncated: r.truncated || text.length > this.o.maxOutput};
    } catch (error) {
      return {error: treeError(error)};
    }
  }

  /** A file of the work tree written (its folders made); never through a link. */
  writeFile(path: string, content: string): {written: string; bytes: number} | {error: string} {
    if (typeof content !== 'string') return {error: 'content must be a string'};
    try {
      const r = writeInTree(this.work, path, content);
      return {written: relative(this.work, r.path), bytes: r.bytes};
    } catch (error) {
      return {error: treeError(error)};
    }
  }

  /** A program run in the work tree, confined (only the tree writable), as an argument array:
   * started by the sandbox's Python, which is what the sandbox knows how to start. */
  private inWork(argv: string[], timeoutMs: number, readable: string[] = []) {
    return runPython(
      this.runner,
      ['-c', 'import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)', ...argv],
      {cwd: this.work, timeoutMs, writable: [this.work], readable, signal: this.o.signal},
    );
  }

  /** A bash command in the work tree, confined, cut at the time limit, its output capped. */
  async bash(command: string): Promise<RunOutcome | {error: string}> {
    if (typeof command !== 'string' || !command.trim()) return {error: 'command must be a non-empty string'};
    const r = await this.inWork(['bash', '-c', command], this.o.timeoutS * 1000);
    return {
      exit_code: r.exitCode,
      outcome: r.timedOut ? 'timeout' : r.exitCode === 0 ? 'passed' : 'failed',
      stdout: tailOf(r.stdout, this.o.maxOutput),
      stderr: tailOf(r.stderr, this.o.maxOutput),
    };
  }

  /** The agent's patch applied to the work tree (`revert_patch` puts the buggy files back). */
  async applyPatch(): Promise<{applied: boolean; detail: string}> {
    const file = join(this.scratch, 'agent.diff');
    const r = await this.inWork(['patch', '-p1', '--forward', '--batch', '-i', file], 60_000, [this.scratch]);
    return {applied: r.exitCode === 0, detail: tailOf(`${r.stdout}${r.stderr}`.trim(), 2000)};
  }

  revertPatch(): {reverted: boolean} | {error: string} {
    // the work tree back to the buggy files as they were at the start (what the model wrote
    // elsewhere stays); whatever the model left at their paths is replaced, a link never followed
    try {
      restoreTree(this.pristine, this.work);
      return {reverted: true};
    } catch (error) {
      return {error: treeError(error)};
    }
  }

  /** The tests diff_execution ran, in order: inspect_call_graph traces them. */
  private readonly tests: string[] = [];

  /** The files of a tree that define a function by this name, and the lines (any tree) that call it. */
  private staticSearch(
    tree: string,
    name: string,
  ): {defs: string[]; callers: {file: string; line: number; text: string}[]; total: number} {
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
          let text: string;
          try {
            const r = readInTree(tree, rel, MAX_SEARCHED_BYTES);
            if (r.truncated) continue; // not source anyone reads
            text = r.data.toString('utf8');
          } catch {
            continue; // replaced by something else since the listing
          }
          text.split('\n').forEach((l, i) => {
            if (def.test(l)) {
              if (!defs.includes(rel)) defs.push(rel);
            } else if (call.test(l) && total++ < MAX_CALLERS)
              callers.push({file: rel, line: i + 1, text: l.trim().slice(0, 120)});
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
  async callGraph(fn: string): Promise<
    | {
        chains: {side: string; chain: string[]; times: number}[];
        distinct_chains: number;
        callers: {file: string; line: number; text: string}[];
        callers_total: number;
        how: string;
      }
    | {error: string}
  > {
    // a qualified name as the delta names it (topo_sort.<locals>.visit) is the nested function
    const plain = typeof fn === 'string' ? fn.trim().replace(/<locals>\./g, '') : '';
    if (!/^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/.test(plain))
      return {error: 'function must be a Python name (Class.method and outer.<locals>.inner allowed)'};
    const parts = plain.split('.');
    const name = parts.at(-1)!;
    const {callers: every, total} = this.staticSearch(this.work, name);
    const callers = fitting(every, CALLER_CHARS);
    const statics = (why: string) => ({
      chains: [],
      distinct_chains: 0,
      callers,
      callers_total: total,
      how: `${why}: callers are the lines of the tree that call it by name (static)`,
    });
    if (!this.tests.length)
      return statics('no test run yet (diff_execution runs them; their traces give the call chains)');
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
    const focus = [...scopes].flatMap(([file, ss]) =>
      ss.filter(s => s.kind === 'function' && wanted(s.qualname)).map(s => `${file}:${s.qualname}`),
    );
    if (!focus.length) return statics('no function of that name is defined in the tree');
    // written into both trees alike, so later pairs see no change the patch did not make
    // the same test run twice by diff_execution is traced once (else its chains come twice, one per copy)
    const files = [...new Set(this.tests)].map((code, i) => {
      const file = `test_deltalens_audit_cg${i + 1}.py`;
      for (const t of [this.ws.buggy, this.ws.patched]) writeInTree(t, file, code);
      return file;
    });
    // the trace comes back over a pipe (file descriptor 3): nothing the tests can swap for a FIFO or a link
    const args = [
      '-m',
      'deltatrace',
      'run',
      '--root',
      tree,
      '--out-fd',
      '3',
      '--record',
      'skeleton',
      '--max-events',
      '2000000',
      '--timeout',
      String(Math.max(1, this.o.timeoutS - 2)),
    ];
    for (const f of focus) args.push('--focus', f);
    // one test that no longer imports (the model's tests are its own) does not stop the others
    args.push('--', '-q', '-p', 'no:cacheprovider', '--continue-on-collection-errors', ...files);
    const collector = new ChainCollector(new Set(focus));
    const r = await runPython(this.runner, args, {
      cwd: tree,
      timeoutMs: this.o.timeoutS * 1000,
      writable: [tree],
      testbed: tree,
      env: {PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1'},
      signal: this.o.signal,
      onTrace: chunk => collector.chunk(chunk),
    });
    if (!collector.records)
      return statics(
        `the tests could not be traced (${r.timedOut ? 'timed out' : tailOf(r.stderr.trim(), 300) || `exit ${r.exitCode}`})`,
      );
    const {chains, distinct} = collector.chains(side);
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
  async diffExecution(
    testCode: string,
  ): Promise<
    {before: RunOutcome; after: RunOutcome; delta: Record<string, unknown> | null; test: string} | {error: string}
  > {
    if (typeof testCode !== 'string' || !/^\s*(?:async\s+)?def\s+test\w*\s*\(/m.test(testCode))
      return {error: 'test_code must hold a pytest test function (def test_…)'};
    const fn = /^\s*(?:async\s+)?def\s+(test\w*)\s*\(/m.exec(testCode)![1]!;
    this.tests.push(testCode);
    for (const tree of [this.ws.buggy, this.ws.patched]) writeInTree(tree, AUDIT_TEST, testCode);
    const nodeid = `${AUDIT_TEST}::${fn}`;
    const run = async (tree: string): Promise<RunOutcome> => {
      const r = await runPython(this.runner, ['-m', 'pytest', '-x', '-q', '-p', 'no:cacheprovider', nodeid], {
        cwd: tree,
        timeoutMs: this.o.timeoutS * 1000,
        writable: [tree],
        testbed: tree,
        signal: this.o.signal,
      });
      return {
        exit_code: r.exitCode,
        outcome: r.timedOut ? 'timeout' : r.exitCode === 0 ? 'passed' : r.exitCode === 1 ? 'failed' : 'error',
        stdout: tailOf(r.stdout, this.o.maxOutput),
        stderr: tailOf(r.stderr, this.o.maxOutput),
      };
    };
    const [before, after] = await Promise.all([run(this.ws.buggy), run(this.ws.patched)]);
    let delta: Record<string, unknown> | null = null;
    if (before.outcome !== 'timeout' && after.outcome !== 'timeout' && !this.o.signal?.aborted) {
      try {
        const r = await tracePair(
          this.db,
          {kind: 'dirs', buggyDir: this.ws.buggy, patchedDir: this.ws.patched},
          {
            python: this.o.python,
            test: nodeid,
            instance: this.o.instance,
            label: 'audit',
            sandbox: this.o.sandbox,
            passEnv: this.o.passEnv,
            pytestPlugins: false,
            limits: {timeoutS: this.o.timeoutS},
            signal: this.o.signal,
          },
        );
        const d = r.delta;
        delta =
          d.status === 'found'
            ? {
                pair: r.pair,
                kind: d.kind,
                function: d.function,
                file: d.file,
                line: d.line,
                timing: d.timing,
                variables: ((d as {variables?: VariableDiff[]}).variables ?? []).map(variableForModel),
              }
            : d.status === 'none'
              ? null
              : {pair: r.pair, status: d.status, reason: d.reason};
      } catch (error) {
        delta = {status: 'not traced', reason: (error as Error).message};
      }
    }
    return {before, after, delta, test: nodeid};
  }
}

/**
 * The distinct chains of frames from the function up to the test (innermost first), from a
 * skeleton trace as it streams in: the function as `fn (file)`, each caller as `fn (file:line)`
 * with the line it made the call from. A call of the function from anywhere inside another call of
 * it (recursion, direct or not) is reached through the outer call's chain and not listed again.
 * At most MAX_CHAINS, the number of distinct ones beside. Lines that are not call records are not
 * parsed; a line that is not JSON is skipped (the trace is the traced program's to forge).
 */
class ChainCollector {
  private readonly frames = new Map<
    number,
    {fn: string; file: string; parent: number | null; callLine?: number; under: boolean}
  >();
  private readonly hits: number[] = [];
  private rest = '';
  /** trace records seen (0: the tracer never started) */
  records = 0;

  constructor(private readonly focus: Set<string>) {}

  chunk(data: Buffer): void {
    const lines = (this.rest + data.toString('utf8')).split('\n');
    this.rest = lines.pop() ?? '';
    if (this.rest.length > 1 << 20) this.rest = ''; // one unending line: not a trace record
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    if (!line) return;
    this.records++;
    if (!line.startsWith('{"t":"call"')) return;
    let rec: {fid: number; parent: number | null; fn: string; file: string; call_line?: number};
    try {
      rec = JSON.parse(line) as typeof rec;
    } catch {
      return;
    }
    if (this.frames.has(rec.fid)) return; // a generator resuming
    const isFocus = this.focus.has(`${rec.file}:${rec.fn}`);
    const parentUnder = rec.parent !== null && (this.frames.get(rec.parent)?.under ?? false);
    this.frames.set(rec.fid, {
      fn: rec.fn,
      file: rec.file,
      parent: rec.parent,
      callLine: rec.call_line,
      under: isFocus || parentUnder,
    });
    if (isFocus && !parentUnder) this.hits.push(rec.fid);
  }

  chains(side: string): {chains: {side: string; chain: string[]; times: number}[]; distinct: number} {
    if (this.rest) this.line(this.rest);
    this.rest = '';
    const chains = new Map<string, {side: string; chain: string[]; times: number}>();
    for (const fid of this.hits) {
      const chain: string[] = [];
      let below: {callLine?: number} | null = null;
      const seen = new Set<number>();
      for (
        let at = this.frames.get(fid), id = fid;
        at && !seen.has(id);
        id = at.parent ?? -1, at = at.parent === null ? undefined : this.frames.get(at.parent)
      ) {
        seen.add(id);
        chain.push(`${at.fn} (${at.file}${below?.callLine ? `:${below.callLine}` : ''})`);
        below = at;
      }
      const key = chain.join(' < ');
      const known = chains.get(key);
      if (known) known.times++;
      else chains.set(key, {side, chain, times: 1});
    }
    return {chains: [...chains.values()].slice(0, MAX_CHAINS), distinct: chains.size};
  }
}

/** A tree file's refusal as the model reads it (the path relative to the tree, no host folders). */
function treeError(error: unknown): string {
  if (error instanceof TreeFileError) return error.message;
  const e = error as NodeJS.ErrnoException;
  return `cannot be done: ${e.code ?? e.message}`;
}
