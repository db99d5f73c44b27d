/**
 * Input that is legal but hostile to a naive reader, through the real CLI and a real store:
 * text with NUL bytes, numbers out of any sensible range, a file that is no trace, and stores
 * the command cannot write (a read-only folder, a full disk).
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {NUL_MARK} from '../../source/core/text/sanitize.js';
import {BIN, runCli} from '../helpers/hostile.js';
import {SAMPLES, tempDir} from '../helpers/files.js';

const RUN = join(SAMPLES, 'mini-swe-agent', 'django__django-11099.traj.json');
const ROOT_USER = process.getuid?.() === 0;

/** Whether this process can mount a small tmpfs (root on a machine that allows it): the full-disk case. */
function canMount(): boolean {
  if (!ROOT_USER) return false;
  const probe = tempDir();
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]).status !== 0) return false;
  spawnSync('umount', [probe]);
  return true;
}
const MOUNT = canMount();
if (!MOUNT) console.warn('the full-disk case is skipped: it mounts a small tmpfs, which needs root here');

describe('text with NUL bytes', () => {
  it('round-trips through import, show --json and the reasoning spans; shown as a visible mark in plain output', () => {
    const dir = tempDir();
    const doc = JSON.parse(readFileSync(RUN, 'utf8'));
    const thought =
      'THOUGHT: the value x = 3\u0000 and after the NUL the thought goes on: the function returns 7 here.';
    doc.messages[2].content = `${thought}\n\n\`\`\`bash\nls\n\`\`\``;
    doc.messages[3].content = `${doc.messages[3].content}\u0000after the NUL byte`;
    writeFileSync(join(dir, 'nul.traj.json'), JSON.stringify(doc));
    const db = join(dir, 'db.sqlite');
    expect(runCli(['import', join(dir, 'nul.traj.json'), '--db', db], {}).code).toBe(0);
    const shown = JSON.parse(runCli(['show', 'trajectory', '1', '--db', db, '--json'], {}).stdout);
    const step = shown.steps[0];
    expect(step.thought).toBe(thought.replace(/^THOUGHT: /, ''));
    expect(step.observation.endsWith('\u0000after the NUL byte')).toBe(true);
    // every mark's span lies inside the thought as it reads back
    for (const m of shown.steps.flatMap((s: {thought: string; reasoning: {span: [number, number]; text: string}[]}) =>
      s.reasoning.map(r => ({...r, thought: s.thought})),
    )) {
      expect(m.span[1]).toBeLessThanOrEqual(m.thought.length);
      expect(m.thought.slice(m.span[0], m.span[1])).toBe(m.text);
    }
    const plain = runCli(['show', 'trajectory', '1', '--db', db], {}).stdout;
    expect(plain).toContain(`3${NUL_MARK} and after the NUL the thought goes on`);
    expect(plain).toContain(`${NUL_MARK}after the NUL byte`);
    expect(plain).not.toContain('\u0000');
  });
});

