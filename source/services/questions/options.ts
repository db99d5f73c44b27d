/**
 * What a question build is given (the command checks every option before it gets here: the
 * types leave no room for two fixes or none) and what it answers.
 */
import type {Question, QuestionType} from '../../core/questions/model.js';
import type {BuiltProvenance} from '../../core/questions/provenance.js';
import type {QaModel} from '../qa-models.js';
import type {SandboxPolicy} from '../sandbox.js';

/** Bumped when a generator or a validation rule changes: stored with every built question. */
export const BUILDER_VERSION = 4;
/** Distractors per question. */
export const DISTRACTORS = 3;

interface BuildOptionsBase {
  instance: string;
  /** the buggy tree: a folder, or (with buggyRev) a git repository */
  buggyDir: string;
  /** a property-based (or any) test file given apart from the trees: copied into both as
   * test_deltalens_pbt.py, its first test function run */
  pbt?: string;
  /** with a generator: write the bug-reproducing PBT from the issue text, the gold patch and the
   * fix's test (if --test names one); at most this many attempts, each validated and kept */
  generatePbt?: number;
  /** the issue text (default: the instance record's problem statement) */
  issue?: string;
  agentPatches: {name: string; file: string}[];
  /** a pytest node id, relative to the trees' root */
  test: string;
  python: string;
  sandbox: SandboxPolicy;
  passEnv?: string[];
  seed: number | null;
  timeoutS: number;
  types: QuestionType[];
  /** build again even when a question was built from the same inputs */
  force?: boolean;
  /** the model that writes candidates (distractors, local expressions); none: offline generators */
  generator?: QaModel | null;
  /** what runs now; `parts`: the parts of the build done and planned (trees, validation, each question) */
  onProgress?: (stage: string, detail: string, parts: {done: number; total: number}) => void;
}

/**
 * The fix, given one way: the fixed tree as a folder, the fixed revision of the repository
 * `buggyDir` names (then the buggy tree is a revision of it too), or the gold patch's file.
 */
export type FixGiven =
  | {fixedDir: string; buggyRev?: string; fixedRev?: never; goldPatch?: never}
  | {fixedRev: string; buggyRev: string; fixedDir?: never; goldPatch?: never}
  | {goldPatch: string; buggyRev?: string; fixedDir?: never; fixedRev?: never};

export type BuildOptions = BuildOptionsBase & FixGiven;

export interface BuiltQuestion {
  question: Question;
  provenance: BuiltProvenance;
  /** already built from the same inputs: kept as it was */
  unchanged: boolean;
}

export interface Excluded {
  instance: string;
  /** the question type (or "instance" when nothing could be built) and the agent, if any */
  stage: string;
  agent?: string;
  reason: string;
}

export interface BuildResult {
  questions: BuiltQuestion[];
  excluded: Excluded[];
}
