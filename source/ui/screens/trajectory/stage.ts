import type {Key} from 'ink';
import {bindingFor, hintText, type Binding} from '../../keys.js';
import type {Outcome} from '../types.js';

/** c on a step: the screen waits for the stage letter, then asks the runner to store it. */
interface StagePromptable {
  stagePrompt?: number | null;
}

const letter = (c: string) => (input: string) => input.toLowerCase() === c;

export const STAGE_BINDINGS: Binding[] = [
  {
    id: 'E',
    label: 'explore',
    keys: 'e',
    description: 'the step explores (reads, searches, reproduces)',
    scopes: ['stagePrompt'],
    hint: ['stagePrompt'],
    match: letter('e'),
  },
  {
    id: 'I',
    label: 'implement',
    keys: 'i',
    description: 'the step implements (edits the code)',
    scopes: ['stagePrompt'],
    hint: ['stagePrompt'],
    match: letter('i'),
  },
  {
    id: 'V',
    label: 'verify',
    keys: 'v',
    description: 'the step verifies (runs tests or the program after an edit)',
    scopes: ['stagePrompt'],
    hint: ['stagePrompt'],
    match: letter('v'),
  },
  {
    id: 'O',
    label: 'orchestrate',
    keys: 'o',
    description: 'the step orchestrates (plans, submits, talks)',
    scopes: ['stagePrompt'],
    hint: ['stagePrompt'],
    match: letter('o'),
  },
  {
    id: 'remove',
    label: 'remove yours',
    keys: 'x',
    description: "remove your stage for the step (the labeller's stands)",
    scopes: ['stagePrompt'],
    hint: ['stagePrompt'],
    match: letter('x'),
  },
  {
    id: 'cancel',
    label: 'cancel',
    keys: 'Esc, Backspace',
    description: 'leave the stage prompt without changing anything',
    scopes: ['stagePrompt'],
    hint: ['stagePrompt'],
    match: (_, key) => key.escape || key.backspace || key.delete,
  },
];

export function stageInput<S extends StagePromptable>(s: S, trajectory: number, input: string, key: Key): Outcome<S> {
  const b = bindingFor(STAGE_BINDINGS, ['stagePrompt'], input, key);
  if (!b) return {};
  const idx = s.stagePrompt!;
  const done = {...s, stagePrompt: null};
  if (b.id === 'cancel') return {screen: done};
  return {screen: done, intents: [{kind: 'setStage', trajectory, idx, stage: b.id === 'remove' ? null : b.id}]};
}

export const stagePrompt = (s: StagePromptable) =>
  s.stagePrompt !== undefined && s.stagePrompt !== null
    ? `stage for step ${s.stagePrompt + 1}: ${hintText(STAGE_BINDINGS, 'stagePrompt', ' · ')}`
    : null;
