import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {forget, forgetSoon, makeTempDir} from '../../source/services/leftovers.js';
import {tempDir} from '../helpers/files.js';

const saved = process.env.TMPDIR;
afterAll(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
});

describe("the record of a run's throw-away folders", () => {
  it('is written again when another run removed the records folder under it (two deltalens at once)', () => {
    process.env.TMPDIR = tempDir();
    const records = join(tmpdir(), `deltalens-runs-${process.getuid?.() ?? 'user'}`);
    const a = makeTempDir('x');
    expect(readdirSync(records)).toHaveLength(1);
    // what another run does when it leaves the folder empty, between our mkdir and our write
    rmSync(records, {recursive: true, force: true});
    const b = makeTempDir('y');
    const [file] = readdirSync(records);
    expect(JSON.parse(readFileSync(join(records, file!), 'utf8')).folders).toEqual([a, b]);
    forget(a);
    forget(b);
    expect(existsSync(a) || existsSync(b)).toBe(false);
  });
});

describe('a folder removed in the background', () => {
  it('stays in the record until it is gone, then leaves nothing', async () => {
    process.env.TMPDIR = tempDir();
    const records = join(tmpdir(), `deltalens-runs-${process.getuid?.() ?? 'user'}`);
    const ws = makeTempDir('ws');
    for (const side of ['buggy', 'patched']) {
      mkdirSync(join(ws, side, 'pkg'), {recursive: true});
      writeFileSync(join(ws, side, 'pkg', 'mod.py'), 'x = 1\n');
    }
    writeFileSync(join(ws, 'plan.json'), '{}');
    const removing = forgetSoon(ws);
    // while the child processes remove it, an exit would still find it in the record
    const [file] = readdirSync(records);
    expect(JSON.parse(readFileSync(join(records, file!), 'utf8')).folders).toEqual([ws]);
    await removing;
    expect(existsSync(ws)).toBe(false);
    expect(existsSync(records)).toBe(false);
  });
});

describe('the exit hook', () => {
  it('is added once, however many temporary folders come and go', async () => {
    const before = process.listenerCount('exit');
    for (let i = 0; i < 20; i++) forget(makeTempDir('hook'));
    expect(process.listenerCount('exit') - before).toBeLessThanOrEqual(1);
  });
});
