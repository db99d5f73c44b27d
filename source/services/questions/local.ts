/**
 * Local intent (the fix's delta point) and local effect (each agent patch's), ExplainBench §5.3:
 * the pair traced (or one traced before from the same change used as it is), candidate
 * expressions evaluated by the tracer at the delta point on both versions — the first point near
 * it where some change and some keep their value is the question's — the key by Eq. 2, the
 * distractors by MMR. A patch with no effect on complete traces gets "the patch has no effect"
 * as its key, asked at the fix's delta point.
 */
import {readFileSync} from 'node:fs';
import {localCandidates, shown} from '../../core/questions/candidates.js';
import {labelled, labelledEffect} from '../../core/questions/choices.js';
import {localPrompt} from '../../core/questions/generator-prompts.js';
import type {Question} from '../../core/questions/model.js';
import type {ChoiceValidation, LocalProvenance, NoEffectProvenance, RunPoint} from '../../core/questions/provenance.js';
import {seedOf} from '../../core/questions/prompt.js';
import {mmr, MMR_LAMBDA, pickCorrect, seededOrder} from '../../core/questions/select.js';
import {functionSource, ordinal, parametersOf, testFileOf} from '../../core/questions/test-source.js';
import type {Db} from '../../store/db.js';
import {getQuestion} from '../../store/questions.js';
import {getPair, getTrace, latestDelta, tracedPairFor} from '../../store/traces.js';
import type {PythonRunner} from '../python.js';
import {deltaPointOf, type DeltaPoint} from '../stepper.js';
import {changesBetween, tracePair, type HypothesisPlan} from '../tracing.js';
import {prepareWorkspace, type Workspace} from '../workspace.js';
import {codePointDistance} from './distance.js';
import {findQuestionPoint, type Candidate} from './local-point.js';
import {DISTRACTORS, type BuildOptions} from './options.js';
import type {Step} from './runs.js';
import type {BuildSession} from './session.js';
import {writeFixedTestFile} from './test-files.js';
import {patchedSpec} from './trees.js';
import {questionInputs, type Validated} from './validate.js';

/** Both local types: the intent question first (an agent patch with no effect is asked at its point), then one effect question per agent patch. */
export async function buildLocal(s: BuildSession, v: Validated): Promise<void> {
  const local = new LocalBuilder(s, v);
  const intent = await local.intent(v.ws);
  s.partDone();
  if (!s.wants('local_effect')) return;
  for (const agent of v.o.agentPatches) {
    await local.effect(v.ws, agent, intent);
    s.partDone();
  }
}

interface IntentResult {
  context: Record<string, unknown>;
  expressions: string[];
}

class LocalBuilder {
  private readonly db: Db;
  private readonly o: BuildOptions;
  private readonly step: Step;
  private readonly runner: PythonRunner;
  /** a property-based test's plan: the pair is traced and expressions evaluated on its example(s) */
  private readonly hypothesis: HypothesisPlan | undefined;

  constructor(
    readonly s: BuildSession,
    readonly v: Validated,
  ) {
    this.db = s.db;
    this.o = v.o;
    this.step = v.step;
    this.runner = v.runner;
    this.hypothesis = v.hypothesis ?? undefined;
  }

  /**
   * The pair's delta point: a pair already traced from the same change (the same instance, test,
   * diff and seed, with a complete delta) is used as it is — the demo's own pairs, or a `trace`
   * run before; otherwise the pair is traced and stored, as `trace` does.
   */
  private async delta(buggyTree: string, patchedTree: string, label: string, kind: 'gold' | 'agent') {
    const {diff} = await changesBetween(this.runner, buggyTree, patchedTree);
    const seed = this.o.seed;
    const known =
      seed === null ? null : tracedPairFor(this.db, {instance: this.o.instance, test: this.o.test, patch: diff, seed});
    if (known !== null) {
      this.s.progress(
        kind === 'gold' ? 'local_intent' : 'local_effect',
        `using traced pair #${known} (the same change, test and seed)`,
      );
      const delta = latestDelta(this.db, known)!;
      return {r: {pair: known, delta}, opened: bothTraces(this.db, known)};
    }
    const r = await tracePair(
      this.db,
      {kind: 'dirs', buggyDir: buggyTree, patchedDir: patchedTree},
      {
        python: this.o.python,
        test: this.o.test,
        instance: this.o.instance,
        label,
        versionKind: kind,
        ...(this.hypothesis ? {hypothesis: this.hypothesis} : {}),
        sandbox: this.o.sandbox,
        seed: this.o.seed,
        passEnv: this.o.passEnv,
        pytestPlugins: false,
        limits: {timeoutS: this.o.timeoutS},
        onProgress: m => this.s.progress(kind === 'gold' ? 'local_intent' : 'local_effect', m),
      },
    );
    return {r, opened: bothTraces(this.db, r.pair)};
  }

