/**
 * The trajectory formats deltalens reads, in one place: the importer parses with them, `import
 * --format` lists them, and docs/import.md's table is made from them (a test keeps it so). A new
 * format is a parser beside this file, its detection in detect.ts and an entry here.
 */
import {MINI_SWE_AGENT_TOOLS, parseMiniSweAgent} from './mini-swe-agent.js';
import type {Trajectory} from './model.js';
import {OPENHANDS_TOOLS, parseOpenHands} from './openhands.js';
import {parseSweAgent, SWE_AGENT_TOOLS} from './swe-agent.js';
import {kindOfTool, type ToolKind, type ToolNames} from './tools.js';

/** A format that carries any agent's steps (deltalens' JSONL, a run folder): every format's tool
 * names, SWE-agent's meaning of `edit` (lines of the open file) where two differ. */
const ANY_TOOLS: ToolNames = {...MINI_SWE_AGENT_TOOLS, ...OPENHANDS_TOOLS, ...SWE_AGENT_TOOLS};

interface TrajectoryFormat {
  name: string;
  /** a few words for `import --format` */
  summary: string;
  /** docs/import.md's table: what it reads, where the final explanation and the resolved status come from */
  reads: string;
  explanation: string;
  resolved: string;
  /** its tool names and what each does (core/trajectory/tools.ts): the lens reads only the kinds */
  tools: ToolNames;
  /** one whole JSON document to a run; null when the format is read otherwise (line by line, a folder) */
  parse: ((doc: unknown, names: {fallbackInstance: string; folder: string}) => Trajectory) | null;
}

export const TRAJECTORY_FORMATS = [
  {
    name: 'mini-swe-agent',
    summary: 'mini-SWE-agent .traj.json',
    reads:
      '`.traj.json`, `trajectory_format` `mini-swe-agent-1` and tool-calling `-1.1`; a step per assistant turn, action = the bash block (`info.config.agent.action_regex`), observation = the next user/tool message',
    explanation:
      'the THOUGHT text of the last assistant turn (the `COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` call), only the `THOUGHT:` label removed',
    resolved: 'from files beside it',
    tools: MINI_SWE_AGENT_TOOLS,
    parse: (doc, n) => parseMiniSweAgent(doc, n.fallbackInstance),
  },
  {
    name: 'swe-agent',
    summary: 'SWE-agent .traj (0.x and 1.x)',
    reads:
      '`.traj` 0.x and ≥1.0: `trajectory[]` entries; tool = first word of the action; instance = file name; model from `replay_config` or a 0.x run-folder name (`gpt4__…__t-0.00__…`)',
    explanation: '`thought` of the last step (`submit`)',
    resolved: 'from files beside it',
    tools: SWE_AGENT_TOOLS,
    parse: (doc, n) => parseSweAgent(doc, n.fallbackInstance, n.folder),
  },
  {
    name: 'openhands',
    summary: 'OpenHands event lists and output.jsonl records',
    reads:
      'a bare event list (`history`), or an `output.jsonl` record `{instance_id, history, metadata, test_result.git_patch}`; each agent action is a step, its observation the event whose `cause` is the action',
    explanation: "the `finish` action's `final_thought`, else `thought`, else `message`",
    resolved: '`test_result.report.resolved` if present',
    tools: OPENHANDS_TOOLS,
    parse: (doc, n) => parseOpenHands(doc, n.fallbackInstance),
  },
  {
    name: 'swe-bench-run',
    summary: 'a SWE-bench/experiments run folder',
    reads:
      'a SWE-bench/experiments run folder: `trajs/` (any of the above), `logs/<id>/report.json`, `results/results.json`; agent = folder name',
    explanation: 'as its files',
    resolved: '`logs/<id>/report.json`, `results/results.json`',
    tools: ANY_TOOLS,
    parse: null,
  },
  {
    name: 'jsonl',
    summary: "deltalens' own generic JSONL",
    reads: "deltalens' own format, below, streamed line by line",
    explanation: '`explanation` field, else the thought of the last step',
    resolved: '`resolved` field',
    tools: ANY_TOOLS,
    parse: null,
  },
] as const satisfies readonly TrajectoryFormat[];

/** What a step's tool does in a run of `format` (a format deltalens does not know: any format's names). */
export function toolKind(format: string, tool: string | null): ToolKind | null {
  return kindOfTool(formatNamed(format)?.tools ?? ANY_TOOLS, tool);
}

export function formatNamed(name: string): TrajectoryFormat | undefined {
  return TRAJECTORY_FORMATS.find(f => f.name === name);
}

/** docs/import.md's table of formats. */
export function formatTable(): string {
  return [
    '| format | what it reads | explanation (ExplainBench §5.1) | resolved status |',
    '|---|---|---|---|',
    ...TRAJECTORY_FORMATS.map(f => `| \`${f.name}\` | ${f.reads} | ${f.explanation} | ${f.resolved} |`),
  ].join('\n');
}