describe('numbers out of range at import', () => {
  it('are not stored, with one warning per field; unknown messages and a run without steps are said so', () => {
    const dir = tempDir();
    const doc = JSON.parse(readFileSync(RUN, 'utf8'));
    doc.info.model_stats.instance_cost = 1e308;
    doc.messages = [
      ...doc.messages.slice(0, 2),
      ...Array.from({length: 1000}, () => ({role: 'robot', content: 'beep'})),
    ];
    writeFileSync(join(dir, 'weird.traj.json'), JSON.stringify(doc));
    writeFileSync(
      join(dir, 'run.jsonl'),
      `${JSON.stringify({type: 'trajectory', instance: 'a__b-1', agent: 'x', model: 'm', tokens_in: 2 ** 70, tokens_out: -5, cost: 12.5})}\n${JSON.stringify({type: 'step', thought: 't', tool: 'bash', args: {command: 'ls'}, action: 'ls', observation: 'o'})}\n`,
    );
    const db = join(dir, 'db.sqlite');
    const r = runCli(['import', join(dir, 'weird.traj.json'), join(dir, 'run.jsonl'), '--db', db, '--json'], {});
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.added).toHaveLength(2);
    expect(out.warnings.map((w: {id: number; field: string}) => `${w.id} ${w.field}`)).toEqual([
      '1 cost',
      '1 $.messages',
      '1 steps',
      '2 tokens_in',
      '2 tokens_out',
    ]);
    expect(out.warnings[1].message).toContain('1000 message(s) with the role "robot"');
    const runs = JSON.parse(runCli(['show', 'trajectory', '2', '--db', db, '--json'], {}).stdout);
    expect(runs).toMatchObject({tokens_in: null, tokens_out: null, cost: 12.5});
    expect(JSON.parse(runCli(['show', 'trajectory', '1', '--db', db, '--json'], {}).stdout).cost).toBeNull();
    // in plain output, on stderr, a line each
    const plain = runCli(['import', join(dir, 'weird.traj.json'), '--db', join(dir, 'other.db')], {});
    expect(plain.stderr.trim().split('\n')).toHaveLength(3);
    expect(plain.stderr).toContain('warning #1');
  });
});

describe('errors that name their cause', () => {
  it('a file that is not a trace: the file, the line and why, one line, exit 1', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.jsonl'), Buffer.from([0xff, 0xfe, 0x7b, 0x7d, 0x0a]));
    const r = runCli(
      ['traces', 'import', join(dir, 'bad.jsonl'), join(dir, 'bad.jsonl'), '--db', join(dir, 'db.sqlite')],
      {},
    );
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${join(dir, 'bad.jsonl')}: not a trace: invalid UTF-8 byte 0xff`);
  });

  it('a store in a folder that is missing, or that this user cannot write: said so, exit 2, nothing made', () => {
    const dir = tempDir();
    const missing = runCli(['import', RUN, '--db', join(dir, 'nowhere', 'x.db')], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`the folder ${join(dir, 'nowhere')} does not exist`);
    if (!ROOT_USER) return; // the write-protected folder below needs another user than its owner
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    chmodSync(dir, 0o755);
    chmodSync(ro, 0o555);
    copyFileSync(RUN, join(dir, 'run.traj.json'));
    chmodSync(join(dir, 'run.traj.json'), 0o644);
    const r = spawnSync(process.execPath, [BIN, 'import', join(dir, 'run.traj.json'), '--db', join(ro, 'x.db')], {
      encoding: 'utf8',
      uid: 65534,
      gid: 65534,
      env: {PATH: process.env.PATH, HOME: '/tmp', TMPDIR: '/tmp'},
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`the folder ${ro} is not writable by this user`);
  });

  it.skipIf(!MOUNT)(
    'a full disk: a command that only reads still reads; one that writes says the disk is full and leaves no empty store',
    () => {
      const dir = tempDir();
      const full = join(dir, 'full');
      mkdirSync(full);
      const store = join(dir, 'store.db');
      expect(runCli(['import', RUN, '--db', store], {}).code).toBe(0);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', full]);
      try {
        copyFileSync(store, join(full, 'store.db'));
        spawnSync('dd', ['if=/dev/zero', `of=${join(full, 'fill')}`, 'bs=4k']);
        const read = runCli(['trajectories', '--db', join(full, 'store.db'), '--json'], {});
        expect(read.code, read.stderr).toBe(0);
        expect(JSON.parse(read.stdout).total).toBe(1);
        const write = runCli(['import', RUN, '--db', join(full, 'new.db')], {});
        expect(write.code).toBe(1);
        expect(write.stderr.trim().split('\n')).toHaveLength(1);
        expect(write.stderr).toContain(`the disk holding ${full} is full`);
        expect(spawnSync('ls', [full], {encoding: 'utf8'}).stdout.split('\n')).not.toContain('new.db');
      } finally {
        execFileSync('umount', [full]);
      }
    },
  );
});
