import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {BINDINGS} from '../../source/ui/keymap.js';
import {ROOT} from '../helpers/paths.js';

describe('readme key table', () => {
  it('lists every key binding with its description', () => {
    const readme = readFileSync(join(ROOT, 'readme.md'), 'utf8');
    for (const b of BINDINGS) expect(readme).toContain(`| ${b.keys.replace(/\|/g, '\\|')} | ${b.description} |`);
  });
});
