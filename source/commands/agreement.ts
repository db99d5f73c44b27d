import {sanitize, terminalSafeJson} from '../core/text/sanitize.js';
import {say, warn} from './output.js';
import {writeFileSync} from 'node:fs';
import {AUTO_FLAG_TEXT, FLAG_TEXT, FLAG_VERDICTS} from '../core/questions/annotation.js';
import {listFlags, setFlag} from '../store/annotations.js';
import {
  agreementReport,
  agreementText,
  automaticFlags,
  exportAnnotations,
  importAnnotations,
} from '../services/annotation.js';
import {COMMON_OPTIONS, EXIT, oneOf, parse, printJson, UsageError} from './args.js';
import {withDb, withDbAsync} from './db-path.js';
import {syncLine, syncOrSay, TEAM_OPTION_HELP} from './team.js';
import {syncTeam, teamUrl, TeamUnavailable} from '../services/team.js';

export const AGREEMENT_HELP = `Usage: deltalens agreement [--team URL] [--json] [--db FILE]

Agreement on the people's labels: Cohen's κ and raw agreement for every pair of annotators
(on the items both labelled), Fleiss' κ over the items labelled by the same number of people,
the same per question type, each person against each QA model's majority answer, and each
person against the adjudicated answers. Labels are categories: one letter, or "before,after".

With a team, the team's labels are brought here first (each person's local store computes the
same figures once synced).

${TEAM_OPTION_HELP}

JSON: {"pairs": [{"a", "b", "n", "raw", "cohen_kappa"}], "fleiss_kappa", "by_type": {…},
"human_vs_model": […], "human_vs_adjudicated": […], …}`;

export const FLAGS_HELP = `Usage: deltalens flags [--team URL] [--json] [--db FILE]
       deltalens flags set QUESTION VERDICT --author NAME [--note TEXT] [--team URL] [--db FILE]

Question flags: people's verdicts on questions (${FLAG_VERDICTS.join(', ')}) — set with
\`flags set\` or f on the explorer's question screen — and the automatic flags beside them:
${Object.entries(AUTO_FLAG_TEXT)
  .map(([k, v]) => `  ${k}: ${v}`)
  .join('\n')}
\`deltalens score --exclude-flagged\` and \`deltalens report --exclude-flagged\` leave out the
questions people flagged with anything but valid (add --exclude-auto-flags for the automatic).

${TEAM_OPTION_HELP}`;

export const ANNOTATIONS_HELP = `Usage: deltalens annotations export [--format jsonl|csv] [--out FILE] [--db FILE]
       deltalens annotations import FILE [--json] [--db FILE]
       deltalens annotations sync [--team URL] [--json] [--db FILE]

Move people's labels between machines. A JSONL line is
  {"question": QUESTION_ID, "explanation": EXPLANATION_ID, "annotator": NAME, "letters": ["B"], "rationale": "…"}
with the ids \`deltalens questions list --json\` and \`deltalens explanations list --json\` print.
Import is all or nothing (a bad line names its line and field) and idempotent: a label that is
already stored the same is left alone; a changed one replaces the person's earlier label.

annotations sync sends this store's labels, adjudications and question flags to the team's
PostgreSQL server and brings everyone's back (the newer of two writes of one item wins; keyed
by the question id, the explanation's content and the person, so every store imported from the
same sources agrees). Exit 1 when the server cannot be reached: nothing is lost, the next sync
sends it.
${TEAM_OPTION_HELP}`;

export async function runAgreement(argv: string[]): Promise<number> {
  const {values} = parse(argv, {...COMMON_OPTIONS, team: {type: 'string'}}, false);
  if (values.help) {
    say(AGREEMENT_HELP);
    return EXIT.ok;
  }
  const team = teamUrl(values.team);
  return withDbAsync(values.db, team ? 'write' : 'read', async db => {
    await syncOrSay(db, team, Boolean(values.json));
    const r = agreementReport(db);
    if (values.json) {
      printJson(r);
      return EXIT.ok;
    }
    for (const line of agreementText(r)) say(line.text);
    return EXIT.ok;
  });
}

