/**
 * Nothing from data reaches the terminal raw: trajectories whose every field carries clear
 * screen, a title change (OSC 0), a clipboard write (OSC 52), cursor and device queries, 8-bit
 * C1 controls and bidi overrides, printed by every command that prints data. JSON keeps the
 * text exactly, with the terminal-active characters escaped.
 */
import {spawnSync} from 'node:child_process';
import {writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {sanitize, terminalSafeJson} from '../../source/core/text/sanitize.js';
import {ROOT, tempDir} from '../helpers/files.js';
import {HOSTILE, RAW} from '../helpers/hostile-text.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}});
  return {code: r.status, stdout: r.stdout, stderr: r.stderr};
}

function hostileRuns(dir: string): string {
  const file = join(dir, `runs${HOSTILE.slice(0, 4)}.jsonl`);
  const lines: unknown[] = [];
  for (const n of [1, 2, 3]) {
    lines.push({
      type: 'trajectory',
      instance: `evil__inst-1${HOSTILE}`,
      agent: `agent${n}${HOSTILE}`,
      model: `model${HOSTILE}`,
      exit_status: `done${HOSTILE}`,
    });
    lines.push({
      type: 'step',
      thought: `look${HOSTILE}`,
      tool: `bash${HOSTILE}`,
      action: `cat evil.py ${HOSTILE}`,
      observation: `line one${HOSTILE}\nline two\r\x1b[K${HOSTILE}`,
    });
    lines.push({
      type: 'step',
      thought: `edit${HOSTILE}`,
      tool: 'bash',
      action: `sed -i s/a/b/ evil.py # ${HOSTILE}`,
      observation: HOSTILE,
    });
    lines.push({
      type: 'step',
      thought: 'test',
      tool: 'bash',
      action: 'python -m pytest tests/test_evil.py',
      observation: `1 passed${HOSTILE}`,
    });
    lines.push({
      type: 'end',
      patch: `diff --git a/evil.py b/evil.py\n+${HOSTILE}\n`,
      explanation: `Fixed it${HOSTILE}`,
      resolved: true,
    });
  }
  writeFileSync(file, `${lines.map(l => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

describe('escape sequences in data', () => {
  it('never reach the terminal raw from import, trajectories, show, lens build/report, traces, explanations', () => {
    const dir = tempDir();
    const file = hostileRuns(dir);
    const db = join(dir, 'evil.db');
    const outputs = [
      run(['import', file, '--db', db], dir),
      run(['trajectories', '--db', db], dir),
      run(['show', 'trajectory', '1', '--db', db], dir),
      run(['show', 'trajectory', '2', '--db', db], dir),
      run(['lens', 'build', '--db', db], dir),
      run(['lens', 'report', '--db', db], dir),
      run(['explanations', 'list', '--db', db], dir),
    ];
    for (const o of outputs) {
      expect(o.code, o.stderr).toBe(0);
      expect(o.stdout + o.stderr).not.toMatch(RAW);
    }
    // what is left is the readable text
    expect(outputs[2]!.stdout).toContain('line one');
    expect(outputs[2]!.stdout).toContain('Fixed it');
    expect(outputs[1]!.stdout).toContain('evil__inst-1');
    // lens report has rows for the hostile agents
    expect(outputs[5]!.stdout).toMatch(/agent1/);
  });

  it('--json keeps every character of the data, with the terminal-active ones escaped', () => {
    const dir = tempDir();
    const db = join(dir, 'evil.db');
    run(['import', hostileRuns(dir), '--db', db], dir);
    for (const args of [
      ['trajectories', '--json'],
      ['show', 'trajectory', '1', '--json'],
      ['import', hostileRuns(dir), '--json'],
    ]) {
      const o = run([...args, '--db', db], dir);
      expect(o.stdout).not.toMatch(RAW);
      expect(() => JSON.parse(o.stdout)).not.toThrow();
    }
    const shown = JSON.parse(run(['show', 'trajectory', '1', '--json', '--db', db], dir).stdout) as {
      instance: string;
      steps: {thought: string}[];
    };
    expect(shown.instance).toBe(`evil__inst-1${HOSTILE}`);
    expect(shown.steps[0]!.thought).toBe(`look${HOSTILE}`);
  });

  it('sanitize leaves nothing a terminal acts on; terminalSafeJson parses back to the same value', () => {
    expect(sanitize(`a${HOSTILE}b`)).toBe('agnp.exexb');
    expect(sanitize('x\u2028y')).toBe('x\ny');
    const value = {text: `a${HOSTILE}\u2028b`};
    const json = terminalSafeJson(JSON.stringify(value));
    expect(json).not.toMatch(RAW);
    expect(JSON.parse(json)).toEqual(value);
  });
});
