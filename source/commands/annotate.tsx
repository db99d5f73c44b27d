import {say, warn} from './output.js';
import {render} from 'ink';
import type React from 'react';
import {basename} from 'node:path';
import {parseQueue} from '../core/questions/annotation.js';
import {QUESTION_TYPES, type QuestionType} from '../core/questions/model.js';
import {
  deleteAnnotation,
  saveAdjudication,
  saveAnnotation,
  setAdjudicationNote,
  setRationale,
} from '../store/annotations.js';
import type {Db} from '../store/db.js';
import {blindItem, conflicts, sessionQueue} from '../services/annotation.js';
import {AnnotateApp} from '../ui/screens/annotate/screen.js';
import {AdjudicateApp} from '../ui/screens/adjudicate/screen.js';
import {themeFromEnv} from '../ui/theme.js';
import {COMMON_OPTIONS, EXIT, oneOf, parse, positiveInt, UsageError} from './args.js';
import {openStore} from './db-path.js';
import {addCounts, syncLine, syncOrSay, TEAM_OPTION_HELP} from './team.js';
import {TeamSyncer, teamUrl} from '../services/team.js';

export const ANNOTATE_HELP = `Usage: deltalens annotate --annotator NAME [--queue all|unlabelled|disagreements|sample:N]
                         [--type T] [--agent A] [--seed S] [--team URL] [--db FILE]

Label questions from explanations by hand, one item (question × explanation) at a time,
blind: the answer key, the QA model's answers and other people's labels are never shown (only
who else labelled the item, by name).
Press the letter of your answer (two letters — before, after — for end-to-end effect); the
label is stored at once, then type an optional one-line rationale (Enter keeps it, Esc skips).
u undoes your last label, PgDn scrolls a long item, q quits (nothing is lost).

Queues (items you labelled already are left out, so a session resumes):
  all            every item, in a seeded random order (the default)
  unlabelled     items nobody has labelled
  disagreements  items where people disagree, or a person disagrees with the QA model's majority
  sample:N       a stratified sample of N items over question types (the same for everyone
                 with the same --seed)

Options:
  --annotator NAME  whose labels these are (or $DELTALENS_ANNOTATOR)
  --type T          only ${QUESTION_TYPES.join(', ')}
  --agent A         only explanations of this agent
  --seed S          the order and the sample (default 0)
  --db FILE         database (default ./deltalens.db if present, else the bundled demo database)
${TEAM_OPTION_HELP}
                    (synced when the session starts, each label sent as it is stored; others'
                    letters are never shown while you label, only their names)

See also: deltalens adjudicate, deltalens agreement, deltalens annotations export|import.`;

export const ADJUDICATE_HELP = `Usage: deltalens adjudicate --annotator NAME [--all] [--team URL] [--db FILE]

Resolve items whose labels conflict (ExplainBench Fig. 4): every person's label with their
rationale and every QA model's answers are shown (the answer key only on v). Press the letters
of the final answer — stored at once — then an optional one-line note (Enter keeps, Esc skips).
n / p move between items without deciding, q quits.

Options:
  --annotator NAME  the adjudicator (or $DELTALENS_ANNOTATOR)
  --all             include items already adjudicated (a new answer replaces the old)
  --db FILE         database (default ./deltalens.db if present, else the bundled demo database)
${TEAM_OPTION_HELP}
                    (synced when the session starts, each answer sent as it is stored)`;

/** Opens the database, runs one full-screen session until it quits, closes the database. */
async function session(
  dbFlag: string | undefined,
  team: string | undefined,
  screen: (db: Db, label: string, wrote: () => void) => React.ReactElement,
): Promise<number> {
  const {db, ...target} = await openStore(dbFlag, 'write');
  try {
    // the team's labels first (the queue and the conflicts see them); each write is sent as it
    // is stored (in the background), and once more at the end
    const opened = await syncOrSay(db, team);
    const syncer = team ? new TeamSyncer(db, team) : null;
    const app = render(
      screen(db, target.demo ? 'demo data' : basename(target.path), () => syncer?.wrote()),
      {exitOnCtrlC: false},
    );
    await app.waitUntilExit();
    await syncer?.idle();
    const last = await syncOrSay(db, team, true);
    // one line for the whole session: the opening sync, each answer as it was stored, the last sync
    if (last && syncer) {
      const counted = addCounts(last, syncer);
      warn(syncLine(opened ? addCounts(counted, opened) : counted, 'this session'));
    }
  } finally {
    db.close();
  }
  return EXIT.ok;
}

