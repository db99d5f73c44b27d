/**
 * AgentLens states: what a step's action does. Pure: from what its tool does (a ToolKind: each
 * trajectory format maps its own tool names to these, beside its parser — the lens knows no
 * format), its arguments and action text (and, for a viewer's `edit`, the file the run has open).
 */
import type {ToolKind} from '../trajectory/tools.js';

type StateKind =
  | 'read'
  | 'search'
  | 'list'
  | 'edit'
  | 'create'
  | 'run-test'
  | 'run-script'
  | 'other-shell'
  | 'think'
  | 'submit';

type CommandGroup = 'search' | 'read' | 'list' | 'test' | 'script' | 'install' | 'vcs' | 'cleanup' | 'edit' | 'other';

interface FileTarget {
  path: string;
  /** inclusive line range, when the action names one */
  lines?: [number, number];
  /** the enclosing function or class (`Class.method`), when the source was available to Python's ast */
  scope?: string;
}

export interface ActionState {
  kind: StateKind;
  files: FileTarget[];
  /** a normalized command (first line, whitespace collapsed) and its group, for shell actions */
  command?: string;
  group?: CommandGroup;
  /** an edit whose command also runs tests or code (`cat > t.py && python t.py`, a Python heredoc that patches and then imports the project) */
  alsoRuns?: 'test' | 'script';
}

export interface StepInput {
  /** what the step's tool does; null: the step has no tool */
  kind: ToolKind | null;
  args: Record<string, unknown> | null;
  actionText: string | null;
}

const SUBMIT = /COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT|\bsubmit\b\s*$/;

function normalize(cmd: string): string {
  return cmd.split('\n')[0]!.replace(/\s+/g, ' ').trim().slice(0, 200);
}

