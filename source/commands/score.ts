import {cell, say} from './output.js';
import {openStore} from './db-path.js';
import {ctrlCStops} from './ctrl-c.js';
import {qaModelFrom, QaModelChoiceError, type QaModel} from '../services/qa-models.js';
import {scoreExplanations, type ExplanationKind, type ScoreProgress} from '../services/scoring.js';
import {scoreBatch} from '../services/score-batch.js';
import {COMMON_OPTIONS, EXIT, oneOf, parse, positiveInt, printJson, UsageError} from './args.js';

export const SCORE_HELP = `Usage: deltalens score [--model NAME] [--base-url URL] [--api-key-env VAR] [--samples N]
       [--concurrency N] [--temperature T] [--reasoning-effort E] [--agent A]
       [--explanations original|audited|blank|custom|all] [--choices-only]
       [--exclude-flagged] [--exclude-auto-flags] [--batch [--poll-seconds S]] [--json] [--db FILE]

Answers every (question × explanation × sample) the model has not answered yet, with the
ExplainBench prompt (Fig. 5) and the options in a seeded order per sample. Every answer is
stored as it arrives (prompt hash, raw answer, letters, verdict, latency, tokens, order,
seed); a rerun makes no call for what is stored; Ctrl+C stops and keeps every finished answer.

  --model NAME         "lexical" (default: the offline word-overlap baseline) or the model name
                       of an OpenAI-compatible endpoint
  --base-url URL       the endpoint (default $OPENAI_BASE_URL, else OpenAI's)
  --api-key-env VAR    read the key from $VAR (default OPENAI_API_KEY)
  --samples N          answers per question and explanation (default 5)
  --concurrency N      calls in flight (default 8)
  --temperature T, --reasoning-effort E   passed through when given
  --max-retries N      retries per call on 429/5xx/timeouts, honouring Retry-After (default 6)
  --timeout S          seconds before a call is given up and retried (default 120)
  --agent A            only this agent's explanations
  --explanations K     which explanations (default original; blank must score 0)
  --choices-only       the question and options alone, no explanation, no context (an
                       artifact check; stored as "<model> [choices only]")
  --exclude-flagged    leave out questions people flagged with anything but valid (deltalens flags)
  --exclude-auto-flags also leave out the questions the automatic flags name
  --batch              send the calls as batches to the endpoint's Batch API (OpenAI's: half
                       the price, no rate limits; answers within 24 h) and wait for them: the
                       same prompts, answers and verdicts as online calls. A batch is stored the
                       moment it is accepted: Ctrl+C stops the waiting, not the batch, and the
                       next score --batch of the model collects it before sending anything new
  --poll-seconds S     --batch: seconds between two looks at a running batch (default 30)
  --json               the summary as JSON; progress as JSON lines on stderr

An explanation no stored question is asked about (no question of its instance, or none for its
agent) is named after the summary ("explanations_without_questions" in --json), never left at 0
without a word.

Exit codes: 0 all answered, 1 some calls failed (run again to retry them) or interrupted,
2 usage error.`;

function bar(p: ScoreProgress, width = 28): string {
  const total = Math.max(1, p.total - p.cached);
  const doneShare = (p.done + p.failed) / total;
  const fill = Math.round(doneShare * width);
  const eta =
    p.etaSeconds === null
      ? '—'
      : p.etaSeconds < 90
        ? `${Math.round(p.etaSeconds)} s`
        : `${Math.round(p.etaSeconds / 60)} min`;
  return `[${'█'.repeat(fill)}${' '.repeat(width - fill)}] ${p.done + p.failed}/${total} · ${p.rate.toFixed(1)}/s · ETA ${eta} · ${p.failed} failed${p.cached ? ` · ${p.cached} cached` : ''}`;
}

function timeoutMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`--timeout takes a number of seconds above 0 (got "${value}")`);
  return seconds * 1000;
}

