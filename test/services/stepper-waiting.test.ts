/**
 * The stepper's waiting side: where control flow split, the side that does not move shows where
 * it is — after a callee returned, back in the caller on the line that made the call — never
 * the callee that already returned. The real tracer on a demo project, stored in SQLite.
 */
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {openStepper} from '../../source/services/stepper.js';
import {tracePair} from '../../source/services/tracing.js';
import {freshDb} from '../helpers/db.js';

const PY = process.env.DELTALENS_PYTHON ?? 'python3';

/** A demo project's correct agent patch traced with values everywhere, opened in the stepper. */
async function correctPatchStepper(project: string, test: string) {
  const {db} = freshDb();
  const dir = join(PROJECTS_DIR, project);
  const r = await tracePair(
    db,
    {kind: 'patch', repo: join(dir, 'repo'), patch: join(dir, 'patches', 'agent-correct.diff'), copy: true},
    {
      python: PY,
      pytestPlugins: false,
      sandbox: 'prefer',
      test,
      values: 'all',
    },
  );
  const model = openStepper(db, r.pair);
  if ('error' in model) throw new Error(model.error);
  return model;
}

describe('the stepper side that waits', () => {
  it('waits in the caller at the call line once its callee returned', async () => {
    const model = await correctPatchStepper('durations', 'tests/test_parse.py::test_compound_duration');
    let checked = 0;
    model.rows.forEach((row, i) => {
      for (const which of ['b', 'p'] as const) {
        if (row[which]) continue; // this side moves on this row
        const v = model.view(i, which);
        if (!v.present || !v.waiting) continue;
        // the side's last item ended a frame that has a caller: it waits in that caller
        const last = model.rows
          .slice(0, i)
          .reverse()
          .find(x => x[which])?.[which];
        if (last && (last.kind === 'return' || last.kind === 'exception') && v.stack.length > 0 && last.fn !== v.fn) {
          expect(v.kind).toBe('line');
          expect(v.stack[0]!.fn).toBe(v.fn);
          checked++;
        }
        expect(v.kind === 'return' && v.stack.length > 1).toBe(false);
      }
    });
    expect(checked).toBeGreaterThan(0);
    // and the differences are only named between two sides in the same function
    model.rows.forEach((_, i) => {
      if (model.differing(i).length) expect(model.view(i, 'b').fn).toBe(model.view(i, 'p').fn);
    });
  }, 120_000);

  it('says what a row holds in words that agree with its values: a row that ends a call shows what it returns; a side that waits elsewhere is not compared', async () => {
    const model = await correctPatchStepper('ledger', 'tests/test_account.py::test_small_deposits_keep_every_cent');
    const results = model.rows.map((_, i) => [model.view(i, 'b').result, model.view(i, 'p').result]);
    // to_cents(0.29): 28 before the fix, 29 after
    expect(results.some(([b]) => b === 'returns 28')).toBe(true);
    expect(results.some(([, p]) => p === 'returns 29')).toBe(true);
    model.rows.forEach((row, i) => {
      const data = model.rowData(i);
      if (data.buggy?.waiting || data.patched?.waiting) expect(data.differs).toEqual([]);
      if (data.differs.length) expect(data.what).toMatch(/values differ$/);
      else expect(data.what).not.toMatch(/values differ/);
      if (row.kind === 'match' && row.b?.kind === 'return') expect(data.what).toMatch(/^same end of the call/);
    });
  }, 60_000);
});
