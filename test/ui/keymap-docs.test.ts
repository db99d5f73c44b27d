import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {keyTable} from '../../source/ui/key-table.js';
import {ALL_BINDINGS} from '../../source/ui/screens/index.js';
import {ROOT} from '../helpers/paths.js';

describe('the key table (docs/keys.md, linked from the readme)', () => {
  it('is the table the bindings make: every key of the explorer, annotate and adjudicate, once', () => {
    const readme = readFileSync(join(ROOT, 'docs', 'keys.md'), 'utf8');
    expect(readme).toContain(keyTable());
    for (const b of ALL_BINDINGS) expect(readme).toContain(`| ${b.keys.replace(/\|/g, '\\|')} | ${b.description} |`);
  });
});
