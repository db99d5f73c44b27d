import {isObject, optionalNumber, optionalString, typeName, type JsonObject} from './json-fields.js';
import {FormatError, type Step, type Trajectory} from './model.js';

/**
 * deltalens' own line format, for agents without an importer. One JSON object per line:
 *
 *   {"type": "trajectory", "instance": "…", "agent": "…", "model": "…", …}   starts a trajectory
 *   {"type": "step", "thought": "…", "tool": "bash", "args": {…}, "action": "…", "observation": "…"}
 *   {"type": "end", "patch": "…", "explanation": "…", "resolved": true, "exit_status": "…"}  optional
 *
 * A file may hold several trajectories; each `trajectory` line starts the next. Fields of the
 * header may be repeated on the `end` line (values there win). Without an explanation, the
 * thought of the last step is used (the final tool call's rationale, ExplainBench §5.1).
 * The reader is incremental so a 50 MB file never has to be in memory at once.
 */

export type TrajectoryHeader = Omit<Trajectory, 'steps'>;

type JsonlEvent =
  | {kind: 'start'; header: TrajectoryHeader; line: number}
  | {kind: 'step'; step: Step; line: number}
  | {kind: 'end'; header: TrajectoryHeader; line: number};

const HEADER_KEYS = [
  'instance',
  'agent',
  'model',
  'patch',
  'explanation',
  'exit_status',
  'resolved',
  'cost',
  'tokens_in',
  'tokens_out',
  'meta',
];

export class GenericJsonlReader {
  private header: TrajectoryHeader | null = null;
  private lastThought: string | null = null;
  private explicitExplanation = false;

  /** Feed one parsed line; returns what it means. `line` is 1-based, for error messages. */
  push(value: unknown, line: number): JsonlEvent[] {
    if (!isObject(value)) throw new FormatError(`expected a JSON object, found ${typeName(value)}`, {line});
    const type = value['type'];
    if (type === 'trajectory') {
      const events: JsonlEvent[] = [];
      if (this.header) events.push(this.finish(line - 1));
      this.header = headerFrom(value, line, null);
      this.explicitExplanation = typeof value['explanation'] === 'string';
      this.lastThought = null;
      events.push({kind: 'start', header: this.header, line});
      return events;
    }
    if (!this.header) {
      throw new FormatError('the first line must be {"type": "trajectory", "instance": …, "agent": …}', {
        line,
        path: '$.type',
      });
    }
    if (type === 'step') {
      const step = stepFrom(value, line);
      if (step.thought !== null) this.lastThought = step.thought;
      return [{kind: 'step', step, line}];
    }
    if (type === 'end') {
      this.header = headerFrom(value, line, this.header);
      if (typeof value['explanation'] === 'string') this.explicitExplanation = true;
      const event = this.finish(line);
      return [event];
    }
    throw new FormatError(`unknown line type ${JSON.stringify(type)} (expected "trajectory", "step" or "end")`, {
      line,
      path: '$.type',
    });
  }

  /** Call at end of input; returns the end event of a trajectory still open. */
  close(line: number): JsonlEvent[] {
    return this.header ? [this.finish(line)] : [];
  }

  private finish(line: number): JsonlEvent {
    const header = this.header!;
    if (!this.explicitExplanation) header.explanation = this.lastThought;
    this.header = null;
    return {kind: 'end', header, line};
  }
}

function headerFrom(value: JsonObject, line: number, previous: TrajectoryHeader | null): TrajectoryHeader {
  const at = (key: string) => ({line, path: `$.${key}`});
  const string = (key: string): string | null => {
    try {
      return optionalString(value, key, '$');
    } catch (error) {
      throw new FormatError((error as Error).message, at(key));
    }
  };
  const instance = string('instance') ?? previous?.instance ?? null;
  if (!instance) throw new FormatError('required string is missing', at('instance'));
  const agent = string('agent') ?? previous?.agent ?? null;
  if (!agent) throw new FormatError('required string is missing', at('agent'));
  const resolved = value['resolved'];
  if (resolved !== undefined && resolved !== null && typeof resolved !== 'boolean') {
    throw new FormatError(`expected true, false or null, found ${typeName(resolved)}`, at('resolved'));
  }
  for (const key of Object.keys(value)) {
    if (key !== 'type' && !HEADER_KEYS.includes(key)) throw new FormatError(`unknown field "${key}"`, at(key));
  }
  return {
    instance,
    agent,
    model: string('model') ?? previous?.model ?? '',
    format: 'jsonl',
    explanation: string('explanation') ?? previous?.explanation ?? null,
    patch: string('patch') ?? previous?.patch ?? null,
    exitStatus: string('exit_status') ?? previous?.exitStatus ?? null,
    resolved: typeof resolved === 'boolean' ? resolved : (previous?.resolved ?? null),
    cost: optionalNumber(value, 'cost') ?? previous?.cost ?? null,
    tokensIn: optionalNumber(value, 'tokens_in') ?? previous?.tokensIn ?? null,
    tokensOut: optionalNumber(value, 'tokens_out') ?? previous?.tokensOut ?? null,
    meta: isObject(value['meta']) ? value['meta'] : (previous?.meta ?? {}),
  };
}

const STEP_KEYS = ['type', 'thought', 'tool', 'args', 'action', 'observation'];

function stepFrom(value: JsonObject, line: number): Step {
  for (const key of Object.keys(value)) {
    if (!STEP_KEYS.includes(key)) throw new FormatError(`unknown field "${key}"`, {line, path: `$.${key}`});
  }
  const read = (key: string): string | null => {
    const field = value[key];
    if (field === undefined || field === null) return null;
    if (typeof field !== 'string')
      throw new FormatError(`expected a string, found ${typeName(field)}`, {line, path: `$.${key}`});
    return field;
  };
  const args = value['args'];
  if (args !== undefined && args !== null && !isObject(args)) {
    throw new FormatError(`expected an object, found ${typeName(args)}`, {line, path: '$.args'});
  }
  const action = read('action');
  const tool = read('tool');
  if (action === null && tool === null && read('thought') === null) {
    throw new FormatError('a step needs at least one of "thought", "tool" or "action"', {line});
  }
  return {
    thought: read('thought'),
    tool,
    args: isObject(args) ? args : action !== null ? {command: action} : null,
    actionText: action ?? (isObject(args) && typeof args['command'] === 'string' ? args['command'] : null),
    observation: read('observation'),
  };
}
