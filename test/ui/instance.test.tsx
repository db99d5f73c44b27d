/**
 * The instance screen over a real store: a SWE-bench record imported from its real row, a
 * prediction as a run, and a traced pair; opened from a run with I and with --instance, its
 * keys cross to the instance's runs and traced pairs.
 */
import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {resolveLink} from '../../source/commands/explore.js';
import {importInstances} from '../../source/services/instances.js';
import {noteExclusion} from '../../source/store/questions.js';
import {storeData} from '../../source/ui/data/index.js';
import {instanceLines} from '../../source/ui/screens/instance/lines.js';
import {linkStack} from '../../source/ui/state.js';
import {freshDb} from '../helpers/db.js';
import {SHARED, tempDir} from '../helpers/files.js';
import {KEYS, renderApp} from '../helpers/ui.js';

describe('the instance screen', () => {
  it('shows the record, its tests and runs; T and t cross to its runs and pairs; I opens it from a run', async () => {
    const {db} = freshDb();
    const dir = tempDir();
    writeFileSync(
      join(dir, 'row.json'),
      readFileSync(join(SHARED, 'swe-bench-instances', 'django__django-11099.json'), 'utf8'),
    );
    writeFileSync(
      join(dir, 'preds.jsonl'),
      `${JSON.stringify({instance_id: 'django__django-11099', model_name_or_path: 'agent-x', model_patch: 'diff --git a/x b/x\n'})}\n`,
    );
    importInstances(db, join(dir, 'row.json'));
    importInstances(db, join(dir, 'preds.jsonl'));
    noteExclusion(db, {
      instance: 'django__django-11099',
      stage: 'local_intent',
      reason:
        'no point near the delta (UsernameValidator line 12) where some candidates change and others keep their value',
    });
    const link = resolveLink(db, {instance: 'django__django-11099'})!;
    const app = renderApp({data: storeData(db, 'test.db'), initial: {stack: linkStack(link)}});
    let frame = await app.ready();
    expect(frame).toContain('Instance · django__django-11099');
    expect(frame).toContain('1 runs · 0 traced pairs · 0 questions');
    expect(frame).toContain('django/django at d26b2424437dabeeca94d7900b37d2df4410da0c');
    expect(frame).toContain('· test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests)');
    // what questions build did not build, and why
    const all = storeData(db, 'test.db').instances.instance('django__django-11099')!;
    expect(all.exclusions.map(e => [e.stage, e.agent])).toEqual([['local_intent', null]]);
    const text = instanceLines(all, 100)
      .map(l => l.text)
      .join('\n');
    expect(text).toContain('Not built (1) — the latest questions build said why');
    expect(text).toMatch(
      /local_intent, \d{4}-\d\d-\d\d \d\d:\d\d: no point near the delta \(UsernameValidator line 12\)/,
    );
    frame = await app.press('t');
    expect(frame).toContain('no traced pairs of django__django-11099');
    frame = await app.press('T');
    expect(frame).toMatch(/agent-x/);
    // from the run back to its instance with I
    frame = await app.press(KEYS.enter);
    expect(frame).toMatch(/#\d+ django__django-11099 · agent-x/);
    frame = await app.press('I');
    expect(frame).toContain('Instance · django__django-11099');
    app.unmount();
    expect(() => resolveLink(db, {instance: 'nope__nope-1'})).toThrow('no instance nope__nope-1');
  });
});
