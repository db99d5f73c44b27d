import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {detectDocument} from '../../source/core/trajectory/detect.js';
import {GenericJsonlReader} from '../../source/core/trajectory/generic-jsonl.js';
import {parseMiniSweAgent} from '../../source/core/trajectory/mini-swe-agent.js';
import {FormatError} from '../../source/core/trajectory/model.js';
import {parseOpenHands} from '../../source/core/trajectory/openhands.js';
import {lookupResolution, resolutionTable} from '../../source/core/trajectory/resolution.js';
import {parseSweAgent} from '../../source/core/trajectory/swe-agent.js';
import {SAMPLES} from '../helpers/files.js';

const load = (path: string): unknown => JSON.parse(readFileSync(join(SAMPLES, path), 'utf8'));

describe('mini-SWE-agent importer on a real run', () => {
  const doc = load('mini-swe-agent/django__django-11099.traj.json') as {messages: {role: string; content: string}[]};
  const t = parseMiniSweAgent(doc, 'fallback');

  it('keeps one step per assistant turn, with the bash command and the next observation', () => {
    expect(t.steps).toHaveLength(doc.messages.filter(m => m.role === 'assistant').length);
    expect(t.steps[0]!.actionText).toBe(
      'grep -Rn -E "UsernameValidator|UnicodeUsernameValidator|ASCIIUsernameValidator" .',
    );
    expect(t.steps[0]!.observation).toContain(
      './tests/auth_tests/test_validators.py:234:class UsernameValidatorsTests',
    );
    expect(t.steps[0]!.thought).toMatch(/^I need to find the source files/);
  });

  it('takes the explanation from the final submit call, without the THOUGHT label', () => {
    expect(t.steps.at(-1)!.actionText).toBe(
      'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached',
    );
    expect(t.explanation).toBe(
      "I've updated django/contrib/auth/validators.py to use \\A and \\Z so usernames with trailing newlines are rejected, " +
        'and verified both ASCII and Unicode validators accept normal usernames and reject ones ending with a newline. ' +
        "Now I'll stage the changes and output the git diff of staged changes as the final submission.",
    );
  });

  it('reads instance, model, patch, exit status and cost', () => {
    expect(t.instance).toBe('django__django-11099');
    expect(t.model).toBe('openai/gpt-5-mini');
    expect(t.agent).toBe('mini-swe-agent 1.17.0');
    expect(t.patch).toMatch(/^diff --git a\/django\/contrib\/auth\/validators.py/);
    expect(t.exitStatus).toBe('Submitted');
    expect(t.cost).toBeCloseTo(0.01447835);
    expect(t.tokensOut).toBeGreaterThan(0);
  });

  it('accepts the tool-calling 1.1 format', () => {
    const t11 = parseMiniSweAgent(
      {
        trajectory_format: 'mini-swe-agent-1.1',
        instance_id: 'x__y-1',
        info: {exit_status: 'Submitted', submission: 'diff'},
        messages: [
          {role: 'system', content: 's'},
          {role: 'user', content: 'task'},
          {
            role: 'assistant',
            content: 'Looking around.',
            tool_calls: [{id: 'c1', function: {name: 'bash', arguments: '{"command": "ls"}'}}],
          },
          {role: 'tool', tool_call_id: 'c1', content: 'a.py'},
          {
            role: 'assistant',
            content: 'Done; submitting.',
            tool_calls: [
              {
                id: 'c2',
                function: {name: 'bash', arguments: '{"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}'},
              },
            ],
          },
          {role: 'exit', content: ''},
        ],
      },
      'f',
    );
    expect(t11.steps.map(s => [s.tool, s.actionText, s.observation])).toEqual([
      ['bash', 'ls', 'a.py'],
      ['bash', 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT', ''],
    ]);
    expect(t11.explanation).toBe('Done; submitting.');
  });

  it('names the JSON path of a malformed message', () => {
    const broken = structuredClone(doc) as {messages: unknown[]};
    broken.messages[3] = {content: 'no role'};
    expect(() => parseMiniSweAgent(broken, 'f')).toThrow(
      expect.objectContaining({where: {path: '$.messages[3].role'}}),
    );
  });
});

describe('SWE-agent importer on a real run', () => {
  const t = parseSweAgent(load('swe-agent/pydicom__pydicom-1458.traj'), 'pydicom__pydicom-1458', 'swe-agent');
  it('reads every trajectory entry with its command word as the tool', () => {
    expect(t.steps).toHaveLength(12);
    expect(t.steps[0]!.tool).toBe('create');
    expect(t.steps[0]!.actionText).toBe('create reproduce_bug.py');
    expect(t.steps.at(-1)!.tool).toBe('submit');
  });
  it('takes the explanation from the submit step and the patch from info.submission', () => {
    expect(t.explanation).toMatch(/^The `reproduce_bug.py` script has been successfully removed/);
    expect(t.patch).toContain('diff --git a/pydicom/pixel_data_handlers/numpy_handler.py');
    expect(t.exitStatus).toBe('submitted');
    expect(t.tokensIn).toBe(122612);
  });
  it('reads the model from a 0.x run folder name', () => {
    const named = parseSweAgent(
      load('swe-agent/pydicom__pydicom-1458.traj'),
      'p',
      'gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1',
    );
    expect(named.model).toBe('gpt4');
  });
});

describe('OpenHands importer on a real event stream', () => {
  const t = parseOpenHands(load('openhands/basic.json'), 'basic');
  it('pairs actions with the observations they caused and skips the user message', () => {
    expect(t.steps.map(s => s.tool)).toEqual(['str_replace_editor', 'finish']);
    expect(t.steps[0]!.observation).toContain('+import random');
    expect(t.steps[0]!.thought).toMatch(/^I'll help you create a simple 2048 game/);
  });
  it('takes the explanation from the finish action', () => {
    expect(t.explanation).toMatch(/^I've created a simple implementation of the 2048 game/);
    expect(t.model).toBe('claude-3-5-sonnet-20241022');
    expect(t.patch).toBeNull(); // a bare history list has no git_patch
  });
  it('reads an output.jsonl record: instance, patch, resolved', () => {
    const record = {
      instance_id: 'a__b-1',
      history: load('openhands/basic.json'),
      metadata: {agent_class: 'CodeActAgent', llm_config: {model: 'm'}},
      test_result: {git_patch: 'diff --git a/x b/x', report: {resolved: true}},
    };
    const r = parseOpenHands(record, 'f');
    expect([r.instance, r.agent, r.model, r.patch, r.resolved]).toEqual([
      'a__b-1',
      'openhands CodeActAgent',
      'm',
      'diff --git a/x b/x',
      true,
    ]);
  });
});

describe('format detection', () => {
  it.each([
    ['mini-swe-agent/django__django-11099.traj.json', 'mini-swe-agent'],
    ['swe-agent/pydicom__pydicom-1458.traj', 'swe-agent'],
    ['openhands/basic.json', 'openhands'],
    ['swe-bench-instances/django__django-11099.json', 'swe-bench-instance'],
    ['mini-swe-agent/django__django-11099.report.json', 'resolution'],
    ['mini-swe-agent-multi/results.json', 'resolution'],
  ])('%s is %s', (path, kind) => {
    expect(detectDocument(load(path))).toBe(kind);
  });
});

describe('resolution tables', () => {
  it('reads a harness summary; resolved wins over an id also listed elsewhere', () => {
    const table = resolutionTable({
      resolved_ids: ['a', 'b'],
      unresolved_ids: ['c'],
      empty_patch_ids: ['d'],
      completed_ids: ['a', 'b', 'c'],
    })!;
    expect(['a', 'c', 'd', 'e'].map(id => lookupResolution(table, id, []))).toEqual([true, false, false, null]);
  });
  it('keys per-run results by the run folder', () => {
    const table = resolutionTable(load('mini-swe-agent-multi/results.json'))!;
    expect(lookupResolution(table, 'astropy__astropy-7166', ['results-baseline-truncated-16k'])).toBe(false);
    expect(lookupResolution(table, 'astropy__astropy-7166', ['results-context-untruncated'])).toBe(true);
    expect(lookupResolution(table, 'astropy__astropy-7166', ['elsewhere'])).toBeNull();
  });
  it('reads a per-instance report.json', () => {
    const table = resolutionTable({'x__y-1': {patch_is_None: false, resolved: false, tests_status: {}}})!;
    expect(lookupResolution(table, 'x__y-1', [])).toBe(false);
  });
});

describe('generic JSONL reader', () => {
  it('streams steps and uses the last thought as the explanation when none is given', () => {
    const reader = new GenericJsonlReader();
    const events = [
      ...reader.push({type: 'trajectory', instance: 'i', agent: 'a'}, 1),
      ...reader.push({type: 'step', thought: 'look', tool: 'bash', action: 'ls', observation: 'x'}, 2),
      ...reader.push({type: 'step', thought: 'fixed it because y', tool: 'submit'}, 3),
      ...reader.close(3),
    ];
    expect(events.map(e => e.kind)).toEqual(['start', 'step', 'step', 'end']);
    const end = events.at(-1) as {header: {explanation: string}};
    expect(end.header.explanation).toBe('fixed it because y');
  });
  it('names the line and field of a bad record', () => {
    const reader = new GenericJsonlReader();
    reader.push({type: 'trajectory', instance: 'i', agent: 'a'}, 1);
    expect(() => reader.push({type: 'step', thought: 5}, 2)).toThrow(FormatError);
    expect(() => reader.push({type: 'step', thought: 5}, 2)).toThrow(
      expect.objectContaining({where: {line: 2, path: '$.thought'}}),
    );
    expect(() => new GenericJsonlReader().push({type: 'step', tool: 'x'}, 1)).toThrow(/first line must be/);
  });
});
