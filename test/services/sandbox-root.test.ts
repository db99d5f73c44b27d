/**
 * The sandbox as root (CI, containers and these machines run deltalens as root): hostile code
 * tries to remount every read-only bind writable, write each of them and the kernel's settings
 * under /proc/sys — directly, through `deltalens trace`, through the audit's bash tool and through
 * `questions build` — and afterwards the host file system is checked: no file of the attack's
 * anywhere the sandbox showed read-only. The audit tools' own reads and writes are tried against
 * links, FIFOs, folders and huge files left in the trees.
 */
import {spawnSync} from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {AuditTools} from '../../source/services/audit-tools.js';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {pythonRunner, runPython, TRACER_DIR} from '../../source/services/python.js';
import {buildQuestions} from '../../source/services/questions/build.js';
import {bwrapArgs, SANDBOX_TRACER} from '../../source/services/sandbox.js';
import {freshDb} from '../helpers/db.js';
import {ROOT, tempDir} from '../helpers/files.js';
import {git, hasBwrap, PYTHON, runCli} from '../helpers/hostile.js';
import {durationsBuild} from '../helpers/questions.js';

const BWRAP = hasBwrap();
const ROOT_USER = process.getuid?.() === 0;
if (BWRAP && !ROOT_USER)
  console.warn(
    'sandbox-as-root tests run as a normal user here: the capability checks still run, the host writes they guard against need root',
  );
const ATTACK = join(ROOT, 'test', 'fixtures', 'sandbox_attack.py');
const DURATIONS = join(PROJECTS_DIR, 'durations');

/** The host folders a confined run sees read-only (bwrap's --ro-bind sources; the tracer's real folder). */
async function readOnlyHostFolders(): Promise<string[]> {
  const runner = await pythonRunner(PYTHON, 'require');
  const args = bwrapArgs({writable: [], cwd: '/', python: runner.install, tracerDir: TRACER_DIR});
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '--ro-bind' && args[i] !== '--ro-bind-try') continue;
    const [src, dst] = [args[i + 1]!, args[i + 2]!];
    if (dst === SANDBOX_TRACER) out.push(TRACER_DIR);
    else if (existsSync(src) && statSync(src).isDirectory() && !src.startsWith('/proc')) out.push(src);
    i += 2;
  }
  return out;
}

/** The attack's files on the host: none, if the sandbox held. */
async function escapes(mark: string): Promise<string[]> {
  const found = (await readOnlyHostFolders()).map(dir => join(dir, mark)).filter(p => existsSync(p));
  for (const top of ['/', '/usr', '/etc', '/opt']) if (existsSync(join(top, mark))) found.push(join(top, mark));
  return found;
}

const marks: string[] = [];
const markOf = (name: string) => {
  const mark = `deltalens-attack-${name}-${process.pid}-${Date.now()}`;
  marks.push(mark);
  return mark;
};
// a sandbox that did not hold leaves the attack's files on the host: they go, whatever failed
afterAll(async () => {
  for (const mark of marks) for (const p of await escapes(mark)) rmSync(p, {force: true});
});