  /** Builds the question at a found delta; returns the context and expressions, or a reason. */
  private async atDelta(
    stage: 'local_intent' | 'local_effect',
    id: string,
    inputs: string,
    buggyTree: string,
    patchedTree: string,
    pair: number,
    extra: Pick<LocalProvenance, 'pair' | 'delta' | 'agent' | 'patch' | 'patch_text'>,
    agent?: string,
  ): Promise<IntentResult | null> {
    // read from the stored traces: the two delta points, without aligning the whole pair
    const pb = deltaPointOf(this.db, pair, 'b');
    const pp = deltaPointOf(this.db, pair, 'p');
    const d = latestDelta(this.db, pair)!;
    if (!pb || !pp) {
      this.s.exclude(
        stage,
        `the delta point (${d.function} line ${d.line}) is not reached on ${pb ? 'the patched' : 'the buggy'} side: no expression can be evaluated on both`,
        agent,
      );
      return null;
    }
    const candidates: Candidate[] = localCandidates([pb.locals, pp.locals, pb.inputs]);
    // the frames return differently (an outcome delta): the call itself is a candidate — its
    // value is what the frame returns, read after its last line as __return__
    const params = parametersOf(pb.source?.[(pb.defLine ?? 0) - 1] ?? '') ?? (pb.inputs ? [...pb.inputs.keys()] : null);
    if (d.kind === 'outcome' && params) {
      const call = `${(d.function ?? pb.fn).replace(/^.*<locals>\./, '')}(${params.filter(k => k !== 'self' && k !== 'cls').join(', ')})`;
      candidates.unshift({
        text: call,
        how: 'the value the function returns (evaluated as __return__ after its last line)',
        expr: '__return__',
      });
    }
    let unusable: {text: string; reason: string}[] = [];
    if (this.o.generator) {
      this.s.progress(stage, `asking ${this.o.generator.name} for candidate expressions`);
      const asked = await this.step.candidatesFromModel(stage, localPrompt(pb, pp, d), buggyTree);
      unusable = asked.dropped;
      for (const c of asked.ok) if (!candidates.some(x => x.text === c.text)) candidates.push(c);
    }
    const {found, attempts} = await findQuestionPoint(
      {
        runner: this.runner,
        o: this.o,
        hypothesis: this.hypothesis,
        step: this.step,
        progress: m => this.s.progress(stage, m),
      },
      {buggy: buggyTree, patched: patchedTree},
      pb,
      pp,
      d,
      candidates,
    );
    if (!found && !attempts.length) {
      this.s.exclude(
        stage,
        `no candidate expression at ${d.file}:${d.line}: nothing recorded in scope there and no part of the line to evaluate`,
        agent,
      );
      return null;
    }
    if (!found) {
      this.s.exclude(
        stage,
        `no point near the delta (${d.function} line ${d.line}) where some candidates change and others keep their value: ${attempts.map(a => `${a.timing === 'return' ? 'at the return of the call of' : a.timing} execution ${a.hit.buggy}: ${a.note ?? `${a.changed} of ${a.candidates} changed`}`).join('; ')}`,
        agent,
      );
      return null;
    }
    const {evaluated} = found;
    const point = found.at.b;
    const changedOnes = evaluated.filter(x => x.changed);
    const same = evaluated.filter(x => x.usable && !x.changed);
    const correct = pickCorrect(
      changedOnes.map(x => x.text),
      same.map(x => x.text),
      codePointDistance,
    )!;
    const key = changedOnes[correct.index]!;
    const pick = mmr(
      key.text,
      same.map(x => x.text),
      DISTRACTORS,
      codePointDistance,
    );
    const distractors = pick.picked.map(i => same[i]!);
    const source = pb.source ?? [];
    const context = {
      function: pb.defLine ? functionSource(source, pb.defLine) : `(source of ${pb.fn} not recorded)`,
      inputs: pb.inputs ? `{${[...pb.inputs].map(([k, v]) => `'${k}': ${shown(v)}`).join(', ')}}` : '(not recorded)',
      // at the end of the call: ExplainBench's words for it, and whether the call raised
      ...(point.timing === 'return'
        ? {
            line: evaluated.some(x => x.expr === '__return__' && (x.buggy.error || x.patched.error))
              ? 'The end of the provided function: its return statement, or the exception it raises'
              : 'The return statement in the provided function',
            timing: 'after',
            call: `the call in which ${(source[pb.line - 1] ?? '').trim()} (line ${pb.line}) runs${point.hit > 1 ? ` the ${ordinal(point.hit)} time` : ''}`,
          }
        : {
            line: `${(source[pb.line - 1] ?? '').trim()} (line ${pb.line})`,
            timing: point.timing,
            ...(point.hit > 1 ? {execution: `the ${ordinal(point.hit)} time the line runs`} : {}),
          }),
    };
    const options = seededOrder(
      [
        {text: key.text, role: 'correct' as const},
        ...distractors.map(x => ({text: x.text, role: 'distractor' as const})),
      ],
      seedOf(this.v.seed, id),
    );
    const choices = stage === 'local_effect' ? labelledEffect(options) : labelled(options);
    const q: Question = {
      id,
      instance: this.o.instance,
      type: stage,
      trajectory: null,
      agent: agent ?? null,
      context,
      question:
        stage === 'local_intent'
          ? 'Within the context of the provided function and inputs, at the specified timing point relative to the specified line, which expression best describes the developer-intended change?'
          : "Within the context of the provided function and inputs, at the specified timing point relative to the specified line, which expression's value does the patch change?",
      choices,
      answer: [choices.find(c => c.role === 'correct')!.label],
    };
    const validations: Record<string, ChoiceValidation> = {};
    for (const c of choices) {
      const e = c.role === 'correct' || c.role === 'distractor' ? evaluated.find(x => x.text === c.text) : undefined;
      if (e) validations[c.label] = e;
    }
    const none = choices.find(c => c.role === 'no_effect');
    if (none)
      validations[none.label] = {wrong_because: `the traces differ: ${d.kind} delta in ${d.function} line ${d.line}`};
    this.s.save(
      q,
      {
        ...this.v.base,
        inputs,
        ...extra,
        delta_point: {buggy: runPoint(pb), patched: runPoint(pp)},
        evaluated_at: {buggy: runPoint(found.at.b), patched: runPoint(found.at.p)},
        attempts,
        ...(unusable.length ? {unusable} : {}),
        ...(this.o.generator
          ? {model: {name: this.o.generator.name, calls: this.step.log.filter(l => l.stage === stage)}}
          : {}),
        changed_means:
          'a different value, an exception on one side only, or a different exception type or message; unchanged: the same value on both sides (the same exception on both: not evaluable there, left out)',
        candidates: evaluated,
        selection: {
          correct: {
            method: 'Eq. 2: mean normalized Levenshtein similarity to the unchanged candidates',
            scores: Object.fromEntries(changedOnes.map((x, i) => [x.text, correct.scores[i]!])),
          },
          distractors: {method: 'MMR', lambda: MMR_LAMBDA, picked: distractors.map(x => x.text), scores: pick.scores},
        },
      } satisfies LocalProvenance,
      validations,
    );
    return {context, expressions: [key.text, ...distractors.map(x => x.text)]};
  }

