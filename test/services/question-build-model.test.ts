import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {openAiModel} from '../../source/services/qa-models.js';
import {buildQuestions} from '../../source/services/questions/build.js';
import type {BuildResult} from '../../source/services/questions/options.js';
import {freshDb} from '../helpers/db.js';
import {startOpenAiServer} from '../helpers/openai-server.js';
import {fieldsOf} from '../helpers/questions.js';

const P = join(PROJECTS_DIR, 'durations');

/** A local server plays the generating model: scripted candidates, some of them unusable. */
let server: Awaited<ReturnType<typeof startOpenAiServer>>;
let built: BuildResult;
beforeAll(async () => {
  server = await startOpenAiServer(call => {
    // the first call fails: the builder asks again
    if (call.index === 0) return {status: 500};
    if (call.prompt.includes('[[MASKED]]'))
      return {answer: '1. 1800\n- 5400.0\n`3600`\n5400 +\nnot python at all\n2 * 2700\nHere they are:'};
    if (call.prompt.includes('Before the patch:'))
      return {answer: 'line 11, TypeError\nline 99, KeyError\n- 11: ValueError\nthe test explodes'};
    return {answer: 'total\ntotal * 2\nlen(seen)\n)(\namount'};
  });
  const generator = openAiModel({model: 'gen-model', baseURL: server.url, apiKey: 'test-key', maxRetries: 0});
  built = await buildQuestions(freshDb().db, {
    instance: 'demo__durations-1',
    buggyDir: join(P, 'repo'),
    goldPatch: join(P, 'patches', 'gold.diff'),
    agentPatches: [{name: 'wrong', file: join(P, 'patches', 'agent-wrong.diff')}],
    test: 'tests/test_parse.py::test_compound_duration',
    python: process.env.DELTALENS_PYTHON ?? 'python3',
    sandbox: 'prefer',
    seed: 0,
    timeoutS: 60,
    types: ['e2e_intent', 'e2e_effect', 'local_intent'],
    generator,
  });
}, 180_000);
afterAll(() => server.close());

describe('questions build with a generating model (a local OpenAI-compatible server)', () => {
  it('e2e intent: lines that are not Python are dropped and said so; candidates that are also correct are dropped by running the test', () => {
    const b = built.questions.find(q => q.question.type === 'e2e_intent')!;
    expect(b.provenance.generator).toBe('model gen-model');
    const candidates = fieldsOf(b.provenance).candidates as {text: string; kept: boolean; reason: string}[];
    const byText = (t: string) => candidates.find(c => c.text === t)!;
    expect(byText('5400 +').reason).toContain('not a Python expression');
    expect(byText('not python at all').reason).toContain('not a Python expression');
    // equal in value to the key: the test fails before and passes after with them
    expect(byText('5400.0')).toMatchObject({kept: false, reason: expect.stringContaining('also a correct answer')});
    expect(byText('2 * 2700')).toMatchObject({kept: false, reason: expect.stringContaining('also a correct answer')});
    const distractors = b.question.choices
      .filter(c => c.role === 'distractor')
      .map(c => c.text)
      .sort();
    expect(distractors).toEqual(['1800', '3600']);
    // every prompt and answer is kept, the failed call too
    const calls = (fieldsOf(b.provenance).model as {calls: {attempt: number; raw: string | null; error?: string}[]})
      .calls;
    expect(calls[0]).toMatchObject({attempt: 1, raw: null});
    expect(calls[0]!.error).toBeTruthy();
    expect(calls[1]).toMatchObject({attempt: 2, raw: expect.stringContaining('5400 +')});
  });

  it("local intent: the model's expressions are evaluated like the offline ones; the invalid one is dropped", () => {
    const b = built.questions.find(q => q.question.type === 'local_intent')!;
    const candidates = fieldsOf(b.provenance).candidates as {
      text: string;
      how: string;
      changed: boolean;
      buggy: {value?: unknown};
      patched: {value?: unknown};
    }[];
    expect(candidates.find(c => c.text === 'total * 2')).toMatchObject({
      how: 'written by gen-model',
      changed: true,
      buggy: {value: 3600},
      patched: {value: 10800},
    });
    expect((fieldsOf(b.provenance).unusable as {text: string}[]).map(u => u.text)).toEqual([')(']);
    expect(server.calls.length).toBe(4);
  });

  it("e2e effect: the model's failures must name a line of the test function and an exception; the rest is dropped and said so", () => {
    const b = built.questions.find(q => q.question.type === 'e2e_effect')!;
    const texts = b.question.choices.map(c => c.text);
    expect(texts).toContain('The test failed at line 11 with exception: TypeError.');
    expect(texts).toContain('The test failed at line 11 with exception: ValueError.');
    expect(texts).toContain('The test passed.');
    const dropped = (fieldsOf(b.provenance).candidates as {text: string; reason?: string}[]).filter(c => c.reason);
    expect(dropped.map(d => [d.text, d.reason])).toEqual([
      ['line 99, KeyError', 'dropped: line 99 is not in the test function (lines 10–11)'],
      ['the test explodes', 'dropped: not "line N, ExceptionName"'],
    ]);
  });
});

