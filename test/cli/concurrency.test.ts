/**
 * Writers wait instead of failing: two `import` processes and one `score` process on one
 * database file at once (three real processes, a real SQLite file, a real local server speaking
 * the OpenAI API). Every file and every paid answer is stored.
 */
import {readFileSync, writeFileSync, mkdirSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {openDb} from '../../source/store/db.js';
import {questionsDb} from '../helpers/db.js';
import {SAMPLES, tempDir} from '../helpers/files.js';
import {startCli} from '../helpers/hostile.js';
import {startOpenAiServer} from '../helpers/openai-server.js';

const FILES = 400;

/** `FILES` distinct mini-SWE-agent trajectories (the real sample with another instance id each). */
function corpus(dir: string, side: string): string {
  const sample = JSON.parse(
    readFileSync(join(SAMPLES, 'mini-swe-agent', 'django__django-11099.traj.json'), 'utf8'),
  ) as {instance_id: string};
  const out = join(dir, side);
  mkdirSync(out);
  for (let i = 0; i < FILES; i++) {
    const instance = `conc__${side}-${i}`;
    writeFileSync(join(out, `${instance}.traj.json`), JSON.stringify({...sample, instance_id: instance}));
  }
  return out;
}

describe('three writers on one database', () => {
  it('two imports and a score at once: every file and every answer is stored, none fails with "database is locked"', async () => {
    const dir = tempDir();
    const {db, path} = await questionsDb(join(dir, 'shared.db'));
    db.close();
    const a = corpus(dir, 'a');
    const b = corpus(dir, 'b');
    const server = await startOpenAiServer(() => ({answer: 'A', delayMs: 5}));
    try {
      const env = {OPENAI_API_KEY: 'test-key'};
      const procs = [
        startCli(['import', a, '--db', path, '--json'], env),
        startCli(['import', b, '--db', path, '--json'], env),
        startCli(
          [
            'score',
            '--model',
            'm',
            '--base-url',
            server.url,
            '--samples',
            '5',
            '--concurrency',
            '8',
            '--db',
            path,
            '--json',
          ],
          env,
        ),
      ];
      const ends = await Promise.all(procs.map(p => p.done));
      for (const [i, end] of ends.entries()) expect(end.code, procs[i]!.stderr).toBe(0);
      for (const p of procs.slice(0, 2)) {
        const report = JSON.parse(p.stdout) as {added: unknown[]; failed: unknown[]};
        expect(report.failed).toEqual([]);
        expect(report.added).toHaveLength(FILES);
      }
      const score = JSON.parse(procs[2]!.stdout) as {answered: number; failed: number; total: number; cached: number};
      expect(score.failed).toBe(0);
      expect(score.answered).toBe(score.total - score.cached);
      expect(score.answered).toBeGreaterThan(100);
      // every stderr line of score --json is a JSON progress line: no warnings mixed in
      for (const line of procs[2]!.stderr.split('\n').filter(Boolean))
        expect(() => JSON.parse(line), line).not.toThrow();

      const check = openDb(path, {mode: 'read'});
      expect(check.prepare("SELECT count(*) FROM trajectory WHERE instance LIKE 'conc__%'").pluck().get()).toBe(
        2 * FILES,
      );
      expect(check.prepare("SELECT count(*) FROM qa_answer WHERE model = 'm'").pluck().get()).toBe(score.answered);
      expect(server.calls.length).toBe(score.answered);
      check.close();
    } finally {
      await server.close();
    }
  }, 180_000);

  it('score --json with 32 calls in flight writes only JSON lines to stderr (no runtime warning mixed in); --timeout is checked', async () => {
    const {db, path} = await questionsDb(join(tempDir(), 'q.db'));
    db.close();
    const server = await startOpenAiServer(() => ({answer: 'B', delayMs: 20}));
    try {
      const cli = startCli(
        [
          'score',
          '--model',
          'm',
          '--base-url',
          server.url,
          '--concurrency',
          '32',
          '--timeout',
          '30',
          '--db',
          path,
          '--json',
        ],
        {OPENAI_API_KEY: 'k'},
      );
      expect((await cli.done).code, cli.stderr).toBe(0);
      const lines = cli.stderr.split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      const bad = startCli(['score', '--model', 'm', '--timeout', '0', '--db', path], {OPENAI_API_KEY: 'k'});
      expect((await bad.done).code).toBe(2);
      expect(bad.stderr).toContain('--timeout takes a number of seconds above 0');
    } finally {
      await server.close();
    }
  }, 60_000);
});
