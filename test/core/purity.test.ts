import {readdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/files.js';

function files(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap(e => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('source/core stays pure', () => {
  it('imports no UI, SQLite, process or file-system module', () => {
    const offenders = files(join(ROOT, 'source', 'core')).filter(file =>
      /from ['"](react|ink|better-sqlite3|execa|openai|node:child_process|node:fs|fs|child_process)['"/]/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
