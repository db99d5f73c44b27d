/**
 * How a built question was made (its provenance), one type per question type, and the check it
 * passes when it is read back: a store written by another version, edited by hand or damaged is
 * told apart from a good one field by field, never read as if it were one.
 */
import type {EvalResult} from './candidates.js';
import type {QuestionType} from './model.js';
import type {TestOutcome} from './outcome.js';

/** The inputs of a build, kept in each question's provenance: enough to make its trees again. */
export interface BuildInputs {
  buggy_dir: string;
  buggy_rev?: string;
  fixed_dir?: string;
  fixed_rev?: string;
  /** the gold patch's text */
  gold_patch?: string;
  /** a test given apart (--pbt, or written by the model): its text, as written into the trees */
  pbt?: string;
  /** the lines of its module-level calls of its test, moved under if __name__ == '__main__' */
  pbt_module_calls_moved?: number[];
  test: string;
  /** the test file as the fix has it, written into every tree the test runs in */
  test_text?: string;
  timeout_s: number;
}

/** A prompt sent to the generating model and what came back. */
export interface ModelCall {
  stage: string;
  attempt: number;
  prompt: string;
  raw: string | null;
  error?: string;
  tokens: number | null;
}

interface ModelUse {
  name: string;
  calls: ModelCall[];
  /** said when nothing the model wrote was usable and the offline candidates were used */
  fallback?: string;
}

/** One attempt of the model at a bug-reproducing test. */
export interface PbtAttempt {
  attempt: number;
  prompt: string;
  raw: string | null;
  /** why it was not used, or "used" */
  reason: string;
  buggy?: TestOutcome[];
  fixed?: TestOutcome[];
}

interface MmrSelection {
  method: 'MMR';
  lambda: number;
  picked: string[];
  scores: number[];
}

/** What every built question keeps: the build's inputs, the test's validation runs, the seed. */
export interface CommonProvenance {
  origin: 'built';
  /** "offline" or "model NAME" */
  generator: string;
  builder_version: number;
  seed: number;
  test: string;
  /** absent in questions built before the inputs were kept (they cannot be re-validated) */
  build?: BuildInputs;
  test_validation: {buggy: TestOutcome[]; fixed: TestOutcome[]};
  pbt_generation?: PbtAttempt[];
  hypothesis?: {
    search: string;
    falsifying: string | null;
    note: string;
    test_runs: string;
    traced_and_evaluated_on: string;
  };
}

/** The hash of the question's inputs (built again only when it changes). */
interface Hashed {
  inputs: string;
}

/** A candidate substituted for the expected expression and run on both versions. */
interface IntentCandidate {
  text: string;
  /** where it came from (absent for a line of the model's answer that was not usable) */
  how?: string;
  buggy?: TestOutcome;
  fixed?: TestOutcome;
  kept: boolean;
  reason: string;
}

export interface E2eIntentProvenance extends CommonProvenance, Hashed {
  expected: {expr: string; line: number; marked: boolean; form: string};
  candidates: IntentCandidate[];
  model?: ModelUse;
  selection: MmrSelection;
}

export interface E2eEffectProvenance extends CommonProvenance, Hashed {
  agent: string;
  /** the patch's file and text */
  patch: string;
  patch_text: string;
  before: TestOutcome[];
  after: TestOutcome[];
  candidates: {text: string; how?: string; kept?: boolean; reason?: string}[];
  model?: ModelUse;
  selection: MmrSelection;
}

/** A point of a traced run: the delta point, or where the candidates were evaluated. */
export interface RunPoint {
  file: string;
  line: number;
  hit: number;
  timing: string;
  fn: string;
  defLine: number | null;
}

/** A candidate expression evaluated on both versions at the question's point. */
interface EvaluatedCandidate {
  text: string;
  how: string;
  /** what was evaluated when it is not the text (the call's value: __return__) */
  expr?: string;
  /** a part of the delta's line: a name one side lacks there is out of scope, not a change */
  scoped?: boolean;
  buggy: EvalResult;
  patched: EvalResult;
  changed: boolean;
  usable: boolean;
}