/** `f` followed by `wrote()`: a write the team should see. */
function andSend<A extends unknown[], R>(f: (...args: A) => R, wrote: () => void): (...args: A) => R {
  return (...args) => {
    const r = f(...args);
    wrote();
    return r;
  };
}

function needTerminal(command: string): boolean {
  if (process.stdin.isTTY && process.stdout.isTTY) return true;
  warn(
    `deltalens: ${command} needs an interactive terminal; labels made elsewhere can be merged with \`deltalens annotations import FILE\``,
  );
  return false;
}

export async function runAnnotate(argv: string[]): Promise<number> {
  const {values} = parse(
    argv,
    {
      ...COMMON_OPTIONS,
      annotator: {type: 'string'},
      queue: {type: 'string'},
      type: {type: 'string'},
      agent: {type: 'string'},
      seed: {type: 'string'},
      team: {type: 'string'},
    },
    false,
  );
  if (values.help) {
    say(ANNOTATE_HELP);
    return EXIT.ok;
  }
  const annotator = values.annotator ?? process.env.DELTALENS_ANNOTATOR;
  if (!annotator?.trim()) throw new UsageError('annotate needs --annotator NAME (or $DELTALENS_ANNOTATOR)');
  const queue = parseQueue(values.queue ?? 'all');
  if (!queue)
    throw new UsageError(`--queue must be all, unlabelled, disagreements or sample:N (got "${values.queue}")`);
  const type = oneOf(values.type, QUESTION_TYPES, '--type') as QuestionType | undefined;
  const seed = positiveInt(values.seed, '--seed') ?? 0;
  if (!needTerminal('annotate')) return EXIT.failed;
  return session(values.db, teamUrl(values.team), (db, label, wrote) => (
    <AnnotateApp
      theme={themeFromEnv()}
      data={{
        annotator,
        label,
        queue: sessionQueue(db, {annotator, queue, type, agent: values.agent, seed}),
        view: item => blindItem(db, item, annotator),
        save: andSend(
          (item, letters, seconds) =>
            saveAnnotation(db, {question: item.question, explanation: item.explanation, annotator, letters, seconds}),
          wrote,
        ),
        setRationale: andSend((id, text) => setRationale(db, id, text), wrote),
        remove: id => void deleteAnnotation(db, id),
      }}
    />
  ));
}

export async function runAdjudicate(argv: string[]): Promise<number> {
  const {values} = parse(
    argv,
    {...COMMON_OPTIONS, annotator: {type: 'string'}, all: {type: 'boolean'}, team: {type: 'string'}},
    false,
  );
  if (values.help) {
    say(ADJUDICATE_HELP);
    return EXIT.ok;
  }
  const adjudicator = values.annotator ?? process.env.DELTALENS_ANNOTATOR;
  if (!adjudicator?.trim()) throw new UsageError('adjudicate needs --annotator NAME (or $DELTALENS_ANNOTATOR)');
  if (!needTerminal('adjudicate')) return EXIT.failed;
  return session(values.db, teamUrl(values.team), (db, label, wrote) => (
    <AdjudicateApp
      theme={themeFromEnv()}
      data={{
        adjudicator,
        label,
        items: conflicts(db, {includeAdjudicated: values.all}),
        view: item => blindItem(db, item),
        save: andSend(
          (item, letters) =>
            saveAdjudication(db, {question: item.question, explanation: item.explanation, adjudicator, letters}),
          wrote,
        ),
        setNote: andSend((item, note) => setAdjudicationNote(db, item.question, item.explanation, note), wrote),
      }}
    />
  ));
}
