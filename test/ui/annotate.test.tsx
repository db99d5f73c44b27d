import {render} from 'ink-testing-library';
import {describe, expect, it} from 'vitest';
import {parseQueue} from '../../source/core/questions/annotation.js';
import type {QuestionType} from '../../source/core/questions/model.js';
import {blindItem, conflicts, sessionQueue} from '../../source/services/annotation.js';
import {
  deleteAnnotation,
  listAdjudications,
  listAnnotations,
  saveAdjudication,
  saveAnnotation,
  setAdjudicationNote,
  setRationale,
} from '../../source/store/annotations.js';
import type {Db} from '../../source/store/db.js';
import {getQuestion, listAnswers} from '../../source/store/questions.js';
import {AnnotateApp} from '../../source/ui/screens/annotate/screen.js';
import {AdjudicateApp} from '../../source/ui/screens/adjudicate/screen.js';
import {NO_COLOR_THEME} from '../../source/ui/theme.js';
import {questionsDb} from '../helpers/db.js';

function session(db: Db, annotator: string, queue = 'all', seed = 0, type?: QuestionType, agent?: string) {
  const items = sessionQueue(db, {annotator, queue: parseQueue(queue)!, seed, type, agent});
  let clock = 1000;
  const app = render(
    <AnnotateApp
      theme={NO_COLOR_THEME}
      data={{
        annotator,
        label: 'test.db',
        queue: items,
        view: item => blindItem(db, item, annotator),
        save: (item, letters, seconds) =>
          saveAnnotation(db, {question: item.question, explanation: item.explanation, annotator, letters, seconds}),
        setRationale: (id, text) => setRationale(db, id, text),
        remove: id => void deleteAnnotation(db, id),
        now: () => clock,
      }}
    />,
  );
  const frames: string[] = [];
  const frame = () => {
    const f = app.lastFrame() ?? '';
    frames.push(f);
    return f;
  };
  async function press(key: string) {
    const before = app.lastFrame();
    app.stdin.write(key);
    for (let i = 0; i < 200 && app.lastFrame() === before; i += 1) await new Promise(r => setTimeout(r, 5));
    return frame();
  }
  async function ready() {
    for (let i = 0; i < 400 && !app.lastFrame(); i += 1) await new Promise(r => setTimeout(r, 5));
    await new Promise(r => setTimeout(r, 30));
    return frame();
  }
  const advance = (ms: number) => void (clock += ms);
  return {app, items, frames, frame, press, ready, advance};
}

