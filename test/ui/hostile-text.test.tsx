/**
 * The explorer over hostile data: escape sequences in every field never reach the frame, and a
 * step with a 130,000-line or a 200 MB observation opens (a window of it) without crashing.
 */
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {storeData} from '../../source/ui/data/index.js';
import {writeFileSync} from 'node:fs';
import {freshDb, importInto} from '../helpers/db.js';
import {SAMPLES, tempDir} from '../helpers/files.js';
import {KEYS, renderApp} from '../helpers/ui.js';
import {HOSTILE, RAW} from '../helpers/hostile-text.js';

describe('the explorer over hostile text', () => {
  it('list, header, steps, step detail, explanation, patch, info and rankings show no control sequence', async () => {
    const {db} = freshDb();
    const file = join(tempDir(), 'evil.jsonl');
    const lines: unknown[] = [];
    for (const n of [1, 2, 3]) {
      lines.push({
        type: 'trajectory',
        instance: `evil__inst-1${HOSTILE}`,
        agent: `agent${n}${HOSTILE}`,
        model: `model${HOSTILE}`,
      });
      lines.push({
        type: 'step',
        thought: `look${HOSTILE}`,
        tool: `bash${HOSTILE}`,
        action: `cat evil.py ${HOSTILE}`,
        observation: `line one${HOSTILE}`,
      });
      lines.push({type: 'step', thought: 'edit', tool: 'bash', action: `sed -i s/a/b/ evil.py`, observation: HOSTILE});
      lines.push({
        type: 'step',
        thought: 'test',
        tool: 'bash',
        action: 'python -m pytest tests/test_evil.py',
        observation: '1 passed',
      });
      lines.push({
        type: 'end',
        patch: `diff --git a/evil.py b/evil.py\n+${HOSTILE}\n`,
        explanation: `Fixed${HOSTILE}`,
        resolved: true,
      });
    }
    writeFileSync(file, lines.map(l => JSON.stringify(l)).join('\n'));
    importInto(db, [file]);
    const {runLensBuild} = await import('../../source/services/lens.js');
    runLensBuild(db, {});
    const app = renderApp({data: storeData(db, `test${HOSTILE}.db`)});
    const frames: string[] = [await app.ready()];
    frames.push(await app.press(KEYS.enter)); // trajectory: header, intent, lens line, step rows
    frames.push(await app.press(KEYS.enter)); // step detail
    frames.push(await app.press(KEYS.escape));
    frames.push(await app.press('2')); // explanation
    frames.push(await app.press('3')); // patch
    frames.push(await app.press('4')); // info
    frames.push(await app.press(KEYS.escape));
    frames.push(await app.press('R')); // rankings
    for (const frame of frames) expect(frame).not.toMatch(RAW);
    expect(frames[0]).toContain('evil__inst-1');
    expect(frames[2]).toContain('line one');
    expect(frames.at(-1)).toMatch(/agent1/);
    app.unmount();
  });
});

describe('a huge step', () => {
  const stepWith = (observation: string) => {
    const {db} = freshDb();
    importInto(db, [join(SAMPLES, 'mini-swe-agent', 'django__django-11099.traj.json')]);
    db.prepare('UPDATE step SET observation = ? WHERE trajectory = 1 AND idx = 0').run(observation);
    return db;
  };

  it('a 130,000-line observation opens, scrolls to its end and back', async () => {
    const body = Array.from({length: 130_000}, (_, i) => `line ${i + 1} of the observation`).join('\n');
    const db = stepWith(body);
    const app = renderApp({data: storeData(db, 'test.db')});
    await app.ready();
    await app.press(KEYS.enter);
    let frame = await app.press(KEYS.enter);
    expect(frame).toMatch(/Observation · [\d.]+[kM]? chars/);
    expect(frame).toContain('line 1 of the observation');
    frame = await app.press('G');
    expect(frame).toContain('line 130000 of the observation');
    frame = await app.press('g');
    expect(frame).toContain('Thought');
    app.unmount();
  }, 60_000);

  it('a 200 MB observation opens: the first 4 M characters, and a line saying how much is not shown', async () => {
    const db = stepWith(`${'0123456789abcdef '.repeat(1024 * 64)}\n`.repeat(190)); // 190 lines of 1.1 MB: ~204 M characters
    const app = renderApp({data: storeData(db, 'test.db')});
    await app.ready();
    await app.press(KEYS.enter);
    let frame = await app.press(KEYS.enter);
    expect(frame).toMatch(/Observation · 2\d\d\.\dM chars/);
    frame = await app.press('G');
    expect(frame).toMatch(
      /… 2\d\d\.\dM more characters not shown here \(deltalens show trajectory ID --json has all of it\)/,
    );
    app.unmount();
  }, 120_000);
});

describe('a read-only store in the explorer', () => {
  it('lists and opens runs; a stage correction says it was not stored instead of crashing', async () => {
    const {db, path} = freshDb();
    importInto(db, [join(SAMPLES, 'mini-swe-agent', 'django__django-11099.traj.json')]);
    db.close();
    const {default: Database} = await import('better-sqlite3');
    const readonly = new Database(path, {readonly: true, fileMustExist: true});
    const app = renderApp({data: storeData(readonly, 'shared.db')});
    let frame = await app.ready();
    expect(frame).toContain('django__django-11099');
    frame = await app.press(KEYS.enter);
    frame = await app.press('c');
    await app.press('v');
    frame = await app.until('not stored');
    expect(frame).toMatch(/not stored: attempt to write a readonly database/);
    frame = await app.press(KEYS.enter);
    expect(frame).toContain('Thought');
    app.unmount();
    readonly.close();
  });
});
