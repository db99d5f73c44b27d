/**
 * The statement mapping between a buggy and a patched file: unchanged lines map one to
 * one (shifted by whatever the patch inserted or removed above them); lines the patch
 * touched map to nothing. Built from `deltatrace changes` blocks [buggyStart, patchedStart,
 * length] (1-based), the matching blocks of a line diff.
 */

interface FileChange {
  file: string;
  status: 'modified' | 'added' | 'removed';
  python?: boolean;
  blocks?: [number, number, number][];
  touched_buggy?: number[];
  touched_patched?: number[];
}

interface ChangedFunction {
  file: string;
  qualname: string;
  sides: ('buggy' | 'patched')[];
  def_line_buggy?: number;
  def_line_patched?: number;
}

/** A docstring the patch edited (null: no docstring on that side). */
interface ChangedDoc {
  file: string;
  qualname: string;
  buggy: string | null;
  patched: string | null;
}

/** Locals of a function (and the functions nested in it) the patch only renamed: buggy → patched. */
interface Renames {
  file: string;
  qualname: string;
  names: Record<string, string>;
}

/** A name bound at module level (scope '') or in a class body on a line the patch touched. */
interface ModuleName {
  file: string;
  scope: string;
  name: string;
  /** a module-level name made from a changed one (`char_morse = {… morse_char …}`) */
  from?: string;
}

/** A function that reads a changed module- or class-level name (`via`: the module that binds it). */
interface Reader {
  file: string;
  qualname: string;
  reads: string;
  sides: ('buggy' | 'patched')[];
  via?: string;
}

export interface Changes {
  files: FileChange[];
  functions: ChangedFunction[];
  /** absent in pairs traced before these were computed */
  docs?: ChangedDoc[];
  renames?: Renames[];
  module_names?: ModuleName[];
  readers?: Reader[];
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

  /**
   * patched name → buggy name for the locals of a frame of `fn` (or of a function nested in a
   * function) the patch renamed; null when none was renamed.
   */
  renamed(file: string, fn: string): Map<string, string> | null {
    const all = this.changes?.renames;
    if (!all?.length) return null;
    let out: Map<string, string> | null = null;
    for (const r of all) {
      if (r.file !== file || !(fn === r.qualname || fn.startsWith(`${r.qualname}.<locals>.`))) continue;
      out ??= new Map();
      for (const [b, p] of Object.entries(r.names)) out.set(p, b);
    }
    return out;
  }
}
