/**
 * Question construction on a real library installed here: click, with its option-prefix fix
 * in _split_opt undone (the buggy tree), the fix back as the developer's and an agent's patch.
 */
import {spawnSync} from 'node:child_process';
import {cpSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {buildQuestions} from '../../source/services/question-build.js';
import {freshDb} from '../helpers/db.js';
import {tempDir} from '../helpers/files.js';

const PY = process.env.DELTALENS_PYTHON ?? 'python3';
const found = spawnSync(PY, ['-c', 'import click, os; print(os.path.dirname(click.__file__))'], {encoding: 'utf8'});
const click = found.status === 0 ? found.stdout.trim() : null;
const FIX = '    if opt[1:2] == first:\n        return opt[:2], opt[2:]\n';
const TEST = [
  'import click',
  'from click.testing import CliRunner',
  '',
  'def test_long_option():',
  '    @click.command()',
  '    @click.option("--name", default="world")',
  '    @click.option("-c", "--count", default=1, type=int)',
  '    def hello(name, count):',
  '        for _ in range(count):',
  '            click.echo("hello %s" % name)',
  '',
  '    result = CliRunner().invoke(hello, ["--name=ada", "-c", "2"])',
  '    assert result.exit_code == 0, result.output',
  '    assert result.output == "hello ada\\nhello ada\\n"',
  '',
].join('\n');

describe.skipIf(!click || !readFileSync(join(click ?? '.', 'parser.py'), 'utf8').includes(FIX))('questions build on a real library (click)', () => {
  it('builds all four types: the asserted output, the outcomes, and _split_opt\'s return value at the delta', async () => {
    const dir = tempDir();
    for (const tree of ['buggy', 'fixed']) {
      cpSync(click!, join(dir, tree, 'click'), {recursive: true, filter: src => !src.includes('__pycache__')});
      mkdirSync(join(dir, tree, 'tests'));
      writeFileSync(join(dir, tree, 'tests', 'test_cli.py'), TEST);
    }
    const parser = join(dir, 'buggy', 'click', 'parser.py');
    writeFileSync(parser, readFileSync(parser, 'utf8').replace(FIX, ''));
    const diff = spawnSync('diff', ['-u', '--label', 'a/click/parser.py', '--label', 'b/click/parser.py', parser, join(dir, 'fixed', 'click', 'parser.py')], {encoding: 'utf8'}).stdout;
    writeFileSync(join(dir, 'fix.diff'), diff);
    const r = await buildQuestions(freshDb().db, {
      instance: 'click__split-opt',
      buggyDir: join(dir, 'buggy'),
      fixedDir: join(dir, 'fixed'),
      agentPatches: [{name: 'refixed', file: join(dir, 'fix.diff')}],
      test: 'tests/test_cli.py::test_long_option',
      python: PY,
      sandbox: 'prefer', // the library as installed here, our own test
      seed: 0,
      timeoutS: 120,
      types: ['e2e_intent', 'e2e_effect', 'local_intent', 'local_effect'],
    });
    expect(r.excluded).toEqual([]);
    const key = (type: string) => {
      const q = r.questions.find(b => b.question.type === type)!.question;
      return q.answer.map(l => q.choices.find(c => c.label === l)!.text);
    };
    expect(key('e2e_intent')).toEqual(['"hello ada\\nhello ada\\n"']);
    expect(key('e2e_effect')).toEqual(['The test failed at line 13 with exception: AssertionError.', 'The test passed.']);
    expect(key('local_intent')).toEqual(['_split_opt(opt)']);
    expect(key('local_effect')).toEqual(['_split_opt(opt)']);
  }, 240_000);
});