  async intent(ws: Workspace): Promise<IntentResult | null> {
    const id = `${this.o.instance}/built/local_intent`;
    const inputs = questionInputs(this.v, 'local_intent', this.v.fix);
    this.s.progress('local_intent', 'tracing the buggy and fixed versions for the delta point');
    const {r, opened} = await this.delta(ws.buggy, ws.patched, 'gold (questions build)', 'gold');
    if (!opened) {
      this.s.exclude('local_intent', 'the traced pair cannot be opened');
      return null;
    }
    if (r.delta.status === 'incomplete') {
      this.s.exclude('local_intent', `the traces are incomplete: ${r.delta.reason ?? ''}`);
      return null;
    }
    if (r.delta.status === 'none') {
      this.s.exclude(
        'local_intent',
        `the fix has no effect on this test's path (delta ∅ on complete traces: ${r.delta.reason ?? ''})`,
      );
      return null;
    }
    if (this.s.unchanged('local_intent', id, inputs)) {
      const q = getQuestion(this.db, id)!;
      return {
        context: q.context,
        expressions: q.choices.filter(c => c.role === 'correct' || c.role === 'distractor').map(c => c.text),
      };
    }
    return this.atDelta('local_intent', id, inputs, ws.buggy, ws.patched, r.pair, {pair: r.pair, delta: r.delta.id});
  }

