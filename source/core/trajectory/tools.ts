/**
 * What a step's tool does, in one vocabulary: each trajectory format names its own tools (a
 * mini-SWE-agent `bash`, SWE-agent's `open` and `edit`, OpenHands' `AgentFinishAction`) and maps
 * them here, beside its parser; the AgentLens states (core/lens/state.ts) read only these kinds and
 * know no format. A tool a format does not name is a shell command line.
 */
export type ToolKind =
  /** a command line: its text says what it does */
  | 'shell'
  /** ends the run */
  | 'submit'
  /** reasoning, a message, a delegation: no effect on the code */
  | 'think'
  /** a file editor whose `command` argument says what it does (view, create, str_replace, …) */
  | 'file-editor'
  /** a file editor that reads (a view unless its arguments say otherwise) */
  | 'file-read'
  /** a file editor that writes a whole file */
  | 'file-write'
  /** SWE-agent's file viewer: opens a file (`open F [LINE]`) or moves in the open one */
  | 'viewer-open'
  /** SWE-agent's `create F`: a new file, now the open one */
  | 'viewer-create'
  /** SWE-agent's `edit A:B`: lines of the open file */
  | 'viewer-edit'
  /** a search command of the agent's interface (`find_file`, `search_dir`) */
  | 'search';

/** A format's tool names (lower case) and what each does. */
export type ToolNames = Readonly<Record<string, ToolKind>>;

/** Names every format may carry: agents of several frameworks share them (SWE-agent 1.x and
 * OpenHands both have `str_replace_editor`; `submit`, `finish`, `think` are everyone's). */
export const SHARED_TOOLS: ToolNames = {
  submit: 'submit',
  finish: 'submit',
  think: 'think',
  str_replace_editor: 'file-editor',
};

/** What `tool` does under a format's names; null when the step has no tool. */
export function kindOfTool(names: ToolNames, tool: string | null): ToolKind | null {
  if (tool === null || tool === '') return null;
  return names[tool.toLowerCase()] ?? 'shell';
}
