import {existsSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import {basename, join, resolve} from 'node:path';
import {QUESTION_TYPES, type QuestionType} from '../core/questions/model.js';
import {forget, makeTempDir} from '../services/leftovers.js';
import {PythonError, pythonRunner} from '../services/python.js';
import {instanceBaseTree, InstanceTraceError, pytestIdOf} from '../services/instance-trace.js';
import {buildQuestions} from '../services/questions/build.js';
import type {BuildOptions, BuildResult, FixGiven} from '../services/questions/options.js';
import {qualityChecks, type QualityReport} from '../services/questions/quality.js';
import {qaModelFrom, QaModelChoiceError, type QaModel} from '../services/qa-models.js';
import {SandboxMissing} from '../services/sandbox.js';
import {WorkspaceError} from '../services/workspace.js';
import type {Db} from '../store/db.js';
import {getTrajectory, listTrajectories} from '../store/trajectories.js';
import {COMMON_OPTIONS, SANDBOX_OPTIONS, EXIT, parse, positiveInt, printJson, UsageError} from './args.js';
import {passEnvOption} from './pass-env.js';
import {openStore} from './db-path.js';
import {say, warn} from './output.js';

const QUESTIONS_BUILD_HELP = `Usage: deltalens questions build --instance ID --repo CLONE [--test NAME] [options]
       deltalens questions build --instance ID
                                 (--buggy-dir DIR | --repo DIR --buggy REV)
                                 (--fixed-dir DIR | --fixed REV | --gold-patch FILE)
                                 (--test NODEID | --pbt FILE | --generate-pbt [--issue FILE])
                                 [--agent-patch NAME=FILE]... [--stored-patches]
                                 [--type T]... [--offline | --model NAME [--base-url URL]]
                                 [--seed N] [--force] [--json] [--db FILE]
       deltalens questions build --all DIR [same options]

Builds validated questions for a bug (ExplainBench §5.2), every decision made by running code in
the sandbox on throw-away copies:
  1. the test (a pytest node id on the fixed tree; copied into the buggy tree if the fix added
     it) must fail on the buggy version and pass on the fixed one, twice each; otherwise the
     instance is excluded with the reason (flaky, passes before, fails after, does not run);
  2. e2e_intent: the expected expression of the test — the one on a line marked
     "# [[EXPECTED]]", else the expected side of the last asserted equality (a membership
     or ordering whole; if COND: raise AssertionError as an assert), else the exception it
     expects (pytest.raises(E), assertRaises(E), except E:), else the same in a helper of the
     file the test calls — is masked;
     offline distractors are AST mutations of it (operators, constants, comparisons, negation,
     swapped operands, neighbouring names); each is substituted and the test run on both
     versions: a candidate that makes it fail-before-and-pass-after is also correct and is
     dropped; three are chosen by MMR (λ = 0.7) against the key;
  3. e2e_effect, per agent patch: the test's outcome before and after the patch (passed, or
     failed at line N with exception E, each run twice); "The test passed." is always offered;
     distractors are the test's other assert lines and other exceptions at the failing line;
  4. local_intent (the fix) and local_effect (each agent patch): the pair is traced and its
     delta point found (Algorithm 1); candidates in scope there (names, len(), attribute reads,
     comparisons, and the call itself where the frames return differently) are evaluated on both versions at the delta's line and timing, else after the
     line and its next runs, until some change; "changed" = a different value, an exception on
     one side only, or a different exception type or message; the key is the changed candidate
     closest to the unchanged ones (Eq. 2), three unchanged ones are picked by MMR; a patch
     whose traces are complete and show no delta gets "The patch has no effect." as the key.
After building, each question is scored from a blank explanation (it must never be right: else
it is flagged), from the options alone, and by the lexical baseline (see deltalens flags).

  --instance ID --repo CLONE   an instance with an imported record (deltalens instances import):
                           its base commit with its test patch is the buggy tree (kept in
                           ~/.cache/deltalens/instances, made once), its gold patch the fix, its
                           first FAIL_TO_PASS test the test (--test another; run under pytest: a
                           bare sympy name becomes FILE::name; Django's ids are refused)
  --repo DIR --buggy REV   the buggy tree as a revision of a git repository (only read: its
                           files are exported); --fixed REV the fixed one
  --pbt FILE               a test file given apart (e.g. a property-based test): copied into
                           both trees as test_deltalens_pbt.py, its first test_… function run
  --generate-pbt           with --model: the model writes the bug-reproducing PBT from the issue
                           text (--issue FILE, else the instance record's), the gold patch and the
                           fix's test (--test, if given); each attempt runs twice on each version
                           and is kept only if it fails before and passes after (--pbt-attempts N,
                           default 3; every attempt is in the provenance)
  --agent-patch NAME=FILE  an agent's patch (repeatable)
  --stored-patches         also every stored trajectory of the instance that has a patch
  --all DIR                every DIR/NAME/ holding project.json ({"instance", "test"}), repo/
                           (the buggy tree) and patches/gold.diff (+ patches/AGENT.diff)
  --type T                 only these types (repeatable; default all four)
  --offline                the deterministic generators above (the default)
  --model NAME             a chat model writes the candidates instead: end-to-end intent and
                           effect distractors, and local expressions (added to the offline ones); an
                           OpenAI-compatible endpoint as for score (--base-url URL, the key in
                           $OPENAI_API_KEY or --api-key-env VAR); every prompt and answer is
                           kept; lines that are not Python expressions are dropped and said so
  --seed N                 seeds the tests' randomness and the option order (default 0)
  --timeout S              per test run (default 120)
  --force                  build again what was already built from the same inputs
  --check-model NAME       the QA model of the quality checks (default lexical; others as for
                           score: $OPENAI_BASE_URL, the key in $OPENAI_API_KEY)
  --no-checks              leave the quality checks out
  --python EXE, --no-sandbox, --pass-env NAME   as for trace

A question is stored whole or not at all, with its provenance (every candidate with its runs
and why it was kept or dropped, the selection scores, the seed); an interrupted build resumes,
skipping questions already built from the same inputs. --json prints {"questions": [{"id",
"type", "agent", "context", "question", "choices": [{"label", "text", "role"}], "answer",
"provenance", "unchanged"}],
"excluded": [{"instance", "stage", "agent"?, "reason"}], "quality": [{"question", "model", "blank":
{"correct", "n"}, "choices_only", "lexical", "flags"}]}.`;

interface Project {
  instance: string;
  buggyDir: string;
  goldPatch: string;
  test: string;
  agentPatches: {name: string; file: string}[];
  /** an instance's record: the clone its trees are exported from */
  fromRecord?: string;
}

/** DIR/NAME/{project.json, repo/, patches/gold.diff, patches/*.diff}: the demo projects' layout. */
function projectsIn(dir: string): Project[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--all ${dir}: not a directory`);
  const out: Project[] = [];
  for (const name of readdirSync(dir).sort()) {
    const root = join(dir, name);
    const meta = join(root, 'project.json');
    if (!existsSync(meta)) continue;
    let m: {instance?: unknown; test?: unknown};
    try {
      m = JSON.parse(readFileSync(meta, 'utf8')) as typeof m;
    } catch (error) {
      throw new UsageError(`${meta}: not JSON (${(error as Error).message})`);
    }
    if (typeof m.instance !== 'string' || typeof m.test !== 'string')
      throw new UsageError(`${meta}: needs "instance" and "test" strings`);
    const patches = join(root, 'patches');
    const agents = existsSync(patches)
      ? readdirSync(patches)
          .filter(f => f.endsWith('.diff') && f !== 'gold.diff')
          .sort()
      : [];
    out.push({
      instance: m.instance,
      test: m.test,
      buggyDir: join(root, 'repo'),
      goldPatch: join(patches, 'gold.diff'),
      agentPatches: agents.map(f => ({name: basename(f, '.diff'), file: join(patches, f)})),
    });
  }
  if (!out.length) throw new UsageError(`--all ${dir}: no DIR/NAME/project.json found`);
  return out;
}

/** The patches of the instance's stored runs, written to files (named by agent; #id when an agent has several). */
function storedPatches(db: Db, instance: string, dir: string): {name: string; file: string}[] {
  const runs = listTrajectories(db, {instance})
    .map(t => getTrajectory(db, t.id))
    .filter(t => t?.patch?.trim());
  return runs.map(t => {
    const many = runs.filter(r => r!.agent === t!.agent).length > 1;
    const name = many ? `${t!.agent}#${t!.id}` : t!.agent;
    const file = join(dir, `${t!.id}.diff`);
    writeFileSync(file, t!.patch!.endsWith('\n') ? t!.patch! : `${t!.patch}\n`);
    return {name, file};
  });
}