describe.skipIf(!BWRAP)('the sandbox holds whoever runs deltalens', () => {
  it('a confined program has no capability: every remount, every write to a read-only bind and to /proc/sys is refused', async () => {
    const runner = await pythonRunner(PYTHON, 'require');
    const tree = tempDir();
    copyFileSync(ATTACK, join(tree, 'sandbox_attack.py'));
    const mark = markOf('direct');
    const r = await runPython(runner, ['sandbox_attack.py', mark], {cwd: tree, timeoutMs: 60_000, writable: [tree]});
    expect(r.stdout).not.toContain('ESCAPED');
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    // it did look: /usr, /etc files, the Python prefix, the tracer, /proc/sys at least
    expect(Number(/mounts (\d+)/.exec(r.stdout)?.[1])).toBeGreaterThanOrEqual(8);
    expect(await escapes(mark)).toEqual([]);
  }, 60_000);

  it('the control: the same attack on a writable folder outside the sandbox reports the write (so the check above can fail)', () => {
    const dir = tempDir();
    const mark = markOf('control');
    const r = spawnSync(PYTHON, [ATTACK, mark, dir], {encoding: 'utf8'});
    expect(r.stdout).toContain(`ESCAPED write ${dir}`);
    expect(existsSync(join(dir, mark))).toBe(true);
  });

  it('deltalens trace of a hostile patch writes nothing outside its tree', async () => {
    const dir = tempDir();
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'tests'), {recursive: true});
    copyFileSync(ATTACK, join(repo, 'sandbox_attack.py'));
    writeFileSync(join(repo, 'lib.py'), 'def f():\n    return 1\n');
    writeFileSync(
      join(repo, 'tests', 'test_lib.py'),
      'import lib\n\n\ndef test_f():\n    assert getattr(lib, "ESCAPED", []) == []\n    assert lib.f() == 2\n',
    );
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'buggy');
    const mark = markOf('trace');
    // three lines of a patched module: the attack runs when the test imports it
    writeFileSync(
      join(repo, 'lib.py'),
      `import sandbox_attack\nESCAPED = sandbox_attack.attack(${JSON.stringify(mark)})\n\n\ndef f():\n    return 2\n`,
    );
    git(repo, 'commit', '-qam', 'hostile fix');
    const r = runCli(
      [
        'trace',
        '--repo',
        repo,
        '--buggy',
        'HEAD~1',
        '--patched',
        'HEAD',
        '--test',
        'tests/test_lib.py::test_f',
        '--db',
        join(dir, 'db.sqlite'),
        '--python',
        PYTHON,
        '--no-plugins',
        '--json',
        '--no-rerun',
      ],
      {TMPDIR: dir},
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {sandbox: string; patched_outcome: {status: string}};
    expect(out.sandbox).toMatch(/^bwrap/);
    // the test asserts the attack found nothing writable, and passed on the patched side
    expect(out.patched_outcome).toMatchObject({status: 'passed'});
    expect(await escapes(mark)).toEqual([]);
  }, 120_000);
});

