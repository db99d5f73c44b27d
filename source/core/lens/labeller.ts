/**
 * The AgentLens intent cascade (DESIGN.md): first matching rule wins. Stages: E exploration,
 * I implementation, V verification, O orchestration. Context-sensitive: writing or running a
 * test is Exploration before the run's first source edit and Verification after it.
 */
import {isTestRelated, type ActionState} from './state.js';

export type Stage = 'E' | 'I' | 'V' | 'O';

export interface Label {
  stage: Stage;
  rule: string;
  /** what the rule looked at */
  inputs: {first_source_edit: number | null; file_class?: 'source' | 'test'; group?: string};
}

export const RULES = {
  submit: '1 submit/finish → O',
  think: '2 think/plan with no effect → O',
  'source-edit': '3 edit/create of a non-test source file → I',
  explore: '4 read/search/list → E',
  'test-write': '5 write a test or reproduction script: before the first source edit → E, after → V',
  run: '6 run tests or scripts: before the first source edit → E, after → V',
  'other-shell': '7 other shell: git diff after an edit → V, clean-up → O, else E',
} as const;

const isSourceEdit = (s: ActionState) =>
  (s.kind === 'edit' || s.kind === 'create') && s.files.length > 0 && s.files.some(f => !isTestRelated(f.path));

/**
 * Labels steps one at a time, in order: every rule looks only at the past (whether a source
 * edit came before this step), so a streamed run is labelled as it is read.
 * `inputs.first_source_edit` is the index of the run's first source edit when it came at or
 * before this step, else null.
 */
export class Labeller {
  private firstSourceEdit: number | null = null;
  private i = 0;

  next(s: ActionState): Label {
    const i = this.i++;
    if (this.firstSourceEdit === null && isSourceEdit(s)) this.firstSourceEdit = i;
    const after = this.firstSourceEdit !== null && i > this.firstSourceEdit;
    const base = {first_source_edit: this.firstSourceEdit};
    if (s.kind === 'submit') return {stage: 'O', rule: 'submit', inputs: base};
    if (s.kind === 'think') return {stage: 'O', rule: 'think', inputs: base};
    if (isSourceEdit(s)) return {stage: 'I', rule: 'source-edit', inputs: {...base, file_class: 'source'}};
    if (s.kind === 'read' || s.kind === 'search' || s.kind === 'list')
      return {stage: 'E', rule: 'explore', inputs: {...base, group: s.group}};
    if (s.kind === 'edit' || s.kind === 'create')
      return {stage: after ? 'V' : 'E', rule: 'test-write', inputs: {...base, file_class: 'test'}};
    if (s.kind === 'run-test' || s.kind === 'run-script')
      return {stage: after ? 'V' : 'E', rule: 'run', inputs: {...base, group: s.group}};
    if (s.group === 'vcs' && /git\s+diff/.test(s.command ?? '') && after)
      return {stage: 'V', rule: 'other-shell', inputs: {...base, group: s.group}};
    if (s.group === 'cleanup') return {stage: 'O', rule: 'other-shell', inputs: {...base, group: s.group}};
    return {stage: 'E', rule: 'other-shell', inputs: {...base, group: s.group}};
  }
}

export function labelSteps(states: ActionState[]): Label[] {
  const l = new Labeller();
  return states.map(s => l.next(s));
}