/** The fix as the options give it (checked before: exactly one way; --fixed only with --repo and --buggy); with --all, each project's gold patch. */
function fixGiven(v: {'fixed-dir'?: string; fixed?: string; buggy?: string}, goldPatch: string): FixGiven {
  const buggyRev = v.buggy ? {buggyRev: v.buggy} : {};
  if (v['fixed-dir']) return {fixedDir: resolve(v['fixed-dir']), ...buggyRev};
  if (v.fixed && v.buggy) return {fixedRev: v.fixed, buggyRev: v.buggy};
  return {goldPatch, ...buggyRev};
}

export async function runQuestionsBuild(argv: string[]): Promise<number> {
  const {values} = parse(
    argv,
    {
      ...COMMON_OPTIONS,
      instance: {type: 'string'},
      'buggy-dir': {type: 'string'},
      'fixed-dir': {type: 'string'},
      repo: {type: 'string'},
      buggy: {type: 'string'},
      fixed: {type: 'string'},
      pbt: {type: 'string'},
      'generate-pbt': {type: 'boolean'},
      'pbt-attempts': {type: 'string'},
      issue: {type: 'string'},
      'gold-patch': {type: 'string'},
      'agent-patch': {type: 'string', multiple: true},
      'stored-patches': {type: 'boolean'},
      all: {type: 'string'},
      test: {type: 'string'},
      type: {type: 'string', multiple: true},
      offline: {type: 'boolean'},
      model: {type: 'string'},
      'base-url': {type: 'string'},
      'api-key-env': {type: 'string'},
      seed: {type: 'string'},
      timeout: {type: 'string'},
      force: {type: 'boolean'},
      'check-model': {type: 'string'},
      'no-checks': {type: 'boolean'},
      ...SANDBOX_OPTIONS,
    },
    false,
  );
  if (values.help) {
    say(QUESTIONS_BUILD_HELP);
    return EXIT.ok;
  }
  if (values.offline && (values.model || values['base-url']))
    throw new UsageError('give --offline or --model NAME, not both');
  if (values['generate-pbt'] && !values.model)
    throw new UsageError('--generate-pbt needs --model NAME (the model writes the test)');
  if (values.issue && !existsSync(values.issue)) throw new UsageError(`--issue ${values.issue}: no such file`);
  if (values['base-url'] && !values.model) throw new UsageError('--base-url goes with --model NAME');
  if (values.model === 'lexical')
    throw new UsageError(
      'lexical answers questions but cannot write candidates: give a chat model with --model, or --offline',
    );
  let generator: QaModel | null = null;
  try {
    generator = values.model
      ? qaModelFrom({model: values.model, baseUrl: values['base-url'], apiKeyEnv: values['api-key-env']})
      : null;
  } catch (error) {
    if (error instanceof QaModelChoiceError) throw new UsageError(error.message);
    throw error;
  }
  const types = (values.type ?? [...QUESTION_TYPES]).map(t => {
    if (!QUESTION_TYPES.includes(t as QuestionType))
      throw new UsageError(`--type must be one of ${QUESTION_TYPES.join(', ')} (got "${t}")`);
    return t as QuestionType;
  });
  const agentPatches = (values['agent-patch'] ?? []).map(spec => {
    const eq = spec.indexOf('=');
    if (eq <= 0 || eq === spec.length - 1) throw new UsageError(`--agent-patch wants NAME=FILE, got "${spec}"`);
    const file = resolve(spec.slice(eq + 1));
    if (!existsSync(file)) throw new UsageError(`--agent-patch ${spec}: no such file`);
    return {name: spec.slice(0, eq), file};
  });
  let projects: Project[];
  if (values.all !== undefined) {
    if (values.instance || values['buggy-dir'] || values.test || values.repo || values.pbt)
      throw new UsageError(
        '--all DIR takes each instance from DIR: leave out --instance, --buggy-dir, --repo, --test and --pbt',
      );
    projects = projectsIn(resolve(values.all));
  } else if (
    values.instance &&
    values.repo &&
    !values.buggy &&
    !values['buggy-dir'] &&
    !values.fixed &&
    !values['fixed-dir'] &&
    !values['gold-patch']
  ) {
    // an instance's record: its trees, fix and test (checked against the store below)
    projects = [
      {
        instance: values.instance,
        buggyDir: '',
        goldPatch: '',
        test: values.test ?? '',
        agentPatches: [],
        fromRecord: values.repo,
      },
    ];
  } else {
    if (!values.instance) throw new UsageError('questions build needs --instance ID (or --all DIR)');
    if (!values['buggy-dir'] === !values.repo)
      throw new UsageError('questions build needs the buggy tree: --buggy-dir DIR, or --repo DIR --buggy REV');
    if (values.repo && !values.buggy) throw new UsageError('--repo DIR needs --buggy REV (the buggy revision)');
    if ((values.buggy || values.fixed) && !values.repo)
      throw new UsageError('--buggy and --fixed are revisions of --repo DIR');
    if (values['generate-pbt'] && values.pbt) throw new UsageError('give --pbt FILE or --generate-pbt, not both');
    if (!values['generate-pbt'] && !values.test === !values.pbt)
      throw new UsageError(
        'give the test as --test NODEID (a pytest node id on the fixed tree), --pbt FILE, or --generate-pbt with --model (one of them)',
      );
    if (values.pbt && !existsSync(values.pbt)) throw new UsageError(`--pbt ${values.pbt}: no such file`);
    if ([values['fixed-dir'], values['gold-patch'], values.fixed].filter(Boolean).length !== 1)
      throw new UsageError('give the fix as --fixed-dir DIR, --fixed REV or --gold-patch FILE (one of them)');
    if (values['gold-patch'] && !existsSync(values['gold-patch']))
      throw new UsageError(`--gold-patch ${values['gold-patch']}: no such file`);
    projects = [
      {
        instance: values.instance,
        buggyDir: resolve(values['buggy-dir'] ?? values.repo!),
        goldPatch: values['gold-patch'] ? resolve(values['gold-patch']) : '',
        test: values.test ?? '',
        agentPatches: [],
      },
    ];
  }
  const passEnv = passEnvOption(values['pass-env']);
  const seed = values.seed === undefined ? 0 : Number(values.seed);
  if (!Number.isInteger(seed)) throw new UsageError(`--seed wants an integer, got "${values.seed}"`);
  const timeoutS = positiveInt(values.timeout, '--timeout') ?? 120;
  let checkModel;
  try {
    checkModel = qaModelFrom({model: values['check-model']});
  } catch (error) {
    if (error instanceof QaModelChoiceError) throw new UsageError(error.message);
    throw error;
  }
  let quality: QualityReport[] = [];

  const {db, path: dbPath} = await openStore(values.db, 'create');
  const scratch = makeTempDir('patches');
  const all: BuildResult = {questions: [], excluded: []};
  try {
    for (const [index, p] of projects.entries()) {
      const started = Date.now();
      if (p.fromRecord) {
        try {
          const runner = await pythonRunner(
            values.python ?? process.env.DELTALENS_PYTHON ?? 'python3',
            values['no-sandbox'] ? 'off' : 'require',
            {passEnv},
          );
          const tree = await instanceBaseTree(db, p.instance, p.fromRecord, runner);
          p.test = await pytestIdOf(db, p.instance, p.fromRecord, values.test);
          p.buggyDir = tree.dir;
          p.goldPatch = tree.goldPatch;
          if (!values.json || process.stderr.isTTY)
            warn(
              `${p.instance}: ${tree.reused ? 'the' : 'made the'} buggy tree from its record (${tree.dir}); the test ${p.test}`,
            );
        } catch (error) {
          if (error instanceof InstanceTraceError || error instanceof WorkspaceError || error instanceof PythonError) {
            warn(`deltalens: ${error.message}`);
            return EXIT.failed;
          }
          throw error;
        }
      }
      const options: BuildOptions = {
        instance: p.instance,
        buggyDir: p.buggyDir,
        ...fixGiven(values.all === undefined ? values : {}, p.goldPatch),
        ...(values.pbt && values.all === undefined ? {pbt: resolve(values.pbt)} : {}),
        ...(values['generate-pbt'] ? {generatePbt: positiveInt(values['pbt-attempts'], '--pbt-attempts') ?? 3} : {}),
        ...(values.issue ? {issue: readFileSync(values.issue, 'utf8')} : {}),
        agentPatches: [
          ...p.agentPatches,
          ...agentPatches,
          ...(values['stored-patches'] ? storedPatches(db, p.instance, scratch) : []),
        ],
        test: p.test,
        python: values.python ?? process.env.DELTALENS_PYTHON ?? 'python3',
        sandbox: values['no-sandbox'] ? 'off' : 'require',
        passEnv,
        seed,
        timeoutS,
        types,
        force: values.force,
        generator,
        onProgress: (stage, detail, parts) => {
          if (!values.json || process.stderr.isTTY)
            warn(
              `${p.instance}${projects.length > 1 ? ` (${index + 1}/${projects.length})` : ''} · ${partsText(parts, started)} · ${stage}: ${detail}`,
            );
        },
      };
      try {
        const r = await buildQuestions(db, options);
        all.questions.push(...r.questions);
        all.excluded.push(...r.excluded);
      } catch (error) {
        if (error instanceof WorkspaceError || error instanceof PythonError)
          all.excluded.push({instance: p.instance, stage: 'instance', reason: error.message});
        else if (error instanceof SandboxMissing) {
          warn(`deltalens: ${error.message}`);
          return EXIT.failed;
        } else throw error;
      }
    }
    if (!values['no-checks'] && all.questions.length) {
      if (!values.json || process.stderr.isTTY)
        warn(
          `quality checks: ${all.questions.length} questions from a blank explanation and from the options alone (${checkModel.name}), and the lexical baseline`,
        );
      quality = await qualityChecks(
        db,
        all.questions.map(b => b.question),
        checkModel,
      );
    }
  } finally {
    db.close();
    forget(scratch);
  }
  if (values.json) {
    printJson({
      questions: all.questions.map(b => ({
        id: b.question.id,
        type: b.question.type,
        instance: b.question.instance,
        agent: b.question.agent,
        context: b.question.context,
        question: b.question.question,
        choices: b.question.choices,
        answer: b.question.answer,
        provenance: b.provenance,
        unchanged: b.unchanged,
      })),
      excluded: all.excluded,
      quality,
      db: dbPath,
    });
  } else {
    for (const b of all.questions) {
      const q = b.question;
      say(`${q.type.padEnd(11)} ${q.id}${b.unchanged ? ' (unchanged: built before from the same inputs)' : ''}`);
      for (const c of q.choices) say(`    ${q.answer.includes(c.label) ? '✓' : ' '} ${c.label}. ${c.text}`);
      const check = quality.find(x => x.question === q.id);
      if (check) {
        say(
          `    checks (${check.model}): blank explanation ${check.blank.correct}/${check.blank.n} right${check.blank.correct ? ' — FLAGGED' : ''} · options alone ${check.choices_only.correct}/${check.choices_only.n} · lexical on stored explanations ${check.lexical.n ? `${check.lexical.correct}/${check.lexical.n}` : '—'}${check.flags.length ? ` · flags: ${check.flags.join(', ')}` : ''}`,
        );
      }
    }
    for (const e of all.excluded)
      say(`excluded    ${e.instance} · ${e.stage}${e.agent ? ` · ${e.agent}` : ''}: ${e.reason}`);
    say(
      `${all.questions.length} questions built (${all.questions.filter(b => b.unchanged).length} unchanged), ${all.excluded.length} excluded → ${dbPath}`,
    );
  }
  return all.questions.length || !all.excluded.length ? EXIT.ok : EXIT.failed;
}

/** How far a build is: its parts done of all, the time it has taken, and (after two parts) about how long it has left. */
export function partsText(parts: {done: number; total: number}, started: number, now = Date.now()): string {
  const elapsed = (now - started) / 1000;
  const clock = (s: number) =>
    s >= 60 ? `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.round(s)}s`;
  if (!parts.total) return clock(elapsed);
  const left =
    parts.done >= 2 && parts.done < parts.total
      ? `, about ${clock((elapsed / parts.done) * (parts.total - parts.done))} left`
      : '';
  return `part ${Math.min(parts.done + 1, parts.total)}/${parts.total}, ${clock(elapsed)}${left}`;
}
