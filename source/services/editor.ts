/** Edit a text in $VISUAL / $EDITOR (argument array, never a shell); null when unchanged or aborted. */
import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

function editorCommand(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = (env.VISUAL || env.EDITOR || 'vi').trim();
  return raw.split(/\s+/);
}

export function editText(
  initial: string,
  env: NodeJS.ProcessEnv = process.env,
  name = 'explanation.md',
): {text: string | null; error?: string} {
  const dir = mkdtempSync(join(tmpdir(), 'deltalens-edit-'));
  const file = join(dir, name);
  try {
    writeFileSync(file, initial);
    const [cmd, ...args] = editorCommand(env);
    const r = spawnSync(cmd!, [...args, file], {stdio: 'inherit'});
    if (r.error) return {text: null, error: `cannot run ${cmd}: ${r.error.message} (set $EDITOR)`};
    if (r.status !== 0) return {text: null, error: `${cmd} exited with ${r.status}: the edit was not saved`};
    const text = readFileSync(file, 'utf8');
    return {text: text === initial ? null : text};
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
}
