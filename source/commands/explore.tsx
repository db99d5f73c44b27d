import {say, warn} from './output.js';
import {render} from 'ink';
import {basename} from 'node:path';
import {App} from '../ui/app.js';
import {storeData} from '../ui/data/index.js';
import {themeFromEnv} from '../ui/theme.js';
import {COMMON_OPTIONS, EXIT, parse, positiveInt, UsageError} from './args.js';
import {passEnvOption} from './pass-env.js';
import {linkStack, type DeepLink} from '../ui/state.js';
import {getTrajectory} from '../store/trajectories.js';
import {getPair, listPairs} from '../store/traces.js';
import {getQuestion, listExplanations} from '../store/questions.js';
import {getInstance} from '../store/instances.js';
import type {Db} from '../store/db.js';
import {NotFound} from './show.js';
import {EXPLORE_HELP} from './explore-help.js';
import {chooseDb, openStore} from './db-path.js';
import {ensureDemoQuick} from './demo.js';
import {BUILD_LOG, DEMO_DB, demoBuildStatus} from '../services/demo.js';
import {openDb} from '../store/db.js';
import {teamUrl} from '../services/team.js';
import {syncOrSay} from './team.js';

export async function runExplore(argv: string[]): Promise<number> {
  const {values} = parse(
    argv,
    {
      db: COMMON_OPTIONS.db,
      help: COMMON_OPTIONS.help,
      demo: {type: 'boolean'},
      pair: {type: 'string'},
      trajectory: {type: 'string'},
      step: {type: 'string'},
      question: {type: 'string'},
      agent: {type: 'string'},
      instance: {type: 'string'},
      'no-sandbox': {type: 'boolean'},
      'pass-env': {type: 'string', multiple: true},
      team: {type: 'string'},
    },
    false,
  );
  const passEnv = passEnvOption(values['pass-env']);
  if (values.help) {
    say(EXPLORE_HELP);
    return EXIT.ok;
  }
  const pair = positiveInt(values.pair, '--pair');
  const trajectory = positiveInt(values.trajectory, '--trajectory');
  const step = positiveInt(values.step, '--step');
  const links = [pair, trajectory, values.question, values.instance].filter(x => x !== undefined).length;
  if (links > 1) throw new UsageError('open one place: --pair, --trajectory, --question or --instance');
  if (step !== undefined && trajectory === undefined) throw new UsageError('--step goes with --trajectory N');
  if (step === 0) throw new UsageError('--step counts steps from 1');
  if (values.agent !== undefined && values.question === undefined)
    throw new UsageError('--agent goes with --question ID');
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    warn(
      'deltalens: the explorer needs an interactive terminal; for scripts use `deltalens trajectories --json` (see deltalens --help)',
    );
    return EXIT.failed;
  }
  // the demo opens on its quick part; its traced part is built beside the explorer
  const chosen = values.demo ? {path: DEMO_DB, demo: true} : chooseDb(values.db);
  const finisher = chosen.demo ? await ensureDemoQuick() : null;
  // a team's labels, reviews and corrections first; this session's go when it ends
  const team = chosen.demo ? undefined : teamUrl(values.team);
  const syncTeamNow = async () => {
    if (!team) return;
    const {db: writer} = await openStore(values.db, 'write');
    try {
      await syncOrSay(writer, team);
    } finally {
      writer.close();
    }
  };
  await syncTeamNow();
  const {db, ...target} = chosen.demo
    ? {db: openDb(DEMO_DB, {mode: 'read'}), ...chosen}
    : await openStore(values.db, 'read');
  try {
    const label = target.demo ? 'demo data' : basename(target.path);
    const link = resolveLink(db, {
      pair,
      trajectory,
      step,
      question: values.question,
      agent: values.agent,
      instance: values.instance,
    });
    const initial = link ? {stack: linkStack(link)} : undefined;
    if (values['no-sandbox'])
      warn('deltalens: warning: --no-sandbox: live re-runs (L) of patches run unconfined, outside the sandbox');
    const data = storeData(db, label, {noSandbox: values['no-sandbox'], passEnv});
    const background = finisher === null ? undefined : () => demoBuildStatus(finisher);
    const instance = render(<App data={data} theme={themeFromEnv()} initial={initial} background={background} />, {
      exitOnCtrlC: false,
    });
    await instance.waitUntilExit();
    if (background) {
      const b = background();
      if (b.state === 'running' || b.state === 'starting')
        warn(
          `deltalens: the demo's traced part (pairs, built questions, audits) is still being built in the background by process ${finisher}; the next start shows it (progress in ${BUILD_LOG})`,
        );
      else if (b.state === 'failed') warn(`deltalens: ${b.text}`);
    }
    // quit while an audit runs: it is stopped and marked incomplete before the store closes
    data.effects.cancelJobs();
    await data.effects.whenIdle();
  } finally {
    db.close();
  }
  await syncTeamNow();
  return EXIT.ok;
}

/** A deep link checked against the store: what it names must exist (else one line, exit 1). */
export function resolveLink(
  db: Db,
  o: {pair?: number; trajectory?: number; step?: number; question?: string; agent?: string; instance?: string},
): DeepLink | undefined {
  if (o.instance !== undefined) {
    if (!getInstance(db, o.instance)) throw new NotFound(`no instance ${o.instance} (deltalens instances lists them)`);
    return {kind: 'instance', instance: o.instance};
  }
  if (o.pair !== undefined) {
    if (!getPair(db, o.pair)) throw new NotFound(`no traced pair #${o.pair} (deltalens traces lists them)`);
    // the pairs list lists them by id: the pair's row there
    return {kind: 'pair', pair: o.pair, index: listPairs(db).findIndex(p => p.id === o.pair)};
  }
  if (o.trajectory !== undefined) {
    const t = getTrajectory(db, o.trajectory, 0);
    if (!t) throw new NotFound(`no trajectory with id ${o.trajectory}`);
    if (o.step !== undefined && o.step > t.steps)
      throw new NotFound(`trajectory ${o.trajectory} has ${t.steps} steps (asked for step ${o.step})`);
    return {kind: 'trajectory', trajectory: o.trajectory, step: o.step === undefined ? undefined : o.step - 1};
  }
  if (o.question !== undefined) {
    const q = getQuestion(db, o.question);
    if (!q) throw new NotFound(`no question ${o.question} (deltalens questions list)`);
    // the explanation the question screen shows: the agent's, original first
    const mine = listExplanations(db)
      .filter(e => e.instance === q.instance && e.agent !== null && (o.agent === undefined || e.agent === o.agent))
      .sort((a, b) => Number(b.kind === 'original') - Number(a.kind === 'original') || a.id - b.id);
    if (!mine.length && o.agent) throw new NotFound(`${o.agent} has no explanation for ${q.instance}`);
    // a question no explanation answers yet (just built, say) opens on its own, to be reviewed
    if (!mine.length)
      return {kind: 'question', question: q.id, agent: q.agent ?? '(no explanation yet)', explanations: 'original'};
    return {kind: 'question', question: q.id, agent: mine[0]!.agent!, explanations: mine[0]!.kind};
  }
  return undefined;
}
