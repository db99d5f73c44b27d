/**
 * One registry of trajectory formats: what `import --format` accepts and lists, what the importer
 * parses with, and docs/import.md's table all come from it.
 */
import {readdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {formatTable, toolKind, TRAJECTORY_FORMATS} from '../../source/core/trajectory/formats.js';
import {getSteps, listTrajectories} from '../../source/store/trajectories.js';
import {IMPORT_FORMATS} from '../../source/services/importer.js';
import {freshDb, importInto} from '../helpers/db.js';
import {SAMPLES, tempDir} from '../helpers/files.js';
import {ROOT} from '../helpers/paths.js';
import {runCli} from '../helpers/hostile.js';

describe('the trajectory-format registry', () => {
  it('docs/import.md shows its table; import --help and --format name every format in it', () => {
    expect(readFileSync(join(ROOT, 'docs', 'import.md'), 'utf8')).toContain(formatTable());
    const help = runCli(['import', '--help'], {}).stdout;
    for (const f of TRAJECTORY_FORMATS)
      expect(help).toMatch(new RegExp(`^\\s+${f.name}\\s+${f.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    expect([...IMPORT_FORMATS]).toEqual(['auto', ...TRAJECTORY_FORMATS.map(f => f.name)]);
  });

  it('each format with a parser reads its real sample file when named with --format', () => {
    const samples: Record<string, string> = {
      'mini-swe-agent': join(SAMPLES, 'mini-swe-agent', 'django__django-11099.traj.json'),
      'swe-agent': join(SAMPLES, 'swe-agent', 'pydicom__pydicom-1458.traj'),
      openhands: join(SAMPLES, 'openhands', 'basic.json'),
    };
    for (const f of TRAJECTORY_FORMATS.filter(x => x.parse)) {
      const {db} = freshDb();
      const r = importInto(db, [samples[f.name]!], {format: f.name});
      expect(r.failed, f.name).toEqual([]);
      expect(
        r.added.map(a => a.format),
        f.name,
      ).toEqual([f.name]);
    }
  });
});

/** The lens state each step of the one run in `file` was labelled with, after a real import. */
function statesOf(
  file: string,
  format: 'openhands' | 'jsonl',
): {kind: string; files: {path: string; lines?: number[]}[]}[] {
  const {db} = freshDb();
  const r = importInto(db, [file], {format});
  expect(r.failed).toEqual([]);
  const [t] = listTrajectories(db, {});
  return getSteps(db, t!.id).map(s => (JSON.parse(s.labellerRule!) as {state: never}).state);
}

describe("each format's tool names, mapped beside its parser", () => {
  it('the lens compares no tool name: every format-specific name is mapped by the formats, none is in core/lens', () => {
    const lens = readdirSync(join(ROOT, 'source', 'core', 'lens'))
      .map(f => readFileSync(join(ROOT, 'source', 'core', 'lens', f), 'utf8'))
      .join('\n');
    // the lens's own words for states are not tool names
    const states = new Set(['read', 'edit', 'create', 'submit', 'think', 'search']);
    const names = new Set(TRAJECTORY_FORMATS.flatMap(f => Object.keys(f.tools)));
    expect(names.size).toBeGreaterThan(15);
    for (const name of names) if (!states.has(name)) expect(lens, name).not.toContain(`'${name}'`);
    expect(lens).not.toMatch(/\btool\s*===/);
  });

  it('one name means what its format means: OpenHands edit is a file editor, SWE-agent edit lines of the open file', () => {
    expect(toolKind('openhands', 'edit')).toBe('file-editor');
    expect(toolKind('swe-agent', 'edit')).toBe('viewer-edit');
    expect(toolKind('openhands', 'AgentFinishAction')).toBe('submit');
    expect(toolKind('mini-swe-agent', 'bash')).toBe('shell');
    expect(toolKind('swe-agent', 'python')).toBe('shell');
    expect(toolKind('openhands', null)).toBeNull();
    // deltalens' JSONL carries any agent's steps: every format's names, SWE-agent's edit
    expect(toolKind('jsonl', 'scroll_down')).toBe('viewer-open');
    expect(toolKind('jsonl', 'AgentThinkAction')).toBe('think');
    expect(toolKind('jsonl', 'edit')).toBe('viewer-edit');
  });

  it('an OpenHands edit action without a tool call (older runs) is an edit of its path, not of no file', () => {
    const dir = tempDir();
    const file = join(dir, 'run.json');
    writeFileSync(
      file,
      JSON.stringify([
        {id: 0, source: 'user', action: 'message', args: {content: 'fix the parser'}},
        {
          id: 1,
          source: 'agent',
          action: 'edit',
          args: {path: '/workspace/pkg/parse.py', content: 'x = 1\n', thought: 'fix it'},
        },
        {id: 2, source: 'agent', cause: 1, observation: 'edit', content: 'edited'},
        {id: 3, source: 'agent', action: 'finish', args: {outputs: {}, thought: 'done'}},
      ]),
    );
    const states = statesOf(file, 'openhands');
    expect(states.map(s => s.kind)).toEqual(['edit', 'submit']);
    expect(states[0]!.files).toEqual([{path: 'pkg/parse.py'}]);
  });

  it("a JSONL run with SWE-agent's viewer: open a file, then edit lines of it", () => {
    const dir = tempDir();
    const file = join(dir, 'run.jsonl');
    const line = (o: object) => JSON.stringify(o);
    writeFileSync(
      file,
      [
        line({type: 'trajectory', instance: 'x__y-1', agent: 'a', model: 'm'}),
        line({type: 'step', tool: 'open', action: 'open src/mod.py 40'}),
        line({type: 'step', tool: 'edit', action: 'edit 42:44\n    return 1\nend_of_edit'}),
        line({type: 'step', tool: 'bash', action: 'python -m pytest -q'}),
        '',
      ].join('\n'),
    );
    const states = statesOf(file, 'jsonl');
    expect(states.map(s => s.kind)).toEqual(['read', 'edit', 'run-test']);
    expect(states[0]!.files).toEqual([{path: 'src/mod.py', lines: [40, 140]}]);
    expect(states[1]!.files).toEqual([{path: 'src/mod.py', lines: [42, 44]}]);
  });
});
