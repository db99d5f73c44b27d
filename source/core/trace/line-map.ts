/**
 * The statement mapping between a buggy and a patched file: unchanged lines map one to
 * one (shifted by whatever the patch inserted or removed above them); lines the patch
 * touched map to nothing. Built from `deltatrace changes` blocks [buggyStart, patchedStart,
 * length] (1-based), the matching blocks of a line diff.
 */

export interface FileChange {
  file: string;
  status: 'modified' | 'added' | 'removed';
  python?: boolean;
  blocks?: [number, number, number][];
  touched_buggy?: number[];
  touched_patched?: number[];
}

export interface ChangedFunction {
  file: string;
  qualname: string;
  sides: ('buggy' | 'patched')[];
  def_line_buggy?: number;
  def_line_patched?: number;
}

export interface Changes {
  files: FileChange[];
  functions: ChangedFunction[];
}

export class LineMap {
  private readonly byFile = new Map<string, FileChange>();

  constructor(readonly changes: Changes | null) {
    for (const file of changes?.files ?? []) this.byFile.set(file.file, file);
  }

  /** The patched line that is the same statement as buggy `line`, or null if touched. */
  toPatched(file: string, line: number | null): number | null {
    return this.map(file, line, 0);
  }

  /** The buggy line for patched `line`, or null if the patch touched it. */
  toBuggy(file: string, line: number | null): number | null {
    return this.map(file, line, 1);
  }

  /** Through the matching blocks [buggy start, patched start, length], from side `from`. */
  private map(file: string, line: number | null, from: 0 | 1): number | null {
    if (line === null) return null;
    const change = this.byFile.get(file);
    if (!change) return line;
    for (const block of change.blocks ?? []) {
      const start = block[from];
      if (line >= start && line < start + block[2]) return block[1 - from]! + (line - start);
    }
    return null;
  }

  same(file: string, buggyLine: number | null, patchedLine: number | null): boolean {
    if (buggyLine === null || patchedLine === null) return buggyLine === patchedLine;
    return this.toPatched(file, buggyLine) === patchedLine;
  }

  isChanged(file: string): boolean {
    return this.byFile.has(file);
  }

  modifiedFunctions(): ChangedFunction[] {
    return this.changes?.functions ?? [];
  }
}
