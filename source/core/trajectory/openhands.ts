import {arrayAt, contentText, isObject, objectAt, optionalString, type Json, type JsonObject} from './json-fields.js';
import {FormatError, type Step, type Trajectory} from './model.js';
import {SHARED_TOOLS, type ToolNames} from './tools.js';

/** OpenHands' tools: the function a tool call names, else the event's action (and, in older
 * runs, the action class's name). */
export const OPENHANDS_TOOLS: ToolNames = {
  ...SHARED_TOOLS,
  agentfinishaction: 'submit',
  agentthinkaction: 'think',
  delegate: 'think',
  message: 'think',
  edit_file: 'file-editor',
  file_editor: 'file-editor',
  read: 'file-read',
  write: 'file-write',
  /** FileEditAction: its path and command are arguments (not SWE-agent's `edit A:B` of an open file) */
  edit: 'file-editor',
};

/**
 * OpenHands event streams: a bare history list, or one `output.jsonl` record
 * (`{instance_id, history, metadata, test_result: {git_patch}}`). Each agent action becomes a
 * step; its observation is the environment event whose `cause` is the action's id.
 * Explanation: the `finish` action's `final_thought` (newer) or `thought`, else its `message`.
 */
export function parseOpenHands(root: unknown, fallbackInstance: string): Trajectory {
  const record = isObject(root) ? root : null;
  const historyPath = record ? '$.history' : '$';
  const events = arrayAt(record ? record['history'] : root, historyPath);

  const steps: Step[] = [];
  const byId = new Map<number, Step>();
  let explanation: string | null = null;
  let model = '';
  let finished = false;

  events.forEach((raw, index) => {
    const path = `${historyPath}[${index}]`;
    if (Array.isArray(raw)) {
      // Older OpenHands stored [action, observation] pairs.
      raw.forEach((part, partIndex) => handleEvent(part, `${path}[${partIndex}]`));
    } else {
      handleEvent(raw, path);
    }
  });

  function handleEvent(raw: Json, path: string): void {
    const event = objectAt(raw, path);
    const source = event['source'];
    if (typeof event['action'] === 'string') {
      if (source !== 'agent') return; // the user's task message, environment actions
      const step = actionStep(event);
      model ||= modelOf(event);
      steps.push(step);
      if (typeof event['id'] === 'number') byId.set(event['id'], step);
      if (event['action'] === 'finish') {
        finished = true;
        const args = isObject(event['args']) ? event['args'] : {};
        explanation =
          nonEmpty(args['final_thought']) ?? nonEmpty(args['thought']) ?? nonEmpty(event['message']) ?? explanation;
      }
    } else if (typeof event['observation'] === 'string') {
      const cause = typeof event['cause'] === 'number' ? byId.get(event['cause']) : undefined;
      const step = cause ?? steps[steps.length - 1];
      const text = contentText(event['content'] ?? event['message'], `${path}.content`);
      if (step) step.observation = step.observation === null ? text : `${step.observation}\n${text}`;
    } else if (!('message' in event)) {
      throw new FormatError('event has neither "action" nor "observation"', {path});
    }
  }

  const metadata = record && isObject(record['metadata']) ? record['metadata'] : {};
  const llm = isObject(metadata['llm_config']) ? metadata['llm_config'] : {};
  const testResult = record && isObject(record['test_result']) ? record['test_result'] : {};
  const error = record ? record['error'] : null;
  return {
    instance: (record && optionalString(record, 'instance_id', '$')) ?? fallbackInstance,
    agent: typeof metadata['agent_class'] === 'string' ? `openhands ${metadata['agent_class']}` : 'openhands',
    model: (typeof llm['model'] === 'string' ? llm['model'] : '') || model,
    format: 'openhands',
    steps,
    explanation,
    patch: nonEmpty(testResult['git_patch']),
    exitStatus: typeof error === 'string' && error ? `error: ${error}` : finished ? 'finished' : 'unfinished',
    resolved: resolvedOf(testResult),
    cost: null,
    tokensIn: null,
    tokensOut: null,
    meta: {events: events.length},
  };
}

function actionStep(event: JsonObject): Step {
  const action = event['action'] as string;
  const args = isObject(event['args']) ? {...event['args']} : {};
  const metadata = isObject(event['tool_call_metadata']) ? event['tool_call_metadata'] : undefined;
  const thought = nonEmpty(args['thought']) ?? responseContent(metadata) ?? null;
  delete args['thought'];
  const tool = typeof metadata?.['function_name'] === 'string' ? metadata['function_name'] : action;
  return {
    thought,
    tool,
    args: {action, ...args},
    actionText: actionText(action, args, event),
    observation: null,
  };
}

function actionText(action: string, args: JsonObject, event: JsonObject): string {
  for (const key of ['command', 'code', 'path', 'url', 'content']) {
    const value = args[key];
    if (typeof value === 'string' && value)
      return action === 'run' || action === 'run_ipython' ? value : `${action} ${value}`;
  }
  const message = nonEmpty(event['message']);
  return message ? `${action}: ${message}` : action;
}

function responseContent(metadata: JsonObject | undefined): string | null {
  const response = metadata && isObject(metadata['model_response']) ? metadata['model_response'] : undefined;
  const choices = response && Array.isArray(response['choices']) ? response['choices'] : [];
  const first = choices[0];
  if (!isObject(first) || !isObject(first['message'])) return null;
  return nonEmpty(first['message']['content']);
}

function modelOf(event: JsonObject): string {
  const metadata = isObject(event['tool_call_metadata']) ? event['tool_call_metadata'] : undefined;
  const response = metadata && isObject(metadata['model_response']) ? metadata['model_response'] : undefined;
  return response && typeof response['model'] === 'string' ? response['model'] : '';
}

function resolvedOf(testResult: JsonObject): boolean | null {
  const report = isObject(testResult['report']) ? testResult['report'] : testResult;
  return typeof report['resolved'] === 'boolean' ? report['resolved'] : null;
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.trim() ? value : null;
}
