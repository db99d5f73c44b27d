/**
 * A frame's locals at a step, rebuilt from what the tracer wrote: the snapshot at entry,
 * then each finished line's changes (and deletions), in order.
 */
import type {StepState, EndState} from './model.js';

export type Locals = Map<string, unknown>;

export function replayLocals(args: string, states: string[]): Locals {
  // '' : the frame's values were not recorded (a skeleton run, or outside a value plan)
  const locals: Locals = new Map(args ? Object.entries(JSON.parse(args) as Record<string, unknown>) : []);
  for (const text of states) {
    if (!text) continue;
    const s = JSON.parse(text) as StepState & EndState;
    if (s.full) {
      locals.clear();
      for (const [k, v] of Object.entries(s.full)) locals.set(k, v);
    }
    for (const [k, v] of Object.entries(s.ch ?? {})) locals.set(k, v);
    for (const k of s.del ?? []) locals.delete(k);
    if (s.locals) {
      locals.clear();
      for (const [k, v] of Object.entries(s.locals)) locals.set(k, v);
    }
  }
  return locals;
}
