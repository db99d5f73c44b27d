import type {WorkspaceSpec} from '../workspace.js';

/** Where the trees come from: the buggy tree (a folder, or a revision of the repository it names) and the fix one way. */
interface FixTrees {
  buggyDir: string;
  buggyRev?: string;
  fixedDir?: string;
  fixedRev?: string;
  goldPatch?: string;
}

/** The buggy and the fixed tree: two folders, two revisions of one repository, or the buggy tree with the gold patch. */
export function fixSpec(o: FixTrees): WorkspaceSpec {
  return o.fixedDir
    ? {kind: 'dirs', buggyDir: o.buggyDir, patchedDir: o.fixedDir}
    : o.fixedRev
      ? {kind: 'revs', repo: o.buggyDir, buggy: o.buggyRev!, patched: o.fixedRev}
      : patchedSpec(o, o.goldPatch!);
}

/** The buggy tree with a patch applied: a copy of the folder, or the revision's files. */
export function patchedSpec(o: Pick<FixTrees, 'buggyDir' | 'buggyRev'>, patch: string): WorkspaceSpec {
  return o.buggyRev
    ? {kind: 'patch', repo: o.buggyDir, buggy: o.buggyRev, patch}
    : {kind: 'patch', repo: o.buggyDir, patch, copy: true};
}