describe('questions build --generate-pbt (the model writes the bug-reproducing test)', () => {
  it('each attempt is run on both versions and kept only if it fails before and passes after; the reason of a failed one goes into the next prompt', async () => {
    const good =
      'from hypothesis import given, settings, strategies as st\nfrom durations import parse_duration\n\n@settings(max_examples=10, deadline=None)\n@given(h=st.integers(1, 9), m=st.integers(1, 59))\ndef test_hm(h, m):\n    assert parse_duration(f"{h}h{m}m") == h * 3600 + m * 60\n';
    const passesBefore =
      'from durations import parse_duration\n\ndef test_seconds():\n    assert parse_duration("90s") == 90\n';
    const replies = [
      'I would test the parser.',
      `\`\`\`python\n${passesBefore}\`\`\``,
      `Here:\n\`\`\`python\n${good}\`\`\``,
    ];
    const gen = await startOpenAiServer(call => ({
      answer: call.prompt.includes('[[MASKED]]') ? '1800\n3600' : (replies[call.index] ?? 'nothing'),
    }));
    try {
      const r = await buildQuestions(freshDb().db, {
        instance: 'demo__durations-1',
        buggyDir: join(P, 'repo'),
        goldPatch: join(P, 'patches', 'gold.diff'),
        agentPatches: [],
        test: '',
        issue: "parse_duration('1h30m') returns 1800.0 instead of 5400",
        generatePbt: 3,
        python: process.env.DELTALENS_PYTHON ?? 'python3',
        sandbox: 'prefer',
        seed: 0,
        timeoutS: 60,
        types: ['e2e_intent'],
        generator: openAiModel({model: 'gen-model', baseURL: gen.url, apiKey: 'k', maxRetries: 0}),
      });
      expect(r.excluded).toEqual([]);
      const q = r.questions[0]!;
      expect(q.provenance.test).toBe('test_deltalens_pbt.py::test_hm');
      expect(q.question.choices.find(c => c.role === 'correct')!.text).toBe('h * 3600 + m * 60');
      const attempts = q.provenance.pbt_generation as {attempt: number; reason: string; prompt: string}[];
      expect(attempts.map(a => a.reason)).toEqual([
        'no test_… function in the answer',
        'it passes on the buggy version: it does not reproduce the bug',
        'used',
      ]);
      expect(attempts[0]!.prompt).toContain('returns 1800.0 instead of 5400');
      expect(attempts[0]!.prompt).toContain('+        total += amount * UNIT_SECONDS[unit]');
      expect(attempts[2]!.prompt).toContain('Your previous test was not usable: it passes on the buggy version');
    } finally {
      await gen.close();
    }
  }, 180_000);
});
