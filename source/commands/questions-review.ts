import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import {resolve} from 'node:path';
import {QuestionError} from '../core/questions/model.js';
import {annotatorName} from '../services/annotation.js';
import {editText} from '../services/editor.js';
import {PythonError} from '../services/python.js';
import {editDocument} from '../core/questions/edit.js';
import {ReviewError, reviewQuestion} from '../services/question-review.js';
import {saveEditedQuestion, type EditResult} from '../services/question-revalidate.js';
import {SandboxMissing} from '../services/sandbox.js';
import {getQuestion, listReviews} from '../store/questions.js';
import {COMMON_OPTIONS, SANDBOX_OPTIONS, EXIT, parse, printJson, UsageError} from './args.js';
import {passEnvOption} from './pass-env.js';
import {openStore} from './db-path.js';
import {say, warn} from './output.js';
import {syncOrSay} from './team.js';
import {teamUrl} from '../services/team.js';

const QUESTIONS_REVIEW_HELP = `Usage: deltalens questions review ID (--accept | --reject) [--note TEXT] [--reviewer NAME] [--team URL] [--json] [--db FILE]
       deltalens questions review ID [--team URL] [--json]   the question's reviews, oldest first
       deltalens questions edit ID [--file FILE] [--json] [--python EXE] [--no-sandbox] [--db FILE]
       deltalens questions edit ID --print             the document to edit, on stdout

An author's review of a built question (questions build). The latest review is its status:
accepted, rejected (left out of score, report and both exports), edited, or rebuilt (built
again since: to be reviewed again). Reviews are kept under --reviewer, else $DELTALENS_ANNOTATOR,
else the login name. With --team URL (or $DELTALENS_TEAM), accepts and rejects are sent to the
team's server and the team's brought here (edits stay in this store).

edit opens the question in $VISUAL / $EDITOR (or reads --file) as JSON: "question", "choices"
[{"label", "text", "role"}], "answer" (end-to-end effect: [before, after]) and a "note" for the
review; "context" is shown but cannot change. Before anything is saved, every choice whose text
or role changed (and a key the answer moved to) is validated the way the builder validated the
original, on trees made again from the build inputs, in the sandbox:
  e2e_intent    substituted for [[MASKED]] and the test run on both versions: the key must make
                it fail before the fix and pass after; a distractor must not, and must run
  e2e_effect    checked against the stored runs: the key is the outcomes the test had before
                and after the patch; a distractor must be an outcome it never had
  local types   evaluated at the point the question asks about, on both versions: the key must
                change ("changed" as for questions build), a distractor keep its value; "no
                effect" is the key only when the traces show no delta
One choice that fails refuses the whole edit, naming the choice and why; nothing is saved. An
edit refused after $EDITOR is kept in ./ID.edit.json (the id's / as _) for --file.
--json prints {"saved", "question", "checks": [{"label", "text", "role", "status": unchanged |
valid | invalid, "reason", "evidence"?}], "problems"}; exit 1 when refused.`;

const safeName = (id: string) => `${id.replace(/[^\w.-]+/g, '_')}.edit.json`;

