/**
 * A real library as installed here: click, with its option-prefix fix in _split_opt taken out
 * of a copy (the buggy tree) and kept in another (the fixed tree), and a test it fails.
 */
import {spawnSync} from 'node:child_process';
import {cpSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';

const PY = process.env.DELTALENS_PYTHON ?? 'python3';
const FIX = '    if opt[1:2] == first:\n        return opt[:2], opt[2:]\n';
export const CLICK_TEST = 'tests/test_cli.py::test_long_option';
const TEST_SOURCE = [
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

/** The installed click package's folder, or null (tests skip). */
export function findClick(): string | null {
  const out = spawnSync(PY, ['-c', 'import click, os; print(os.path.dirname(click.__file__))'], {encoding: 'utf8'});
  return out.status === 0 ? out.stdout.trim() : null;
}

/** Whether this click still has the fix to take out. */
export const hasFix = (click: string) => readFileSync(join(click, 'parser.py'), 'utf8').includes(FIX);

/** The buggy and fixed trees under `dir` (each: click/ and tests/test_cli.py). */
export function clickTrees(
  click: string,
  dir: string,
  names: [string, string] = ['buggy', 'fixed'],
): {buggy: string; fixed: string; parser: string} {
  const [buggy, fixed] = names.map(n => join(dir, n)) as [string, string];
  for (const tree of [buggy, fixed]) {
    cpSync(click, join(tree, 'click'), {recursive: true, filter: src => !src.includes('__pycache__')});
    mkdirSync(join(tree, 'tests'));
    writeFileSync(join(tree, 'tests', 'test_cli.py'), TEST_SOURCE);
  }
  const parser = join(buggy, 'click', 'parser.py');
  const source = readFileSync(parser, 'utf8');
  if (!source.includes(FIX)) throw new Error(`${click}/parser.py has no _split_opt prefix fix to take out`);
  writeFileSync(parser, source.replace(FIX, ''));
  return {buggy, fixed, parser};
}