export async function runFlags(argv: string[]): Promise<number> {
  const {values, positionals} = parse(argv, {
    ...COMMON_OPTIONS,
    author: {type: 'string'},
    note: {type: 'string'},
    team: {type: 'string'},
  });
  if (values.help) {
    say(FLAGS_HELP);
    return EXIT.ok;
  }
  const team = teamUrl(values.team);
  if (positionals[0] === 'set') {
    const [, question, verdict] = positionals;
    if (!question || !verdict) throw new UsageError('flags set takes QUESTION VERDICT (see deltalens flags --help)');
    const author = values.author ?? process.env.DELTALENS_ANNOTATOR;
    if (!author) throw new UsageError('flags set needs --author NAME (or $DELTALENS_ANNOTATOR)');
    return withDbAsync(values.db, 'write', async db => {
      try {
        setFlag(db, {question, author, verdict, note: values.note});
      } catch (error) {
        if (error instanceof RangeError) throw new UsageError(error.message);
        throw error;
      }
      say(`${question}: ${author} says ${verdict}`);
      await syncOrSay(db, team);
      return EXIT.ok;
    });
  }
  if (positionals.length) throw new UsageError(`flags takes no argument but "set" (got "${positionals[0]}")`);
  return withDbAsync(values.db, team ? 'write' : 'read', async db => {
    await syncOrSay(db, team, Boolean(values.json));
    const people = listFlags(db);
    const auto = automaticFlags(db);
    if (values.json) {
      printJson({people, automatic: auto});
      return EXIT.ok;
    }
    say(`${people.length} flag(s) by people, ${auto.length} automatic`);
    for (const f of people)
      say(`  ${f.question}  ${FLAG_TEXT[f.verdict]}  — ${f.author}${f.note ? `: ${f.note}` : ''}`);
    for (const f of auto) say(`  ${f.question}  [auto] ${f.reason}: ${f.evidence}`);
    return EXIT.ok;
  });
}

export async function runAnnotations(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    say(ANNOTATIONS_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  const {values, positionals} = parse(rest, {
    ...COMMON_OPTIONS,
    format: {type: 'string'},
    out: {type: 'string'},
    team: {type: 'string'},
  });
  if (values.help) {
    say(ANNOTATIONS_HELP);
    return EXIT.ok;
  }
  if (sub === 'sync') {
    const team = teamUrl(values.team);
    if (!team) throw new UsageError('annotations sync needs --team URL (or $DELTALENS_TEAM)');
    return withDbAsync(values.db, 'write', async db => {
      try {
        const r = await syncTeam(db, team);
        if (values.json) printJson(r);
        else say(syncLine(r));
        return EXIT.ok;
      } catch (error) {
        if (!(error instanceof TeamUnavailable)) throw error;
        warn(`deltalens: ${error.message}; this store's labels stay here and go with the next sync`);
        return EXIT.failed;
      }
    });
  }
  if (sub === 'export') {
    const format = oneOf(values.format, ['jsonl', 'csv'] as const, '--format') ?? 'jsonl';
    return withDb(values.db, 'read', db => {
      const text = exportAnnotations(db, format);
      if (values.out) writeFileSync(values.out, text);
      // JSONL stays valid JSON with the terminal-active characters escaped; CSV is sanitized
      // only when it is going to a terminal
      else
        process.stdout.write(
          format === 'jsonl' ? terminalSafeJson(text) : process.stdout.isTTY ? sanitize(text) : text,
        );
      return EXIT.ok;
    });
  }
  if (sub === 'import') {
    const file = positionals[0];
    if (!file) throw new UsageError('annotations import takes FILE');
    return withDb(values.db, 'write', db => {
      let r;
      try {
        r = importAnnotations(db, file);
      } catch (error) {
        if (error instanceof RangeError || (error as NodeJS.ErrnoException).code === 'ENOENT') {
          warn(`deltalens: ${(error as Error).message} — nothing was imported`);
          return EXIT.failed;
        }
        throw error;
      }
      if (values.json) printJson(r);
      else say(`${r.added} added, ${r.updated} updated, ${r.unchanged} already stored`);
      return EXIT.ok;
    });
  }
  throw new UsageError(`annotations takes export, import or sync (got "${sub}")`);
}