describe.skipIf(!BWRAP)('the audit tools against what a run leaves in the trees', () => {
  let tools: AuditTools;
  let victim: string;
  const host = tempDir();
  beforeAll(async () => {
    const repo = join(tempDir(), 'repo');
    cpSync(join(DURATIONS, 'repo'), repo, {recursive: true});
    copyFileSync(ATTACK, join(repo, 'sandbox_attack.py'));
    victim = join(host, 'victim.txt');
    writeFileSync(victim, 'the host file\n');
    tools = await AuditTools.open(freshDb().db, {
      instance: 'demo__durations-1',
      buggyDir: repo,
      patch: readFileSync(join(DURATIONS, 'patches', 'agent-wrong.diff'), 'utf8'),
      python: PYTHON,
      sandbox: 'require',
      timeoutS: 20,
      maxOutput: 4000,
    });
  }, 60_000);
  afterAll(() => tools?.close());

  it('bash: the attack as root finds nothing writable; nothing appears on the host', async () => {
    const mark = markOf('bash');
    const r = await tools.bash(`python3 sandbox_attack.py ${mark}`);
    expect(r).toMatchObject({exit_code: 0});
    expect((r as {stdout: string}).stdout).not.toContain('ESCAPED');
    expect(await escapes(mark)).toEqual([]);
  }, 60_000);

  it('write_file through a dangling link writes the tree, not the host', async () => {
    const target = join(host, 'created-through-link.txt');
    await tools.bash(`ln -s ${target} dangling && ln -s ${host} hostdir`);
    const w = tools.writeFile('dangling', "the model's content");
    // the link itself is replaced by a file of the tree
    expect(w).toEqual({written: 'dangling', bytes: 19});
    expect(existsSync(target)).toBe(false);
    expect(tools.readFile('dangling')).toEqual({content: "the model's content", truncated: false});
    // a folder that is a link is never gone through
    expect(tools.writeFile('hostdir/x.txt', 'x')).toMatchObject({
      error: expect.stringContaining('leads through a link'),
    });
    expect(tools.readFile('hostdir/victim.txt')).toMatchObject({
      error: expect.stringContaining('leads through a link'),
    });
    expect(existsSync(join(host, 'x.txt'))).toBe(false);
  }, 60_000);

  it("a test that swaps the audit's test files for links to host files: the next diff_execution and inspect_call_graph write the trees only", async () => {
    const swap = `import os\n\n\ndef test_swap():\n    here = os.path.dirname(os.path.abspath(__file__))\n    for name in ["test_deltalens_audit.py", "test_deltalens_audit_cg1.py", "test_deltalens_audit_cg2.py"]:\n        p = os.path.join(here, name)\n        if os.path.lexists(p):\n            os.remove(p)\n        os.symlink(${JSON.stringify(victim)}, p)\n`;
    const first = await tools.diffExecution(swap);
    expect(first).toMatchObject({before: {outcome: 'passed'}, after: {outcome: 'passed'}});
    const second = await tools.diffExecution('def test_next():\n    assert True\n');
    expect(second).toMatchObject({before: {outcome: 'passed'}});
    const graph = await tools.callGraph('parse_duration');
    expect(graph).not.toHaveProperty('error');
    expect(readFileSync(victim, 'utf8')).toBe('the host file\n');
  }, 120_000);

  it('a FIFO where a file is read or written is refused or replaced, never waited on', async () => {
    await tools.bash('mkfifo pipe.py && mkfifo test_deltalens_audit_cg1.py');
    expect(tools.readFile('pipe.py')).toMatchObject({error: expect.stringContaining('FIFO')});
    const started = Date.now();
    const g = await tools.callGraph('parse_duration');
    expect(g).not.toHaveProperty('error');
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 90_000);

  it('write_file on a folder, under a file, a huge read_file and revert_patch after a folder became a link answer the model, never throw', async () => {
    expect(tools.writeFile('durations', 'x')).toMatchObject({error: 'durations is a folder'});
    expect(tools.writeFile('durations/parse.py/sub.py', 'x')).toMatchObject({
      error: expect.stringContaining('is not a folder'),
    });
    await tools.bash('truncate -s 1500M huge.txt');
    const before = process.memoryUsage().rss;
    const started = Date.now();
    const big = tools.readFile('huge.txt') as {content: string; truncated: boolean};
    expect(big.truncated).toBe(true);
    expect(big.content.length).toBe(4000);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
    await tools.bash(`rm -rf durations && ln -s ${host} durations`);
    expect(tools.revertPatch()).toEqual({reverted: true});
    expect(lstatSync(join(tools.work, 'durations')).isDirectory()).toBe(true);
    expect(tools.readFile('durations/parse.py')).toMatchObject({
      content: expect.stringContaining('def parse_duration'),
    });
    expect(existsSync(join(host, 'parse.py'))).toBe(false);
  }, 60_000);
});

describe.skipIf(!BWRAP)('questions build with hostile code', () => {
  it('an agent patch that attacks, and a PBT that swaps itself for a link to a host file: nothing outside the trees is written', async () => {
    const dir = tempDir();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'the host file\n');
    const mark = markOf('build');
    // the agent patch: the attack (a module of its own) run when the patched module is imported
    const attack = readFileSync(ATTACK, 'utf8').split('\n');
    const hostile = [
      'diff --git a/durations/evil.py b/durations/evil.py',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/durations/evil.py',
      `@@ -0,0 +1,${attack.length} @@`,
      ...attack.map(l => `+${l}`),
      'diff --git a/durations/__init__.py b/durations/__init__.py',
      '--- a/durations/__init__.py',
      '+++ b/durations/__init__.py',
    ];
    const init = readFileSync(join(DURATIONS, 'repo', 'durations', '__init__.py'), 'utf8').split('\n');
    if (init.at(-1) === '') init.pop();
    hostile.push(
      `@@ -1,${init.length} +1,${init.length + 2} @@`,
      ...init.map(l => ` ${l}`),
      '+from durations import evil as _evil',
      `+_evil.attack(${JSON.stringify(mark)})`,
    );
    writeFileSync(join(dir, 'hostile.diff'), `${hostile.join('\n')}\n`);
    // the PBT: fails on the buggy version, passes on the fixed one; run with a candidate in place
    // of its expected value, it replaces itself by a link to a host file (every later test the
    // build writes would go through it)
    writeFileSync(
      join(dir, 'pbt.py'),
      `import os\nfrom durations.parse import parse_duration\n\n\ndef test_pbt():\n    me = os.path.abspath(__file__)\n    if "== 5400\\n" not in open(me).read():\n        os.remove(me)\n        os.symlink(${JSON.stringify(victim)}, me)\n    assert parse_duration("1h30m") == 5400\n`,
    );
    const {db} = freshDb();
    const r = await buildQuestions(
      db,
      await durationsBuild({
        sandbox: 'require',
        pbt: join(dir, 'pbt.py'),
        agentPatches: [{name: 'hostile', file: join(dir, 'hostile.diff')}],
        types: ['e2e_intent', 'e2e_effect'],
      }),
    );
    expect(readFileSync(victim, 'utf8')).toBe('the host file\n');
    expect(await escapes(mark)).toEqual([]);
    // the build went on: the candidates were written into the trees, not through the link
    expect(r.questions.map(q => q.question.type).sort(), JSON.stringify(r.excluded)).toEqual([
      'e2e_effect',
      'e2e_intent',
    ]);
  }, 300_000);
});