function clean(path: string): string {
  return path
    .replace(/^['"]|['"]$/g, '')
    .replace(/^\/(workspace|testbed|repo)\//, '')
    .replace(/^\.\//, '');
}

const TEST_CMD =
  /(^|[\s;&|(])(pytest|py\.test|tox|nox)\b|python[0-9.]*\s+-m\s+(pytest|unittest)\b|runtests\.py|manage\.py\s+test\b|\bbin\/test\b|\bmake\s+test\b/;

/** Files a shell command writes: sed -i, redirection, tee, heredocs, a Python heredoc that writes. */
function writtenFiles(cmd: string): string[] {
  const out = new Set<string>();
  // redirections and tee count only outside heredoc bodies and quoted strings (`print("a -> b")`)
  const bare = withoutHeredocs(cmd).replace(/'[^'\n]*'|"(?:[^"\\\n]|\\.)*"/g, "''");
  for (const m of withoutHeredocs(cmd).matchAll(
    /\bsed\s+(?:-[a-zA-Z]*i[a-zA-Z]*|--in-place)(?:\S*)?\s+(?:-e\s+)?(?:'[^']*'|"[^"]*"|\S+)\s+([^\s;&|]+)/g,
  ))
    out.add(clean(m[1]!));
  for (const m of bare.matchAll(/(?:^|[^>2&-])>{1,2}\s*([^\s;&|<>]+)/g)) {
    const p = clean(m[1]!);
    if (!/^&/.test(p) && !/^\d$/.test(p)) out.add(p);
  }
  for (const m of bare.matchAll(/\btee\s+(?:-a\s+)?([^\s;&|]+)/g)) out.add(clean(m[1]!));
  // mv/cp onto a file: the destination is written (`awk … > /tmp/x && mv /tmp/x src/a.py`)
  for (const m of bare.matchAll(
    /(?:^|[\s;&|(])(?:mv|cp)\s+(?:-\w+\s+)*[^\s;&|]+\s+([^\s;&|]+\.\w+)(?=\s*(?:$|[;&|)]))/gm,
  ))
    out.add(clean(m[1]!));
  // perl -pi / -i in place: the file arguments of that command
  for (const segment of bare.split(/&&|\|\||;|\|/)) {
    if (/^\s*perl\b/.test(segment) && /\s-[a-zA-Z0-9]*i\b/.test(segment)) {
      const files = segment.replace(/'[^']*'|"[^"]*"/g, ' ').match(/[\w./-]+\.\w+/g) ?? [];
      for (const f of files) out.add(clean(f));
    }
  }
  if (/python[0-9.]*\s+-\s*<</.test(cmd) || /python[0-9.]*\s+-c\b/.test(cmd))
    for (const f of pythonWrites(cmd)) out.add(clean(f));
  // a patch applied from a heredoc (`git apply <<'PATCH'`, `patch -p1 <<EOF`): the files it names
  if (/(?:^|[\s;&|(])(?:git\s+apply|patch)\b[^\n]*<</.test(cmd)) for (const f of patchedFiles(cmd)) out.add(clean(f));
  // scratch files outside the project are not edits of it
  return [...out].filter(p => !/^\/(dev|tmp|proc)\//.test(p));
}

/**
 * Files a Python program given on the command line writes: `open(X, 'w')` / `io.open(X, 'a')` /
 * `open(X, mode='w')`, `Path(X).write_text(…)`, where X is a string, or a name bound to a
 * string or a `Path(…)` of one earlier in the program (`p = "pkg/mod.py"` … `open(p, "w")`,
 * `p = Path('a.py')` … `p.write_text(s)`).
 */
function pythonWrites(cmd: string): string[] {
  const out = new Set<string>();
  const names = new Map<string, string>();
  for (const m of cmd.matchAll(
    /^[ \t]*([A-Za-z_]\w*)\s*=\s*(?:(?:pathlib\.)?Path\(\s*)?['"]([^'"\n]+)['"]\s*\)?[ \t]*(?:#.*)?$/gm,
  ))
    names.set(m[1]!, m[2]!);
  const target = (arg: string) => (/^['"]/.test(arg) ? arg.slice(1, -1) : (names.get(arg) ?? null));
  const ARG = String.raw`('[^'\n]+'|"[^"\n]+"|[A-Za-z_]\w*)`;
  const opens = new RegExp(String.raw`\b(?:io\.|codecs\.)?open\(\s*${ARG}\s*,\s*(?:mode\s*=\s*)?['"][rb+]*[wax]`, 'g');
  const pathWrites = new RegExp(String.raw`\b(?:pathlib\.)?Path\(\s*${ARG}\s*\)\s*\.\s*write_(?:text|bytes)\(`, 'g');
  const nameWrites = /\b([A-Za-z_]\w*)\s*\.\s*write_(?:text|bytes)\(/g;
  for (const re of [opens, pathWrites])
    for (const m of cmd.matchAll(re)) {
      const t = target(m[1]!);
      if (t) out.add(t);
    }
  for (const m of cmd.matchAll(nameWrites)) {
    const t = names.get(m[1]!);
    if (t) out.add(t);
  }
  return [...out];
}

/** The files a patch given in a heredoc names: unified diffs (`+++ b/x`, `diff --git a/x b/x`)
 * and the apply_patch form (`*** Update File: x`, `*** Add File: x`). */
function patchedFiles(cmd: string): string[] {
  const out = new Set<string>();
  for (const m of cmd.matchAll(/^\+\+\+\s+(?:b\/)?([^\s]+)/gm)) if (m[1] !== '/dev/null') out.add(m[1]!);
  for (const m of cmd.matchAll(/^diff --git a\/\S+ b\/(\S+)/gm)) out.add(m[1]!);
  for (const m of cmd.matchAll(/^\*\*\* (?:Update|Add) File:\s*(\S+)/gm)) out.add(m[1]!);
  return [...out];
}

function readFiles(cmd: string): FileTarget[] {
  const out: FileTarget[] = [];
  const range = /sed\s+-n\s+['"]?(\d+),(\d+)p/.exec(cmd);
  for (const m of cmd.matchAll(
    /\b(?:cat|nl(?:\s+-ba)?|head(?:\s+-n\s*\d+)?|tail(?:\s+-n\s*\d+)?|less|more|view)\s+([^\s|;&<>]+\.\w+)/g,
  )) {
    out.push({path: clean(m[1]!), ...(range ? {lines: [Number(range[1]), Number(range[2])] as [number, number]} : {})});
  }
  if (!out.length) {
    const m = /sed\s+-n\s+['"]?(\d+),(\d+)p['"]?\s+([^\s|;&]+)/.exec(cmd);
    if (m) out.push({path: clean(m[3]!), lines: [Number(m[1]), Number(m[2])]});
  }
  return out;
}

/** The command line without heredoc bodies (`<<'EOF' … EOF`). */
function withoutHeredocs(cmd: string): string {
  return cmd.replace(/<<-?\s*(['"]?)(\w+)\1([^\n]*)\n[\s\S]*?\n\s*\2\b/g, '<<$2$3');
}

const EDIT_ONLY_MODULES = new Set([
  'pathlib',
  're',
  'os',
  'sys',
  'io',
  'textwrap',
  'shutil',
  'json',
  'fileinput',
  'difflib',
  'ast',
  'codecs',
]);

/**
 * Whether a command that writes files also runs something: a test command, a `python x.py` in
 * a later part of the command line, or a Python heredoc / -c that imports modules other than
 * the ones used to edit files (it exercises the project after patching it).
 */
function alsoRuns(cmd: string): 'test' | 'script' | null {
  const outside = withoutHeredocs(cmd);
  if (TEST_CMD.test(outside)) return 'test';
  if (/(&&|;|\|\||\n)\s*python[0-9.]*\s+[^\s-][^\s]*\.py\b/.test(outside)) return 'script';
  const heredoc =
    /python[0-9.]*\s+-\s*<<-?\s*'?(\w+)'?\n([\s\S]*?)\n\1\b/.exec(cmd)?.[2] ??
    /python[0-9.]*\s+-c\s+(['"])([\s\S]*?)\1/.exec(cmd)?.[2];
  if (heredoc) {
    const modules = [...heredoc.matchAll(/^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))/gm)].map(
      m => (m[1] ?? m[2])!.split('.')[0]!,
    );
    if (modules.some(m => !EDIT_ONLY_MODULES.has(m)))
      return TEST_CMD.test(heredoc) || modules.includes('pytest') ? 'test' : 'script';
  }
  return null;
}

/** One shell command line (possibly `a && b`): the most telling part wins. */
export function shellState(cmd: string): ActionState {
  const command = normalize(cmd);
  if (SUBMIT.test(cmd)) return {kind: 'submit', files: [], command, group: 'other'};
  // the context agents' progress tools (mini-SWE-agent ContextProgressAgent): notes, no effect on the code
  if (/^\s*context_(todos|log|summary|commit)\b/.test(cmd)) return {kind: 'think', files: [], command, group: 'other'};
  const writes = writtenFiles(cmd);
  if (writes.length) {
    const runs = alsoRuns(cmd);
    // data written to run the program with (`printf … > templates/x.html && python3 - <<'PY' …`)
    // sets up a run: the command is the run, not an edit of the code
    if (runs && writes.every(isDataFile))
      return {
        kind: runs === 'test' ? 'run-test' : 'run-script',
        files: writes.map(path => ({path})),
        command,
        group: runs === 'test' ? 'test' : 'script',
      };
    return {
      kind: 'edit',
      files: writes.map(path => ({path})),
      command,
      group: 'edit',
      ...(runs ? {alsoRuns: runs} : {}),
    };
  }
  if (TEST_CMD.test(cmd)) return {kind: 'run-test', files: [], command, group: 'test'};
  if (/(^|[\s;&|(])python[0-9.]*\s+(-\s*<<|-c\b|[^\s-][^\s]*\.py\b)/.test(cmd)) {
    const script = /python[0-9.]*\s+([^\s-][^\s]*\.py)\b/.exec(cmd);
    return {kind: 'run-script', files: script ? [{path: clean(script[1]!)}] : [], command, group: 'script'};
  }
  if (/(^|[\s;&|(])(grep|rg|ag|ack|git\s+grep)\b|\bfind\s+\S+.*-(i?name|path|regex)\b/.test(cmd))
    return {kind: 'search', files: [], command, group: 'search'};
  const reads = readFiles(cmd);
  if (reads.length || /(^|[\s;&|(])(cat|nl|head|tail|sed\s+-n|less|more)\b/.test(cmd))
    return {kind: 'read', files: reads, command, group: 'read'};
  if (/(^|[\s;&|(])(ls|tree|find|pwd)\b/.test(cmd)) return {kind: 'list', files: [], command, group: 'list'};
  if (/\b(pip|pip3|conda|apt(-get)?|npm)\s+install\b|setup\.py\s+(develop|install)/.test(cmd))
    return {kind: 'other-shell', files: [], command, group: 'install'};
  if (/(^|[\s;&|(])rm\s|git\s+(checkout\s+--|stash|clean|reset)/.test(cmd))
    return {kind: 'other-shell', files: [], command, group: 'cleanup'};
  if (/(^|[\s;&|(])git\s+(diff|status|log|show|add|commit|apply)\b/.test(cmd))
    return {kind: 'other-shell', files: [], command, group: 'vcs'};
  return {kind: 'other-shell', files: [], command, group: 'other'};
}

const arg = (args: Record<string, unknown> | null, key: string) =>
  args && typeof args[key] === 'string' ? (args[key] as string) : null;

/** States for a run's steps in order (SWE-agent's `edit` applies to the file last opened). */
export function extractStates(steps: StepInput[]): ActionState[] {
  const next = stateExtractor();
  return steps.map(next);
}

/** One step at a time, in order (a streamed run). */
export function stateExtractor(): (step: StepInput) => ActionState {
  let openFile: string | null = null;
  return step => {
    const kind = step.kind;
    const text = step.actionText ?? arg(step.args, 'command') ?? '';
    if (!kind && !text.trim()) return {kind: 'think', files: []};
    if (kind === 'submit') return {kind: 'submit', files: []};
    if (kind === 'think') return {kind: 'think', files: []};
    if (kind === 'file-editor' || kind === 'file-read' || kind === 'file-write') {
      const path = clean(
        arg(step.args, 'path') ?? /(?:view|create|edit|str_replace|insert)\s+(\S+)/.exec(text)?.[1] ?? '',
      );
      const command = arg(step.args, 'command') ?? arg(step.args, 'action') ?? (kind === 'file-read' ? 'view' : '');
      const range = step.args?.view_range;
      if (command === 'view' || command === 'read') {
        return {
          kind: 'read',
          files: path
            ? [
                {
                  path,
                  ...(Array.isArray(range) && range.length === 2
                    ? {lines: [Number(range[0]), Number(range[1])] as [number, number]}
                    : {}),
                },
              ]
            : [],
        };
      }
      if (command === 'create' || kind === 'file-write') return {kind: 'create', files: path ? [{path}] : []};
      return {kind: 'edit', files: path ? [{path}] : []};
    }
    // a file viewer's commands (SWE-agent): the open file is the run's state
    if (kind === 'viewer-open') {
      const m = /^open\s+("[^"]+"|\S+)(?:\s+(\d+))?/.exec(text);
      if (m) openFile = clean(m[1]!);
      return {
        kind: 'read',
        files: openFile
          ? [{path: openFile, ...(m?.[2] ? {lines: [Number(m[2]), Number(m[2]) + 100] as [number, number]} : {})}]
          : [],
      };
    }
    if (kind === 'viewer-create') {
      const m = /^create\s+(\S+)/.exec(text);
      if (m) openFile = clean(m[1]!);
      return {kind: 'create', files: openFile ? [{path: openFile}] : []};
    }
    if (kind === 'viewer-edit') {
      const m = /^edit\s+(\d+):(\d+)/.exec(text);
      return {
        kind: 'edit',
        files: openFile
          ? [{path: openFile, ...(m ? {lines: [Number(m[1]), Number(m[2])] as [number, number]} : {})}]
          : [],
      };
    }
    if (kind === 'search') return {kind: 'search', files: [], command: normalize(text), group: 'search'};
    return shellState(text);
  };
}

/** "test-related": a path or name with test_, _test, /tests/, repro, poc (a proof of concept) or debug. */
export function isTestRelated(path: string): boolean {
  return /(^|\/)test_|_test\b|_test\.|\/tests?\/|^tests?\/|repro|(^|[/_-])poc\b|debug/i.test(path);
}

/** A file a program reads rather than runs: markup, text, configuration, data. */
function isDataFile(path: string): boolean {
  return /\.(html?|txt|json|ya?ml|toml|cfg|ini|csv|tsv|xml|md|rst|j2|jinja2?|tpl|tmpl|svg|css)$/i.test(path);
}
