/** The normalized trajectory every importer produces and the store persists. */

/** `prediction`: a SWE-bench harness prediction (a patch and the model that wrote it, no steps). */
export type SourceFormat = 'swe-agent' | 'mini-swe-agent' | 'openhands' | 'jsonl' | 'prediction';

export interface Step {
  /** Natural-language reasoning that preceded the action ("THOUGHT", tool-call content). */
  thought: string | null;
  /** The tool or command family: `bash`, `str_replace_editor`, `edit`, `submit`, `finish`, … */
  tool: string | null;
  /** Structured arguments, e.g. `{command: "ls"}`; null when the action had none. */
  args: Record<string, unknown> | null;
  /** The action exactly as the agent wrote it (a command line, an edit block). */
  actionText: string | null;
  observation: string | null;
}

export interface Trajectory {
  instance: string;
  agent: string;
  model: string;
  format: SourceFormat;
  steps: Step[];
  /** ExplainBench §5.1: the natural-language rationale of the final tool call, unchanged. */
  explanation: string | null;
  patch: string | null;
  exitStatus: string | null;
  /** true/false only where the source itself says so. */
  resolved: boolean | null;
  cost: number | null;
  tokensIn: number | null;
  tokensOut: number | null;
  meta: Record<string, unknown>;
  /** what the importer could not read and left out (said as a warning at import) */
  notes?: {field: string; message: string}[];
}

/** Where in a source something went wrong: a JSON path (`$.messages[3].content`) or a line. */
export class FormatError extends Error {
  constructor(
    message: string,
    readonly where: {path?: string; line?: number; column?: number} = {},
  ) {
    super(message);
    this.name = 'FormatError';
  }

  describe(): string {
    const parts: string[] = [];
    if (this.where.line !== undefined) {
      parts.push(`line ${this.where.line}${this.where.column !== undefined ? `:${this.where.column}` : ''}`);
    }
    if (this.where.path) parts.push(this.where.path);
    return parts.length ? `${parts.join(', ')}: ${this.message}` : this.message;
  }
}
