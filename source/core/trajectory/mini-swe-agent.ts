import {
  arrayAt,
  contentText,
  isObject,
  objectAt,
  optionalNumber,
  optionalString,
  requiredString,
  type JsonObject,
} from './json-fields.js';
import {FormatError, type Step, type Trajectory} from './model.js';
import {SHARED_TOOLS, type ToolNames} from './tools.js';

/** mini-SWE-agent's tools: its bash block (and, tool-calling, the functions it calls). */
export const MINI_SWE_AGENT_TOOLS: ToolNames = {...SHARED_TOOLS, bash: 'shell'};

/**
 * mini-SWE-agent `.traj.json` (`trajectory_format` "mini-swe-agent-1" and the tool-calling
 * "mini-swe-agent-1.1"). Steps are assistant turns; the observation is the next user (or
 * `tool`) message. Explanation: the THOUGHT text of the last assistant turn, whose action is
 * the `COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` command — only the "THOUGHT:" label is removed.
 */

const DEFAULT_ACTION_REGEX = '```bash\\s*\\n(.*?)\\n```';

export function parseMiniSweAgent(root: unknown, fallbackInstance: string): Trajectory {
  const doc = objectAt(root, '$');
  const info = isObject(doc['info']) ? doc['info'] : {};
  const messages = arrayAt(doc['messages'], '$.messages');
  const config = isObject(info['config']) ? info['config'] : {};
  const actionRegex = compileActionRegex(config);

  const steps: Step[] = [];
  let tokensIn = 0;
  let tokensOut = 0;
  let pendingToolCalls = new Map<string, Step>();
  const unknownRoles = new Map<string, number>();

  messages.forEach((raw, index) => {
    const path = `$.messages[${index}]`;
    const message = objectAt(raw, path);
    const role = requiredString(message, 'role', path);
    if (role === 'assistant') {
      const usage = responseUsage(message);
      tokensIn += usage.in;
      tokensOut += usage.out;
      const text = contentText(message['content'], `${path}.content`);
      const toolCalls = Array.isArray(message['tool_calls']) ? message['tool_calls'] : [];
      if (toolCalls.length > 0) {
        pendingToolCalls = new Map();
        toolCalls.forEach((call, callIndex) => {
          const step = toolCallStep(
            call,
            `${path}.tool_calls[${callIndex}]`,
            callIndex === 0 ? stripThoughtLabel(text) : null,
          );
          steps.push(step);
          const id = isObject(call) && typeof call['id'] === 'string' ? call['id'] : String(callIndex);
          pendingToolCalls.set(id, step);
        });
      } else {
        steps.push(bashStep(text, actionRegex));
      }
    } else if (role === 'tool') {
      const id = typeof message['tool_call_id'] === 'string' ? message['tool_call_id'] : '';
      const step = pendingToolCalls.get(id) ?? steps[steps.length - 1];
      if (step)
        step.observation = appendObservation(step.observation, contentText(message['content'], `${path}.content`));
    } else if (role === 'user' || role === 'exit') {
      // The first user message is the task; later ones are observations of the last action.
      const step = steps[steps.length - 1];
      if (step && step.observation === null) step.observation = contentText(message['content'], `${path}.content`);
    } else if (role !== 'system') {
      unknownRoles.set(role, (unknownRoles.get(role) ?? 0) + 1);
    }
  });

  const lastAssistant = [...steps].reverse().find(step => step.thought !== null || step.actionText !== null);
  const modelConfig = isObject(config['model']) ? config['model'] : {};
  const version = optionalString(info, 'mini_version', '$.info');
  const stats = isObject(info['model_stats']) ? info['model_stats'] : undefined;
  return {
    instance: optionalString(doc, 'instance_id', '$') ?? fallbackInstance,
    agent: version ? `mini-swe-agent ${version}` : 'mini-swe-agent',
    model: optionalString(modelConfig, 'model_name', '$.info.config.model') ?? '',
    format: 'mini-swe-agent',
    steps,
    explanation: lastAssistant?.thought ?? null,
    patch: optionalString(info, 'submission', '$.info'),
    exitStatus: optionalString(info, 'exit_status', '$.info'),
    resolved: null,
    cost: optionalNumber(stats, 'instance_cost'),
    tokensIn: tokensIn || null,
    tokensOut: tokensOut || null,
    meta: {
      trajectory_format: doc['trajectory_format'] ?? null,
      mini_version: version,
      api_calls: optionalNumber(stats, 'api_calls'),
      max_context_tokens: isObject(config['agent']) ? (config['agent']['max_context_tokens'] ?? null) : null,
    },
    notes: [...unknownRoles].map(([role, n]) => ({
      field: '$.messages',
      message: `${n} message(s) with the role ${JSON.stringify(role.length > 40 ? `${role.slice(0, 40)}…` : role)} (not system, user, assistant, tool or exit) were left out`,
    })),
  };
}

function compileActionRegex(config: JsonObject): RegExp {
  const agent = isObject(config['agent']) ? config['agent'] : {};
  const source = typeof agent['action_regex'] === 'string' ? agent['action_regex'] : DEFAULT_ACTION_REGEX;
  try {
    return new RegExp(source, 's'); // mini-SWE-agent applies it with re.DOTALL
  } catch {
    return new RegExp(DEFAULT_ACTION_REGEX, 's');
  }
}

function bashStep(text: string, actionRegex: RegExp): Step {
  const match = actionRegex.exec(text);
  const command = match ? (match[1] ?? match[0]) : null;
  const thought = match ? text.slice(0, match.index) : text;
  return {
    thought: stripThoughtLabel(thought),
    tool: command === null ? null : 'bash',
    args: command === null ? null : {command},
    actionText: command,
    observation: null,
  };
}

function toolCallStep(raw: unknown, path: string, thought: string | null): Step {
  const call = objectAt(raw, path);
  const fn = objectAt(call['function'], `${path}.function`);
  const name = requiredString(fn, 'name', `${path}.function`);
  const argumentText = typeof fn['arguments'] === 'string' ? fn['arguments'] : JSON.stringify(fn['arguments'] ?? {});
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(argumentText);
    args = isObject(parsed) ? parsed : {value: parsed};
  } catch {
    throw new FormatError('tool call arguments are not valid JSON', {path: `${path}.function.arguments`});
  }
  const command = typeof args['command'] === 'string' ? args['command'] : argumentText;
  return {thought, tool: name, args, actionText: command, observation: null};
}

function stripThoughtLabel(text: string): string | null {
  const trimmed = text.trim().replace(/^THOUGHT:\s*/, '');
  return trimmed.length ? trimmed : null;
}

function appendObservation(previous: string | null, next: string): string {
  return previous === null ? next : `${previous}\n${next}`;
}

function responseUsage(message: JsonObject): {in: number; out: number} {
  const extra = isObject(message['extra']) ? message['extra'] : undefined;
  const response = extra && isObject(extra['response']) ? extra['response'] : undefined;
  const usage = response && isObject(response['usage']) ? response['usage'] : undefined;
  return {in: optionalNumber(usage, 'prompt_tokens') ?? 0, out: optionalNumber(usage, 'completion_tokens') ?? 0};
}
