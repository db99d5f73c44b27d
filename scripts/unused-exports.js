// Exports no other file uses: each `export` of source/ is looked for, as a whole word, in every
// other file of source/, test/, scripts/ and bin/. One used nowhere at all is dead code; one used
// only in its own file should not be exported. Either fails the check (exit 1), each named.
import {readdirSync, readFileSync} from 'node:fs';
import {join, relative} from 'node:path';
import {fileURLToPath} from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const walk = dir =>
  readdirSync(dir, {withFileTypes: true}).flatMap(e =>
    e.name === 'node_modules' || e.name === 'out' || e.name === '__pycache__'
      ? []
      : e.isDirectory()
        ? walk(join(dir, e.name))
        : /\.(ts|tsx|js)$/.test(e.name)
          ? [join(dir, e.name)]
          : [],
  );
const sources = walk(join(root, 'source'));
const all = [...sources, ...walk(join(root, 'test')), ...walk(join(root, 'scripts')), ...walk(join(root, 'bin'))];
const text = new Map(all.map(f => [f, readFileSync(f, 'utf8')]));
const DECL =
  /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;
const nowhere = [];
const own = [];
for (const file of sources) {
  const body = text.get(file);
  for (const m of body.matchAll(DECL)) {
    const name = m[1];
    const word = new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`, 'g');
    const elsewhere = all.some(f => f !== file && word.test(text.get(f)));
    if (elsewhere) continue;
    const uses = (body.match(word) ?? []).length;
    (uses > 1 ? own : nowhere).push(`${relative(root, file)}: ${name}`);
  }
}
for (const x of own) console.error(`exported, but used only in its own file: ${x}`);
for (const x of nowhere) console.error(`exported and used nowhere: ${x}`);
if (nowhere.length || own.length)
  console.error(`exports: ${nowhere.length} used nowhere, ${own.length} used only in their own file`);
process.exit(nowhere.length || own.length ? 1 : 0);