interface TracedPair {
  /** the traced pair and its delta */
  pair: number;
  delta: number;
}

interface AgentPatch {
  agent: string;
  patch: string;
  patch_text: string;
}

export interface LocalProvenance extends CommonProvenance, Hashed, TracedPair, Partial<AgentPatch> {
  delta_point: {buggy: RunPoint; patched: RunPoint};
  evaluated_at: {buggy: RunPoint; patched: RunPoint};
  attempts: {
    timing: string;
    hit: {buggy: number; patched: number};
    changed: number;
    candidates: number;
    note?: string;
  }[];
  unusable?: {text: string; reason: string}[];
  model?: ModelUse;
  changed_means: string;
  candidates: EvaluatedCandidate[];
  selection: {
    correct: {method: string; scores: Record<string, number>};
    distractors: MmrSelection;
  };
}

/** A local effect question whose patch changes nothing the test runs: "no effect" is its key. */
export interface NoEffectProvenance extends CommonProvenance, Hashed, TracedPair, AgentPatch {
  no_effect: {delta: 'none'; reason: string; steps_compared: number; frames_entered: number};
}

/** Any built question's provenance. */
export type BuiltProvenance = E2eIntentProvenance | E2eEffectProvenance | LocalProvenance | NoEffectProvenance;

/** A built question's provenance with the type of its question. */
type TypedProvenance =
  | {type: 'e2e_intent'; built: E2eIntentProvenance}
  | {type: 'e2e_effect'; built: E2eEffectProvenance}
  | {type: 'local_intent'; built: LocalProvenance}
  | {type: 'local_effect'; built: LocalProvenance | NoEffectProvenance};

/** Each choice's validation, by label, as the builder (or an edit) left it. */
export type ChoiceValidation =
  /** end-to-end intent: the expected expression */
  | {expected: true; line: number; marked: boolean; buggy: TestOutcome; fixed: TestOutcome}
  /** end-to-end intent: a distractor */
  | IntentCandidate
  /** end-to-end effect: the correct results, where observed; a distractor, never observed */
  | {observed: string[]}
  | {how?: string; observed: 'never'}
  /** local: the candidate as evaluated */
  | EvaluatedCandidate
  /** local effect with no effect: the evidence, or why an option is wrong */
  | NoEffectProvenance['no_effect']
  | {wrong_because: string; from?: string}
  /** a choice an author edited, re-validated */
  | {edited: true; reason: string; evidence?: unknown};

/** The provenance as read: typed when it passed the check; `problems` name each field that did not. */
export type ReadProvenance = (TypedProvenance & {problems: []}) | {type: QuestionType; built: null; problems: string[]};

/**
 * Reads a stored provenance of a question of type `type`: a built question's is checked field by
 * field against its type; one that is not built (imported, hand-written) has no built provenance
 * and no problem.
 */
export function readProvenance(type: QuestionType, raw: unknown): ReadProvenance {
  if (!isRecord(raw) || raw.origin !== 'built') return {type, built: null, problems: []};
  const problems: string[] = [];
  check(raw, COMMON, 'provenance', problems);
  check(raw, {inputs: str}, 'provenance', problems);
  const shape =
    type === 'e2e_intent'
      ? E2E_INTENT
      : type === 'e2e_effect'
        ? E2E_EFFECT
        : type === 'local_effect' && 'no_effect' in raw
          ? NO_EFFECT
          : LOCAL;
  check(raw, shape, 'provenance', problems);
  if (problems.length) return {type, built: null, problems};
  // checked above, field by field, against the type of this question type
  return {type, built: raw as unknown as BuiltProvenance, problems: []} as ReadProvenance;
}

// The checks: each field a function of (value, path) pushing what is wrong.
type Check = (v: unknown, path: string, problems: string[]) => void;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v);
const expect =
  (what: string, ok: (v: unknown) => boolean): Check =>
  (v, path, problems) => {
    if (!ok(v)) problems.push(`${path}: ${what} expected, ${kind(v)} found`);
  };
