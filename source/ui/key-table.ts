import type {Scope} from './keys.js';
import {ALL_BINDINGS, SCREENS} from './screens/index.js';

/** Where each scope's keys work, in the words of the help overlay. */
const PLACES: Record<Scope, string> = {
  global: 'every explorer screen',
  ...(Object.fromEntries(Object.values(SCREENS).map(d => [d.kind, d.title.toLowerCase()])) as Record<
    Exclude<Scope, 'global' | 'textField' | 'stagePrompt' | 'picker' | 'annotate' | 'adjudicate'>,
    string
  >),
  textField: 'a line being typed',
  stagePrompt: 'the stage prompt',
  picker: 'a list being chosen from',
  annotate: 'annotate',
  adjudicate: 'adjudicate',
};

/** readme.md's key table: every binding once, with where it works (`npm run keys` prints it). */
export function keyTable(): string {
  const rows = ALL_BINDINGS.map(
    b => `| ${b.keys.replace(/\|/g, '\\|')} | ${b.description} | ${b.scopes.map(s => PLACES[s]).join(', ')} |`,
  );
  return ['| keys | what | where |', '|---|---|---|', ...rows].join('\n');
}
