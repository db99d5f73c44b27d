/**
 * The project's boundaries, checked on the source tree: the store owns every SQL statement, and
 * core/ is pure (it imports only core/ itself — no UI, SQLite, processes, files or network,
 * whether by a package name, a relative path that leaves core/, or a dynamic import).
 */
import {readdirSync, readFileSync} from 'node:fs';
import {dirname, join, relative, resolve, sep} from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT} from './helpers/files.js';

const SOURCE = join(ROOT, 'source');

function files(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap(e =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Lines that run SQL: prepared statements, pragmas, transactions, and exec of a statement text. */
export function sqlLines(text: string): string[] {
  return text.split('\n').filter(line => /\.(prepare|pragma|transaction)\(|\bdb\.exec\(|\.exec\(\s*['"`]/.test(line));
}

/** Every module a file imports: static, re-exported, side-effect, dynamic and require(). */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\bfrom\s+['"]([^'"]+)['"]/g,
    /\bimport\s+['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const p of patterns) for (const m of text.matchAll(p)) out.push(m[1]!);
  return out;
}

/** The imports of a core/ file that are not core/ itself. */
export function impureImports(file: string, text: string, core: string): string[] {
  return importsOf(text).filter(spec => {
    if (!spec.startsWith('.')) return true; // a package or a node: module
    const target = resolve(dirname(file), spec);
    return target !== core && !target.startsWith(core + sep);
  });
}

describe('the checkers', () => {
  it('find SQL and impure imports in samples written to break the rules', () => {
    expect(sqlLines("const x = db.prepare('SELECT 1').get();\nconst y = 1;")).toHaveLength(1);
    expect(sqlLines("db.exec('BEGIN IMMEDIATE');")).toHaveLength(1);
    expect(sqlLines("  this.db.pragma('journal_mode = WAL');")).toHaveLength(1);
    expect(sqlLines('const m = /x/.exec(text);')).toEqual([]);
    const core = join(SOURCE, 'core');
    const file = join(core, 'trace', 'x.ts');
    const bad = [
      "import Database from 'better-sqlite3';",
      "import {readFileSync} from 'node:fs';",
      "import {openDb} from '../../store/db.js';",
      "export {x} from '../../services/tracing.js';",
      "const m = await import('../../ui/app.js');",
      "const f = require('fs');",
      "import 'react';",
    ];
    for (const line of bad) expect(impureImports(file, line, core), line).toHaveLength(1);
    expect(
      impureImports(
        file,
        "import {LineMap} from './line-map.js';\nimport type {Q} from '../questions/model.js';",
        core,
      ),
    ).toEqual([]);
  });
});

describe('boundaries of the source tree', () => {
  it('the store owns every SQL statement: none outside source/store/', () => {
    const offenders = files(SOURCE)
      .filter(f => !f.startsWith(join(SOURCE, 'store') + sep))
      .flatMap(f => sqlLines(readFileSync(f, 'utf8')).map(line => `${relative(ROOT, f)}: ${line.trim()}`));
    expect(offenders).toEqual([]);
  });

  it('core/ imports nothing but core/', () => {
    const core = join(SOURCE, 'core');
    const offenders = files(core).flatMap(f =>
      impureImports(f, readFileSync(f, 'utf8'), core).map(spec => `${relative(ROOT, f)}: ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the explorer's reducers (ui/state.ts, each screen's keys.ts) read and write nothing: no store, service, runner or React value", () => {
    const ui = join(SOURCE, 'ui');
    const reducers = [join(ui, 'state.ts'), ...files(join(ui, 'screens')).filter(f => f.endsWith(`${sep}keys.ts`))];
    expect(reducers.length).toBeGreaterThan(10);
    const forbidden = [join(SOURCE, 'store'), join(SOURCE, 'services'), join(ui, 'data.ts'), join(ui, 'intents.ts')];
    const offenders = reducers.flatMap(f =>
      valueImports(readFileSync(f, 'utf8'))
        .filter(spec =>
          spec.startsWith('.')
            ? forbidden.some(x => resolve(dirname(f), spec).replace(/\.js$/, '.ts').startsWith(x))
            : ['react', 'ink', 'better-sqlite3', 'execa', 'openai'].includes(spec),
        )
        .map(spec => `${relative(ROOT, f)}: ${spec}`),
    );
    expect(offenders).toEqual([]);
  });
});

/** Imports that bring values (an `import type` brings none). */
function valueImports(text: string): string[] {
  return importsOf(
    text
      .split('\n')
      .filter(l => !/^\s*import\s+type\b/.test(l))
      .join('\n'),
  );
}