export async function runQuestionsReview(sub: 'review' | 'edit', argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, {
    ...COMMON_OPTIONS,
    accept: {type: 'boolean'},
    reject: {type: 'boolean'},
    note: {type: 'string'},
    reviewer: {type: 'string'},
    file: {type: 'string'},
    print: {type: 'boolean'},
    team: {type: 'string'},
    ...SANDBOX_OPTIONS,
  });
  if (values.help) {
    say(QUESTIONS_REVIEW_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`questions ${sub} takes one question ID`);
  const id = positionals[0]!;
  const reviewer = values.reviewer?.trim() || annotatorName();
  if (sub === 'review') {
    if (values.accept && values.reject) throw new UsageError('give --accept or --reject, not both');
    if (values.file || values.print) throw new UsageError('--file and --print go with questions edit');
    const action = values.accept ? 'accepted' : values.reject ? 'rejected' : null;
    if (!action && values.note !== undefined) throw new UsageError('--note goes with --accept or --reject');
    const team = teamUrl(values.team);
    const {db} = await openStore(values.db, action || team ? 'write' : 'read');
    try {
      if (!getQuestion(db, id))
        throw new UsageError(`no question "${id}" in this database (questions list shows them)`);
      if (action) {
        const r = reviewQuestion(db, id, action, reviewer, values.note?.trim() || null);
        await syncOrSay(db, team, Boolean(values.json));
        if (values.json)
          printJson({
            review: {question: id, action: r.action, reviewer: r.reviewer, note: r.note, created_at: r.created_at},
          });
        else
          say(
            `${id}: ${r.action} by ${r.reviewer}${r.note ? ` — ${r.note}` : ''}${r.action === 'rejected' ? ' (left out of score, report and exports from now on)' : ''}`,
          );
        return EXIT.ok;
      }
      await syncOrSay(db, team, Boolean(values.json));
      const rows = listReviews(db, id);
      if (values.json) printJson({question: id, reviews: rows});
      else if (!rows.length) say(`${id}: not reviewed yet (--accept, --reject, or questions edit)`);
      else
        for (const r of rows)
          say(`${r.created_at}  ${r.action.padEnd(8)} ${r.reviewer}${r.note ? ` — ${r.note}` : ''}`);
      return EXIT.ok;
    } catch (error) {
      if (error instanceof ReviewError) throw new UsageError(error.message);
      throw error;
    } finally {
      db.close();
    }
  }

  if (values.accept || values.reject) throw new UsageError('--accept and --reject go with questions review');
  if (values.file && !existsSync(values.file)) throw new UsageError(`--file ${values.file}: no such file`);
  const passEnv = passEnvOption(values['pass-env']);
  const {db} = await openStore(values.db, values.print ? 'read' : 'write');
  try {
    const q = getQuestion(db, id);
    if (!q) throw new UsageError(`no question "${id}" in this database (questions list shows them)`);
    if (values.print) {
      process.stdout.write(editDocument(q));
      return EXIT.ok;
    }
    let text: string;
    let fromEditor = false;
    if (values.file) text = readFileSync(values.file, 'utf8');
    else {
      if (!process.stdin.isTTY)
        throw new UsageError(
          'questions edit without --file opens $EDITOR, which needs a terminal (or give --file FILE; --print writes the document to edit)',
        );
      const edited = editText(editDocument(q), process.env, 'question.json');
      if (edited.error) throw new UsageError(edited.error);
      if (edited.text === null) {
        say('unchanged: nothing saved');
        return EXIT.ok;
      }
      text = edited.text;
      fromEditor = true;
    }
    let r: EditResult;
    try {
      r = await saveEditedQuestion(db, id, text, {
        python: values.python ?? process.env.DELTALENS_PYTHON ?? 'python3',
        sandbox: values['no-sandbox'] ? 'off' : 'require',
        passEnv,
        reviewer,
        onProgress: d => {
          if (!values.json || process.stderr.isTTY) warn(`${id}: ${d}`);
        },
      });
    } catch (error) {
      if (error instanceof QuestionError) {
        const kept = fromEditor ? keep(id, text) : null;
        warn(
          `deltalens: ${values.file ?? 'the edit'}: ${error.field}: ${error.message} (nothing saved${kept ? `; your edit is in ${kept}` : ''})`,
        );
        return EXIT.failed;
      }
      if (error instanceof ReviewError || error instanceof PythonError) {
        warn(`deltalens: ${error.message} (nothing saved)`);
        return EXIT.failed;
      }
      if (error instanceof SandboxMissing) {
        warn(`deltalens: ${error.message}`);
        return EXIT.failed;
      }
      throw error;
    }
    const kept = !r.saved && fromEditor && r.problems[0] !== 'unchanged: nothing to save' ? keep(id, text) : null;
    if (values.json)
      printJson({
        saved: r.saved,
        question: r.question,
        checks: r.checks,
        problems: r.problems,
        ...(kept ? {kept} : {}),
      });
    else {
      for (const c of r.checks)
        say(
          `  ${c.status === 'invalid' ? '✗' : c.status === 'valid' ? '✓' : '·'} ${c.label}. ${c.text} [${c.role}] — ${c.reason}`,
        );
      if (r.saved)
        say(
          `${id}: edited and saved (${r.ran ? 'changed choices re-validated by running them' : 'checked against the stored runs'}; the previous version is kept in its review)`,
        );
      else if (r.problems[0] === 'unchanged: nothing to save') say(`${id}: unchanged: nothing to save`);
      else
        say(
          `${id}: NOT saved — ${r.problems.join('; ')}${kept ? ` (your edit is in ${kept}: fix it and run questions edit ${id} --file ${kept})` : ''}`,
        );
    }
    return r.saved || r.problems[0] === 'unchanged: nothing to save' ? EXIT.ok : EXIT.failed;
  } finally {
    db.close();
  }
}

/** A refused edit made in the editor is not lost: kept beside the user for --file. */
function keep(id: string, text: string): string {
  const file = resolve(safeName(id));
  writeFileSync(file, text);
  return file;
}
