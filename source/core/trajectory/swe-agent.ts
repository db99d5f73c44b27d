import {arrayAt, isObject, objectAt, optionalNumber, optionalString, type JsonObject} from './json-fields.js';
import type {Step, Trajectory} from './model.js';
import {SHARED_TOOLS, type ToolNames} from './tools.js';

/** SWE-agent's commands (the first word of the action): its file viewer and search commands (0.x),
 * str_replace_editor (1.x); any other first word is a command line. */
export const SWE_AGENT_TOOLS: ToolNames = {
  ...SHARED_TOOLS,
  open: 'viewer-open',
  goto: 'viewer-open',
  scroll_up: 'viewer-open',
  scroll_down: 'viewer-open',
  create: 'viewer-create',
  edit: 'viewer-edit',
  find_file: 'search',
  search_dir: 'search',
  search_file: 'search',
};

/**
 * SWE-agent `.traj` (0.x and ≥ 1.0). Steps are `trajectory[]` entries; the action's first
 * word is the tool (`edit`, `create`, `python`, `submit`, …). Explanation: the `thought`
 * of the last step (the `submit` call). The instance id is the file name (SWE-agent names
 * trajectories `<instance_id>.traj`).
 */
export function parseSweAgent(root: unknown, fallbackInstance: string, runFolder: string | null): Trajectory {
  const doc = objectAt(root, '$');
  const entries = arrayAt(doc['trajectory'], '$.trajectory');
  const info = isObject(doc['info']) ? doc['info'] : {};

  const steps: Step[] = entries.map((raw, index) => {
    const path = `$.trajectory[${index}]`;
    const entry = objectAt(raw, path);
    const action = optionalString(entry, 'action', path);
    const command = action?.replace(/\s+$/, '') ?? null;
    const thought = optionalString(entry, 'thought', path) ?? optionalString(entry, 'response', path);
    return {
      thought: thought?.trim() || null,
      tool: command ? (command.split(/\s/, 1)[0] ?? null) : null,
      args: command ? {command} : null,
      actionText: command,
      observation: optionalString(entry, 'observation', path),
    };
  });

  const stats = isObject(info['model_stats']) ? info['model_stats'] : undefined;
  const last = steps[steps.length - 1];
  return {
    instance: instanceFrom(info) ?? fallbackInstance,
    agent: 'swe-agent',
    model: modelFrom(doc, runFolder),
    format: 'swe-agent',
    steps,
    explanation: last?.thought ?? null,
    patch: optionalString(info, 'submission', '$.info'),
    exitStatus: optionalString(info, 'exit_status', '$.info'),
    resolved: null,
    cost: optionalNumber(stats, 'instance_cost') ?? optionalNumber(stats, 'total_cost'),
    tokensIn: optionalNumber(stats, 'tokens_sent'),
    tokensOut: optionalNumber(stats, 'tokens_received'),
    meta: {
      swe_agent_version: typeof info['swe_agent_version'] === 'string' ? info['swe_agent_version'] : null,
      api_calls: optionalNumber(stats, 'api_calls'),
      run_folder: runFolder,
    },
  };
}

function instanceFrom(info: JsonObject): string | null {
  const id = info['instance_id'];
  return typeof id === 'string' && id ? id : null;
}

/** ≥ 1.0 keeps the model in `replay_config`; 0.x only in the run folder name (`gpt4__…__t-0.00__…`). */
function modelFrom(doc: JsonObject, runFolder: string | null): string {
  let replay: unknown = doc['replay_config'];
  if (typeof replay === 'string') {
    try {
      replay = JSON.parse(replay);
    } catch {
      replay = undefined;
    }
  }
  if (isObject(replay) && isObject(replay['agent']) && isObject(replay['agent']['model'])) {
    const name = replay['agent']['model']['name'];
    if (typeof name === 'string') return name;
  }
  const folder = runFolder?.match(/^(.+?)__.+__t-[\d.]+__p-/);
  return folder?.[1] ?? '';
}