export async function runScore(argv: string[]): Promise<number> {
  const {values} = parse(
    argv,
    {
      ...COMMON_OPTIONS,
      model: {type: 'string'},
      'base-url': {type: 'string'},
      'api-key-env': {type: 'string'},
      samples: {type: 'string'},
      concurrency: {type: 'string'},
      temperature: {type: 'string'},
      'reasoning-effort': {type: 'string'},
      'max-retries': {type: 'string'},
      timeout: {type: 'string'},
      agent: {type: 'string'},
      explanations: {type: 'string'},
      'choices-only': {type: 'boolean'},
      'exclude-flagged': {type: 'boolean'},
      'exclude-auto-flags': {type: 'boolean'},
      batch: {type: 'boolean'},
      'poll-seconds': {type: 'string'},
    },
    false,
  );
  if (values.help) {
    say(SCORE_HELP);
    return EXIT.ok;
  }
  const kindFlag =
    oneOf(values.explanations, ['original', 'audited', 'blank', 'custom', 'all'] as const, '--explanations') ??
    'original';
  const kinds: ExplanationKind[] = kindFlag === 'all' ? ['original', 'audited', 'blank', 'custom'] : [kindFlag];
  const samples = positiveInt(values.samples, '--samples') ?? 5;
  const concurrency = positiveInt(values.concurrency, '--concurrency') ?? 8;
  if (samples < 1 || concurrency < 1) throw new UsageError('--samples and --concurrency are at least 1');
  const temperature = values.temperature === undefined ? undefined : Number(values.temperature);
  if (temperature !== undefined && !Number.isFinite(temperature))
    throw new UsageError(`--temperature takes a number (got "${values.temperature}")`);
  let model: QaModel;
  try {
    model = qaModelFrom({
      model: values.model,
      baseUrl: values['base-url'],
      apiKeyEnv: values['api-key-env'],
      temperature,
      reasoningEffort: values['reasoning-effort'],
      maxRetries: positiveInt(values['max-retries'], '--max-retries'),
      timeoutMs: timeoutMs(values.timeout),
    });
  } catch (error) {
    if (error instanceof QaModelChoiceError) throw new UsageError(error.message);
    throw error;
  }
  if (values.batch && !model.batch)
    throw new UsageError(
      `--batch sends the calls to a model's Batch API; ${model.name} is the offline baseline (score it without --batch)`,
    );
  if (values['poll-seconds'] !== undefined && !values.batch) throw new UsageError('--poll-seconds goes with --batch');
  const pollSeconds = values['poll-seconds'] === undefined ? undefined : Number(values['poll-seconds']);
  if (pollSeconds !== undefined && !(Number.isFinite(pollSeconds) && pollSeconds >= 0))
    throw new UsageError(`--poll-seconds takes a number of seconds (got "${values['poll-seconds']}")`);
  const {db, path: dbPath} = await openStore(values.db, 'write');
  const ctrlC = ctrlCStops(
    'stopping: finishing nothing new, keeping every stored answer (Ctrl+C again to quit at once)',
  );
  ctrlC.on();
  const tty = process.stderr.isTTY && !values.json;
  let last = 0;
  try {
    const excluded =
      values['exclude-flagged'] || values['exclude-auto-flags']
        ? (await import('../services/annotation.js')).exclusions(db, {people: true, auto: values['exclude-auto-flags']})
        : null;
    if (values.batch) {
      const r = await scoreBatch(db, {
        excludeQuestions: excluded ? new Set(excluded.keys()) : undefined,
        model,
        samples,
        agent: values.agent,
        kinds,
        choicesOnly: values['choices-only'],
        signal: ctrlC.signal,
        pollSeconds,
        onProgress: p => {
          const now = Date.now();
          if (now - last < (tty ? 100 : 1000) && p.phase === 'waiting') return;
          last = now;
          const line = `${p.phase} ${p.batch ?? `a batch of ${p.total} requests`}${p.status ? ` (${p.status})` : ''}: ${p.completed}/${p.total} answered, ${p.failed} failed`;
          if (tty) process.stderr.write(`\r\x1b[K${cell(line)}`);
          else
            process.stderr.write(
              `${JSON.stringify({progress: {phase: p.phase, batch: p.batch, status: p.status, completed: p.completed, failed: p.failed, total: p.total}})}\n`,
            );
        },
      });
      if (tty) process.stderr.write('\n');
      if (values.json)
        printJson({
          model: r.model,
          baseline: model.baseline,
          submitted: r.submitted,
          stored: r.stored,
          cached: r.cached,
          failed: r.failed,
          unparseable: r.unparseable,
          batches: r.batches,
          pending: r.pending,
          explanations_without_text: r.withoutText,
          explanations_without_questions: r.withoutQuestions,
          interrupted: r.interrupted,
          excluded_questions: excluded ? excluded.size : 0,
          errors: r.errors,
          db: dbPath,
        });
      else {
        say(
          `${r.model} (batch): ${r.stored} answers stored from ${r.batches.length} batch(es), ${r.submitted} requests sent, ${r.cached} already stored, ${r.failed} failed, ${r.unparseable} unparseable (kept, counted wrong)${r.interrupted ? '; interrupted' : ''}`,
        );
        for (const id of r.pending)
          say(`  ${cell(id)} is still running at the endpoint: run score --batch with this model again to collect it`);
        for (const e of r.errors.slice(0, 5)) say(`  failed: ${cell(e)}`);
      }
      return r.failed || r.interrupted || r.pending.length ? EXIT.failed : EXIT.ok;
    }
    const result = await scoreExplanations(db, {
      excludeQuestions: excluded ? new Set(excluded.keys()) : undefined,
      model,
      samples,
      concurrency,
      agent: values.agent,
      kinds,
      choicesOnly: values['choices-only'],
      signal: ctrlC.signal,
      onProgress: p => {
        const now = Date.now();
        if (now - last < (tty ? 100 : 1000) && p.done + p.failed < p.total - p.cached) return;
        last = now;
        if (tty) process.stderr.write(`\r\x1b[K${bar(p)}`);
        else
          process.stderr.write(
            `${JSON.stringify({progress: {done: p.done, failed: p.failed, cached: p.cached, total: p.total, rate: Number(p.rate.toFixed(2)), eta_s: p.etaSeconds === null ? null : Math.round(p.etaSeconds)}})}\n`,
          );
      },
    });
    if (tty) process.stderr.write('\n');
    const summary = {
      model: result.model,
      baseline: model.baseline,
      total: result.total,
      answered: result.done,
      cached: result.cached,
      failed: result.failed,
      unparseable: result.unparseable,
      explanations_without_text: result.withoutText,
      explanations_without_questions: result.withoutQuestions,
      interrupted: result.interrupted,
      excluded_questions: excluded ? excluded.size : 0,
      errors: result.errors,
      db: dbPath,
    };
    if (values.json) printJson(summary);
    else {
      say(
        `${result.model}${model.baseline ? ' (baseline)' : ''}: ${result.done} answered, ${result.cached} already stored, ${result.failed} failed, ${result.unparseable} unparseable (kept, counted wrong)${result.withoutText ? `; ${result.withoutText} explanations skipped: their text is not in the data` : ''}${result.interrupted ? '; interrupted' : ''}`,
      );
      if (excluded?.size) say(`  ${excluded.size} flagged question(s) left out`);
      // nothing answered, or some explanations left unasked: why
      if (!result.explanations)
        say('  nothing to answer: no explanation of the kinds asked for is stored (deltalens explanations list)');
      else if (result.withoutQuestions.length) {
        const instances = [...new Set(result.withoutQuestions.map(e => e.instance ?? '?'))];
        say(
          `  ${result.withoutQuestions.length} of ${result.explanations} explanation(s) have no question asked about them — instance${instances.length === 1 ? '' : 's'} ${instances.slice(0, 8).map(cell).join(', ')}${instances.length > 8 ? ', …' : ''}: build or import questions for ${instances.length === 1 ? 'it' : 'them'} (deltalens questions build / import)`,
        );
      }
      for (const e of result.errors.slice(0, 5)) say(`  failed: ${e}`);
    }
    return result.failed || result.interrupted ? EXIT.failed : EXIT.ok;
  } finally {
    ctrlC.off();
    db.close();
  }
}
