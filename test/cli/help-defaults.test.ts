/**
 * Every command's --help is true about the database it uses: where a help states the default of
 * --db, the command is run with a --db in a folder that does not exist, and what it then says
 * shows which store it would open — a store it creates ("cannot create …": import, trace,
 * instances import) or one it reads ("no database at …": ./deltalens.db if present, else the
 * demo). Every command's help is printed with exit 0.
 */
import {spawnSync} from 'node:child_process';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {PROJECTS_DIR, SAMPLE_DIR} from '../../source/services/demo.js';
import {BIN, runCli} from '../helpers/hostile.js';
import {tempDir} from '../helpers/files.js';

const COMMANDS = [
  'explore',
  'import',
  'trajectories',
  'instances',
  'show',
  'trace',
  'delta',
  'steps',
  'traces',
  'questions',
  'explanations',
  'score',
  'report',
  'audit',
  'reasoning',
  'lens',
  'annotate',
  'adjudicate',
  'agreement',
  'flags',
  'annotations',
  'build-demo',
];

const READS = 'default ./deltalens.db if present, else the bundled demo database';
const CREATES = 'default ./deltalens.db, created when missing';

const LEDGER = join(PROJECTS_DIR, 'ledger');
/** A form of each command that gets as far as opening its store, and the store it should open. */
const OPENS: {command: string; args: string[]; store: 'reads' | 'creates'}[] = [
  {command: 'import', args: ['import', join(SAMPLE_DIR, 'trajectories', 'demo-runs')], store: 'creates'},
  {command: 'trajectories', args: ['trajectories'], store: 'reads'},
  {command: 'instances', args: ['instances'], store: 'reads'},
  {
    command: 'instances',
    args: ['instances', 'import', join(SAMPLE_DIR, 'trajectories', 'swe-bench-instances', 'django__django-11099.json')],
    store: 'creates',
  },
  {command: 'lens', args: ['lens', 'report'], store: 'reads'},
  {
    command: 'trace',
    args: [
      'trace',
      '--repo',
      join(LEDGER, 'repo'),
      '--patch',
      join(LEDGER, 'patches', 'gold.diff'),
      '--test',
      'tests/test_account.py::test_small_deposits_keep_every_cent',
      '--python',
      'python3',
    ],
    store: 'creates',
  },
  {command: 'annotate', args: ['annotate', '--annotator', 'x'], store: 'reads'},
  {command: 'adjudicate', args: ['adjudicate', '--annotator', 'x'], store: 'reads'},
  {command: 'explore', args: ['explore'], store: 'reads'},
];

/** The text of a help's --db option (its line and the lines continuing it). */
function dbOption(help: string): string | null {
  const lines = help.split('\n');
  const at = lines.findIndex(l => /^\s+--db FILE\s/.test(l));
  if (at < 0) return null;
  const parts = [lines[at]!];
  for (let i = at + 1; i < lines.length && /^\s{6,}\S/.test(lines[i]!) && !/^\s+--/.test(lines[i]!); i++)
    parts.push(lines[i]!);
  return parts.map(p => p.trim()).join(' ');
}

/** The command in a pseudo-terminal (annotate, adjudicate and the explorer need one). */
function inTerminal(args: string[], cwd: string): string {
  const quoted = args.map(a => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const r = spawnSync('script', ['-qfec', `${process.execPath} ${BIN} ${quoted}`, '/dev/null'], {
    cwd,
    encoding: 'utf8',
    env: {...process.env, NO_COLOR: '1'},
    timeout: 60_000,
  });
  return r.stdout + r.stderr;
}

describe('--help', () => {
  it('every command prints its help, exit 0, starting with its usage', () => {
    for (const c of COMMANDS) {
      const r = runCli([c, '--help'], {});
      expect(r.code, c).toBe(0);
      expect(r.stdout, c).toMatch(/^Usage: deltalens /);
    }
  });

  it('where a help states the default --db, the command opens that store', () => {
    const cwd = tempDir();
    const stated = new Map<string, string>();
    for (const c of COMMANDS) {
      const option = dbOption(runCli([c, '--help'], {}).stdout);
      if (option && /default/.test(option)) stated.set(c, option);
    }
    // the helps that state it (the others say only that every command takes --db FILE)
    expect([...stated.keys()].sort()).toEqual([
      'adjudicate',
      'annotate',
      'explore',
      'import',
      'instances',
      'lens',
      'trace',
      'trajectories',
    ]);
    for (const o of OPENS) {
      const option = stated.get(o.command)!;
      expect(option, o.command).toContain(o.store === 'reads' ? READS : CREATES);
      const missing = join(cwd, 'no-such-folder', 'x.db');
      const said = ['annotate', 'adjudicate', 'explore'].includes(o.command)
        ? inTerminal([...o.args, '--db', missing], cwd)
        : (r => r.stdout + r.stderr)(
            spawnSync(process.execPath, [BIN, ...o.args, '--db', missing], {
              cwd,
              encoding: 'utf8',
              env: {...process.env, NO_COLOR: '1'},
            }),
          );
      expect(said, o.args.join(' ')).toContain(
        o.store === 'reads' ? `no database at ${missing}` : `cannot create the database ${missing}`,
      );
    }
  }, 120_000);
});