const str = expect('a string', v => typeof v === 'string');
const num = expect('a number', v => typeof v === 'number');
const bool = expect('true or false', v => typeof v === 'boolean');
const nullable =
  (c: Check): Check =>
  (v, path, problems) => {
    if (v !== null) c(v, path, problems);
  };
const list =
  (item: Check): Check =>
  (v, path, problems) => {
    if (!Array.isArray(v)) return expect('a list', () => false)(v, path, problems);
    v.forEach((x, i) => {
      item(x, `${path}[${i}]`, problems);
    });
  };
/** An object with these fields; a field named with a trailing "?" may be absent. */
const object =
  (fields: Record<string, Check>): Check =>
  (v, path, problems) => {
    if (!isRecord(v)) return expect('an object', () => false)(v, path, problems);
    check(v, fields, path, problems);
  };
function check(v: Record<string, unknown>, fields: Record<string, Check>, path: string, problems: string[]): void {
  for (const [name, c] of Object.entries(fields)) {
    const optional = name.endsWith('?');
    const key = optional ? name.slice(0, -1) : name;
    if (!(key in v) || v[key] === undefined) {
      if (!optional) problems.push(`${path}.${key}: missing`);
      continue;
    }
    c(v[key], `${path}.${key}`, problems);
  }
}

const OUTCOME = object({status: str, line: nullable(num), exception: nullable(str)});
const OUTCOMES = list(OUTCOME);
const MMR = object({method: str, lambda: num, picked: list(str), scores: list(num)});
const MODEL = object({name: str, calls: list(object({stage: str, prompt: str}))});
const POINT = object({file: str, line: num, hit: num, timing: str});
const EVAL = object({'value?': () => {}, 'error?': object({type: str})});

const COMMON: Record<string, Check> = {
  origin: str,
  generator: str,
  builder_version: num,
  seed: num,
  test: str,
  'build?': object({buggy_dir: str, test: str, timeout_s: num}),
  test_validation: object({buggy: OUTCOMES, fixed: OUTCOMES}),
  'pbt_generation?': list(object({attempt: num, reason: str})),
  'hypothesis?': object({search: str, test_runs: str, traced_and_evaluated_on: str}),
};
const E2E_INTENT: Record<string, Check> = {
  expected: object({expr: str, line: num, marked: bool}),
  candidates: list(object({text: str, kept: bool, reason: str, 'buggy?': OUTCOME, 'fixed?': OUTCOME})),
  'model?': MODEL,
  selection: MMR,
};
const AGENT: Record<string, Check> = {agent: str, patch: str, patch_text: str};
const E2E_EFFECT: Record<string, Check> = {
  ...AGENT,
  before: OUTCOMES,
  after: OUTCOMES,
  candidates: list(object({text: str})),
  'model?': MODEL,
  selection: MMR,
};
const LOCAL: Record<string, Check> = {
  pair: num,
  delta: num,
  'agent?': str,
  'patch?': str,
  'patch_text?': str,
  delta_point: object({buggy: POINT, patched: POINT}),
  evaluated_at: object({buggy: POINT, patched: POINT}),
  attempts: list(object({timing: str, changed: num, candidates: num})),
  'model?': MODEL,
  changed_means: str,
  candidates: list(object({text: str, buggy: EVAL, patched: EVAL, changed: bool, usable: bool})),
  selection: object({correct: object({method: str}), distractors: MMR}),
};
const NO_EFFECT: Record<string, Check> = {
  pair: num,
  delta: num,
  ...AGENT,
  no_effect: object({delta: str, reason: str, steps_compared: num}),
};

/** Each choice's stored validation: an object per label (anything else is left out, never shown as one). */
export function readValidations(raw: Record<string, unknown>): Record<string, ChoiceValidation> {
  return Object.fromEntries(Object.entries(raw).filter(([, v]) => isRecord(v))) as Record<string, ChoiceValidation>;
}