  async effect(ws: Workspace, agent: {name: string; file: string}, intent: IntentResult | null): Promise<void> {
    const id = `${this.o.instance}/built/local_effect/${agent.name}`;
    const patchText = readFileSync(agent.file, 'utf8');
    const inputs = questionInputs(this.v, 'local_effect', patchText);
    if (this.s.unchanged('local_effect', id, inputs)) return;
    let aw: Workspace;
    try {
      aw = await prepareWorkspace(patchedSpec(this.o, agent.file), this.runner);
    } catch (error) {
      this.s.exclude('local_effect', (error as Error).message, agent.name);
      return;
    }
    try {
      writeFixedTestFile(aw.patched, this.v.testText, testFileOf(this.o.test));
      this.s.progress('local_effect', `tracing the buggy version and ${agent.name}'s patch`);
      const {r, opened} = await this.delta(ws.buggy, aw.patched, `${agent.name} (questions build)`, 'agent');
      if (!opened || r.delta.status === 'incomplete') {
        // never "no effect" on incomplete traces
        this.s.exclude(
          'local_effect',
          `the traces are incomplete: ${r.delta.reason ?? 'the pair cannot be opened'}`,
          agent.name,
        );
        return;
      }
      if (r.delta.status === 'found') {
        await this.atDelta(
          'local_effect',
          id,
          inputs,
          ws.buggy,
          aw.patched,
          r.pair,
          {pair: r.pair, delta: r.delta.id, agent: agent.name, patch: agent.file, patch_text: patchText},
          agent.name,
        );
        return;
      }
      // ∅ on complete traces: "the patch has no effect" is the key, at the place the fix changes
      if (!intent) {
        this.s.exclude(
          'local_effect',
          "the patch has no effect on the test, but there is no local intent question to ask it at (the fix's delta point)",
          agent.name,
        );
        return;
      }
      const options = seededOrder(
        intent.expressions.slice(0, DISTRACTORS + 1).map(text => ({text, role: 'distractor' as const})),
        seedOf(this.v.seed, id),
      );
      const choices = labelledEffect(options);
      const q: Question = {
        id,
        instance: this.o.instance,
        type: 'local_effect',
        trajectory: null,
        agent: agent.name,
        context: intent.context,
        question:
          "Within the context of the provided function and inputs, at the specified timing point relative to the specified line, which expression's value does the patch change?",
        choices,
        answer: [choices.find(c => c.role === 'no_effect')!.label],
      };
      const evidence = {
        delta: 'none' as const,
        reason: r.delta.reason ?? 'no behavioural difference on complete traces',
        steps_compared: r.delta.stepsCompared,
        frames_entered: r.delta.framesEntered,
      };
      const validations = Object.fromEntries(
        choices
          .filter(c => c.role !== 'insufficient')
          .map(c => [
            c.label,
            c.role === 'no_effect'
              ? evidence
              : {
                  wrong_because: 'the patch changes nothing the test runs, so no expression changes',
                  from: 'the local intent question of this instance',
                },
          ]),
      );
      this.s.save(
        q,
        {
          ...this.v.base,
          inputs,
          pair: r.pair,
          delta: r.delta.id,
          agent: agent.name,
          patch: agent.file,
          patch_text: patchText,
          no_effect: evidence,
        } satisfies NoEffectProvenance,
        validations,
      );
    } finally {
      aw.cleanup();
    }
  }
}

/** A point as the provenance keeps it: where, which execution, when — not the values. */
function runPoint(p: Omit<DeltaPoint, 'timing'> & {timing: string}): RunPoint {
  return {file: p.file, line: p.line, hit: p.hit, timing: p.timing, fn: p.fn, defLine: p.defLine};
}

/** Whether a pair has both its traces (a pair without one cannot give a delta point). */
function bothTraces(db: Db, pair: number): boolean {
  const p = getPair(db, pair);
  return Boolean(p?.buggyTrace && p.patchedTrace && getTrace(db, p.buggyTrace) && getTrace(db, p.patchedTrace));
}
