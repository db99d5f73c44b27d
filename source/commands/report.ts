import {maxOf} from '../core/arrays.js';
import {cell, say} from './output.js';
import {QUESTION_TYPES} from '../core/questions/model.js';
import {agentQuestions, buildReport, type Report} from '../services/report.js';
import {NotFound} from './show.js';
import {answerModels} from '../store/questions.js';
import {openStore} from './db-path.js';
import {COMMON_OPTIONS, EXIT, parse, printJson, UsageError} from './args.js';

export const REPORT_HELP = `Usage: deltalens report [--model NAME] [--exclude-flagged] [--exclude-auto-flags] [--json] [--db FILE]
       deltalens report --agent NAME [--explanations KIND] [--model NAME] [--json] [--db FILE]

Explanation scores from the stored answers of one QA model (default: the non-baseline model
with the most answers), as ExplainBench reports them: per agent and explanation kind, the four question
types and S_exp ± SEM over sample runs (Table 3), wrong answers split into misaligned and
not-informative (Table 4), overconfidence on patches whose test does not pass (Table 5),
audited vs original with relative gains (Table 6), ranks by explanation score and by
efficacy (resolved rate of the agent's stored runs on the same instances) with the shift.
Beside them, the statistics a benchmark published with its results (over all its
instances), and a check of the stored answers against its per-instance results.

--exclude-flagged leaves out the questions people flagged with anything but valid
(deltalens flags); --exclude-auto-flags also those the automatic flags name. The report then
opens with an exclusion table by reason (like ExplainBench Table 2).

--json: {"artifacts": {"models": [{"model", "baseline", "answers", "accuracy", "position_bias":
[{"position", "n", "accuracy"}]}], "blank_correct": [{"question", "model", "correct", "of"}]},
"model", "models", "agents": [{"agent", "explanations", "types": {"e2e_intent" |
"e2e_effect" | "local_intent" | "local_effect": {"score", "sem", "n", "misaligned",
"uninformative", "unparseable"}}, "s_exp", "s_exp_sem", "runs", "efficacy", "rank_explanation",
"rank_efficacy", "rank_shift", "overconfidence", "gain_vs_original"?}], "published": [{"agent",
"explanations", "model", "types", "s_exp", "s_exp_sem", "gain_vs_original"?}], "checks",
"exclusions": null | {"questions", "answers", "by_reason": [{"reason", "questions", "answers"}]},
"notes"}

--agent NAME: the questions that agent's explanations (--explanations, default original) were
scored on, with every sample's verdict — the leaderboard's drill-down. --json: {"agent",
"explanations", "model", "questions": [{"question", "type", "instance", "correct", "total",
"samples": [{"sample", "letters", "verdict"}]}]}.`;

const SHORT: Record<string, string> = {
  e2e_intent: 'E2E int',
  e2e_effect: 'E2E eff',
  local_intent: 'Loc int',
  local_effect: 'Loc eff',
};

function f(x: number | null | undefined, digits = 3): string {
  return x === null || x === undefined ? '—' : x.toFixed(digits);
}

