import {say, warn} from './output.js';
import {render} from 'ink';
import React from 'react';
import {basename} from 'node:path';
import {App} from '../ui/app.js';
import {storeData} from '../ui/data.js';
import {themeFromEnv} from '../ui/theme.js';
import {COMMON_OPTIONS, EXIT, parse, positiveInt, UsageError} from './args.js';
import {parsePassEnv} from '../services/sandbox.js';
import {stepperScreen} from '../ui/state.js';
import {EXPLORE_HELP} from './explore-help.js';
import {openDemoStore, openStore} from './db-path.js';

export async function runExplore(argv: string[]): Promise<number> {
  const {values} = parse(
    argv,
    {db: COMMON_OPTIONS.db, help: COMMON_OPTIONS.help, demo: {type: 'boolean'}, pair: {type: 'string'}, 'no-sandbox': {type: 'boolean'}, 'pass-env': {type: 'string', multiple: true}},
    false,
  );
  let passEnv: string[];
  try {
    passEnv = parsePassEnv(values['pass-env']);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) {
    say(EXPLORE_HELP);
    return EXIT.ok;
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    warn('deltalens: the explorer needs an interactive terminal; for scripts use `deltalens trajectories --json` (see deltalens --help)');
    return EXIT.failed;
  }
  const {db, ...target} = values.demo ? await openDemoStore() : await openStore(values.db, 'read');
  try {
    const label = target.demo ? 'demo data' : basename(target.path);
    const pair = positiveInt(values.pair, '--pair');
    const initial = pair === undefined ? undefined : {stack: [{kind: 'pairs' as const, list: {cursor: 0, top: 0}}, stepperScreen(pair)]};
    if (values['no-sandbox']) warn('deltalens: warning: --no-sandbox: live re-runs (L) of patches run unconfined, outside the sandbox');
    const instance = render(<App data={storeData(db, label, {noSandbox: values['no-sandbox'], passEnv})} theme={themeFromEnv()} initial={initial} />, {exitOnCtrlC: false});
    await instance.waitUntilExit();
  } finally {
    db.close();
  }
  return EXIT.ok;
}