describe('annotate: blind labelling', () => {
  it("shows one item without the key, model answers or anyone else's label (only who else labelled it); a letter saves at once; the rationale follows; u undoes", async () => {
    const {db} = await questionsDb();
    // someone else labelled the first item, with a telling rationale
    const first = sessionQueue(db, {annotator: 'ann', queue: {kind: 'all'}, seed: 0})[0]!;
    const q = getQuestion(db, first.question)!;
    saveAnnotation(db, {
      question: first.question,
      explanation: first.explanation,
      annotator: 'bo',
      letters: [q.choices[1]!.label, ...(q.type === 'e2e_effect' ? ['A'] : [])],
      rationale: 'SECRET-RATIONALE-OF-BO',
    });
    const s = session(db, 'ann');
    let f = await s.ready();
    expect(s.items[0]).toEqual(first);
    expect(f).toContain('annotate · ann');
    expect(f).toMatch(/item 1 of \d+/);
    expect(f).toContain('Explanation');
    expect(f).toContain(first.question);
    // blind: no key marker, no other label, no model — only that bo labelled it too
    const answers = listAnswers(db).filter(a => a.question === first.question && a.explanation === first.explanation);
    expect(answers.length).toBeGreaterThan(0);
    expect(f).toContain('Also labelled by bo (their answers are not shown)');
    for (const frame of s.frames) {
      expect(frame).not.toContain('SECRET-RATIONALE-OF-BO');
      expect(frame.split('\n').filter(line => /\bbo\b/.test(line))).toEqual(
        frame.includes('Also labelled by') ? ['Also labelled by bo (their answers are not shown)'] : [],
      );
      expect(frame).not.toMatch(/lexical|correct|key/i);
    }
    // answer: one letter (two for end-to-end effect)
    const letters = q.type === 'e2e_effect' ? ['B', 'A'] : ['B'];
    s.advance(12_500); // the person reads for 12.5 s
    for (const l of letters) f = await s.press(l.toLowerCase());
    expect(f).toContain(`saved ${letters.join(' → ')}. Rationale`);
    let mine = listAnnotations(db, {annotator: 'ann'});
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      question: first.question,
      explanation: first.explanation,
      letters,
      rationale: null,
      seconds: 12.5,
    });
    for (const c of 'the explanation names 5400') await s.press(c);
    f = await s.press('\r');
    expect(listAnnotations(db, {annotator: 'ann'})[0]!.rationale).toBe('the explanation names 5400');
    expect(f).toMatch(/item 2 of \d+ · 1 labelled/);
    // the second item: a label without rationale (Esc), then undo it
    const second = s.items[1]!;
    const two = getQuestion(db, second.question)!.type === 'e2e_effect';
    await s.press('A');
    if (two) await s.press('A');
    f = await s.press('\x1b');
    expect(listAnnotations(db, {annotator: 'ann'})).toHaveLength(2);
    f = await s.press('u');
    expect(f).toContain('undone');
    expect(f).toMatch(/item 2 of/);
    mine = listAnnotations(db, {annotator: 'ann'});
    expect(mine.map(m => m.question)).toEqual([first.question]);
    // the frames before each label was saved never showed the key or a model answer
    for (const frame of s.frames) expect(frame).not.toMatch(/lexical|Answer key/);
    s.app.unmount();
  });

  it('a local question keeps its line on screen while the reading scrolls; g goes back to the top; an empty queue says so', async () => {
    const {db} = await questionsDb();
    const s = session(db, 'ann', 'all', 0, 'local_intent');
    let f = await s.ready();
    expect(s.items.length).toBeGreaterThan(0);
    expect(f).toContain('line: ');
    expect(f).toContain('Explanation (');
    for (let i = 0; i < 4; i++) f = await s.press('\x1b[6~'); // PgDn past the explanation and the context
    expect(f).toContain('line: ');
    expect(f).not.toContain('Explanation (');
    f = await s.press('g');
    expect(f).toContain('Explanation (');
    s.app.unmount();
    const none = session(db, 'ann', 'all', 0, undefined, 'no-such-agent');
    f = await none.ready();
    expect(none.items).toEqual([]);
    expect(f).toContain('No items in this queue');
    expect(f).not.toContain('All 0 items');
    none.app.unmount();
  });

  it('end-to-end effect takes two letters, before then after', async () => {
    const {db} = await questionsDb();
    const s = session(db, 'ann', 'all', 0, 'e2e_effect');
    let f = await s.ready();
    expect(f).toContain('Letter for BEFORE the patch');
    f = await s.press('c');
    expect(f).toContain('BEFORE the patch: C · now AFTER');
    expect(listAnnotations(db)).toHaveLength(0);
    f = await s.press('d');
    expect(listAnnotations(db)[0]!.letters).toEqual(['C', 'D']);
    expect(f).toContain('saved C → D');
    // a key that is not a choice says so and saves nothing
    await s.press('\x1b');
    f = await s.press('z');
    expect(f).toContain('"z" is not a choice here');
    s.app.unmount();
  });

  it('a queue is the same for two people with the same seed, and leaves out what you labelled', async () => {
    const {db} = await questionsDb();
    const a = sessionQueue(db, {annotator: 'ann', queue: {kind: 'sample', n: 6}, seed: 11});
    const b = sessionQueue(db, {annotator: 'bo', queue: {kind: 'sample', n: 6}, seed: 11});
    expect(a).toEqual(b);
    expect(new Set(a.map(i => i.type)).size).toBeGreaterThan(1);
    const q = getQuestion(db, a[0]!.question)!;
    saveAnnotation(db, {
      question: a[0]!.question,
      explanation: a[0]!.explanation,
      annotator: 'ann',
      letters: q.type === 'e2e_effect' ? ['A', 'A'] : ['A'],
    });
    expect(sessionQueue(db, {annotator: 'ann', queue: {kind: 'sample', n: 6}, seed: 11})).toEqual(a.slice(1));
  });
});

describe('adjudicate', () => {
  it('shows every label with its rationale and the model answers, hides the key until v, stores the final answer and the note', async () => {
    const {db} = await questionsDb();
    const item = sessionQueue(db, {annotator: 'x', queue: {kind: 'all'}, seed: 0, type: undefined}).find(
      i => getQuestion(db, i.question)!.type === 'e2e_intent',
    )!;
    saveAnnotation(db, {...item, annotator: 'ann', letters: ['A'], rationale: 'it says 5400'});
    saveAnnotation(db, {...item, annotator: 'bo', letters: ['B'], rationale: 'it says 1800'});
    const items = conflicts(db);
    expect(items.map(c => c.item)).toEqual([item]);
    const app = render(
      <AdjudicateApp
        theme={NO_COLOR_THEME}
        data={{
          adjudicator: 'cy',
          label: 'test.db',
          items,
          view: i => blindItem(db, i),
          save: (i, letters) =>
            saveAdjudication(db, {question: i.question, explanation: i.explanation, adjudicator: 'cy', letters}),
          setNote: (i, note) => setAdjudicationNote(db, i.question, i.explanation, note),
        }}
      />,
    );
    const wait = async (key?: string) => {
      const before = app.lastFrame();
      if (key) app.stdin.write(key);
      for (let i = 0; i < 200 && (key ? app.lastFrame() === before : !app.lastFrame()); i += 1)
        await new Promise(r => setTimeout(r, 5));
      return app.lastFrame() ?? '';
    };
    await wait();
    await new Promise(r => setTimeout(r, 30));
    let f = app.lastFrame() ?? '';
    const all = f;
    expect(all).toContain('it says 5400');
    expect(all).toContain('it says 1800');
    expect(all).toMatch(/lexical\s+majority/);
    expect(all).toContain('Answer key hidden (v shows it)');
    f = await wait('v');
    expect(f).toContain('Answer key: A');
    f = await wait('a');
    expect(listAdjudications(db)).toEqual([
      expect.objectContaining({
        question: item.question,
        explanation: item.explanation,
        adjudicator: 'cy',
        letters: ['A'],
        note: null,
      }),
    ]);
    for (const c of 'both read it; A') await wait(c);
    f = await wait('\r');
    expect(listAdjudications(db)[0]!.note).toBe('both read it; A');
    expect(f).toContain('No more conflicting items (1 decided');
    expect(conflicts(db)).toEqual([]);
    app.unmount();
  });
});