function pct(x: number | null | undefined): string {
  return x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)}%`;
}

function signed(x: number | null | undefined): string {
  return x === null || x === undefined ? '' : ` (${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%)`;
}

function table(header: string[], rows: string[][]): string {
  const w = header.map((h, i) =>
    Math.max(
      h.length,
      maxOf(
        rows.map(r => cell(r[i]).length),
        0,
      ),
    ),
  );
  const line = (cells: string[]) =>
    cells
      .map(cell)
      .map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!)))
      .join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

function printReport(r: Report): void {
  if (r.exclusions) {
    say(`Excluded questions (flagged): ${r.exclusions.questions} question(s), ${r.exclusions.answers} answer(s)`);
    say(
      table(
        ['reason', 'questions', 'answers'],
        r.exclusions.by_reason.map(x => [x.reason, String(x.questions), String(x.answers)]),
      ),
    );
  }
  if (!r.model) {
    say('no answers stored: import results (deltalens import --format explainbench DIR) or score explanations first');
    return;
  }
  say(
    `QA model: ${r.model}${r.model === 'lexical' ? ' (the offline word-overlap baseline)' : ''}${
      r.models.length > 1
        ? ` (also stored: ${r.models
            .filter(m => m.model !== r.model)
            .map(m => m.model)
            .join(', ')})`
        : ''
    }`,
  );
  for (const kind of new Set(r.agents.map(a => a.explanations))) {
    const agents = r.agents.filter(a => a.explanations === kind);
    const n = Math.max(...agents.map(a => Math.max(...QUESTION_TYPES.map(t => a.types[t].n))));
    say(`\nTable 3 — ${kind} explanations, computed from the stored answers (up to ${n} instances per type):`);
    say(
      table(
        [
          'agent',
          ...QUESTION_TYPES.map(t => SHORT[t]!),
          'S_exp ± SEM',
          'runs',
          'efficacy',
          'rank expl',
          'rank eff',
          'shift',
        ],
        agents.map(a => [
          a.agent,
          ...QUESTION_TYPES.map(t => f(a.types[t].score) + (kind === 'audited' ? signed(a.gain_vs_original?.[t]) : '')),
          `${f(a.s_exp)} ± ${f(a.s_exp_sem)}${kind === 'audited' ? signed(a.gain_vs_original?.s_exp) : ''}`,
          String(a.runs),
          f(a.efficacy),
          a.rank_explanation === null ? '—' : `#${a.rank_explanation}`,
          a.rank_efficacy === null ? '—' : `#${a.rank_efficacy}`,
          a.rank_shift === null
            ? ''
            : a.rank_shift > 0
              ? `↑${a.rank_shift}`
              : a.rank_shift < 0
                ? `↓${-a.rank_shift}`
                : '=',
        ]),
      ),
    );
    say(`\nTable 4 — ${kind}: wrong answers, misaligned (Mis.) / not informative (NI):`);
    say(
      table(
        ['agent', ...QUESTION_TYPES.flatMap(t => [`${SHORT[t]} Mis.`, 'NI'])],
        agents.map(a => [
          a.agent,
          ...QUESTION_TYPES.flatMap(t => [pct(a.types[t].misaligned), pct(a.types[t].uninformative)]),
        ]),
      ),
    );
    say(
      `\nTable 5 — ${kind}: overconfidence (answers predicting a pass, among patches whose test does not pass after it):`,
    );
    say(
      table(
        ['agent', '# not pass', 'overconfidence', 'resolved from'],
        agents.map(a => [
          a.agent,
          String(a.overconfidence?.not_passing ?? '—'),
          pct(a.overconfidence?.share),
          a.overconfidence?.resolved_from ?? '',
        ]),
      ),
    );
  }
  if (r.published.length) {
    say(`\nPublished statistics (the benchmark's own, over all its instances; Table 3 and, for audited, Table 6):`);
    say(
      table(
        ['agent', 'expl.', ...QUESTION_TYPES.map(t => SHORT[t]!), 'S_exp'],
        r.published.map(p => [
          p.agent,
          p.explanations,
          ...QUESTION_TYPES.map(
            t => f(p.types[t]) + (p.explanations === 'audited' ? signed(p.gain_vs_original?.[t]) : ''),
          ),
          f(p.s_exp) +
            (p.s_exp_sem !== null ? ` ± ${f(p.s_exp_sem)}` : '') +
            (p.explanations === 'audited' ? signed(p.gain_vs_original?.s_exp) : ''),
        ]),
      ),
    );
    const note = r.published.find(p => p.s_exp_sem_note)?.s_exp_sem_note;
    if (note) say(`(${note})`);
  }
  say(
    '\nArtifact checks — every stored model (baselines marked), accuracy overall and by the position of the key among the options shown:',
  );
  say(
    table(
      ['model', 'answers', 'accuracy', 'by key position'],
      r.artifacts.models.map(m => [
        `${m.model}${m.baseline ? ' (baseline)' : ''}`,
        String(m.answers),
        f(m.accuracy),
        m.position_bias.map(p => `${p.position} ${f(p.accuracy, 2)} (${p.n})`).join('  '),
      ]),
    ),
  );
  if (r.artifacts.blank_correct.length) {
    say(`Questions a blank explanation answers correctly (question-quality defects):`);
    for (const b of r.artifacts.blank_correct.slice(0, 20))
      say(`  ${b.question} — ${b.model}: ${b.correct} of ${b.of}`);
  }
  const c = r.checks.published_per_instance;
  if (c.compared)
    say(
      `\nCheck: stored answers agree with the published per-instance results in ${c.agree} of ${c.compared} answers${c.disagreements.length ? `; first disagreements:\n  ${c.disagreements.join('\n  ')}` : '.'}`,
    );
  for (const n of r.notes) say(`note: ${n}`);
}

export async function runReport(argv: string[]): Promise<number> {
  const {values} = parse(
    argv,
    {
      ...COMMON_OPTIONS,
      model: {type: 'string'},
      agent: {type: 'string'},
      explanations: {type: 'string'},
      'exclude-flagged': {type: 'boolean'},
      'exclude-auto-flags': {type: 'boolean'},
    },
    false,
  );
  if (values.explanations !== undefined && values.agent === undefined)
    throw new UsageError('--explanations goes with --agent NAME');
  if (values.help) {
    say(REPORT_HELP);
    return EXIT.ok;
  }
  const {db} = await openStore(values.db, 'read');
  try {
    if (values.model !== undefined) {
      const stored = answerModels(db).map(m => m.model);
      if (!stored.includes(values.model)) {
        throw new UsageError(
          `no answers from model "${values.model}" in this store${stored.length ? ` (stored: ${stored.join(', ')})` : ' (none stored: deltalens score first)'}`,
        );
      }
    }
    if (values.agent !== undefined) {
      const kind = values.explanations ?? 'original';
      const r = agentQuestions(db, values.agent, kind, values.model ?? null);
      if (!r.questions.length)
        throw new NotFound(
          `no answers about ${values.agent}'s ${kind} explanations${r.model ? ` from ${r.model}` : ''} (the leaderboard lists the agents: deltalens report)`,
        );
      if (values.json) printJson({agent: values.agent, explanations: kind, model: r.model, questions: r.questions});
      else {
        say(`${values.agent} (${kind}) · ${r.model}: ${r.questions.length} questions`);
        const mark = (v: string | null) =>
          v === 'correct' ? '✓' : v === 'uninformative' ? '?' : v === 'misaligned' ? '✗' : '·';
        say(
          table(
            ['type', 'right', 'samples', 'question', 'instance'],
            r.questions.map(q => [
              q.type,
              `${q.correct}/${q.total}`,
              q.samples.map(x => mark(x.verdict)).join(''),
              q.question,
              q.instance,
            ]),
          ),
        );
        say('✓ correct · ✗ misaligned · ? not informative · · unparseable');
      }
      return EXIT.ok;
    }
    const flagged = values['exclude-flagged'] || values['exclude-auto-flags'];
    const exclude = flagged
      ? (await import('../services/annotation.js')).exclusions(db, {people: true, auto: values['exclude-auto-flags']})
      : undefined;
    const report = buildReport(db, {model: values.model, exclude});
    if (values.json) printJson(report);
    else printReport(report);
  } finally {
    db.close();
  }
  return EXIT.ok;
}
