/**
 * One line saying what an audit tool answered, for `audit show` and the explorer's transcript:
 * a test run's outcomes and delta point, the call chains found, a command's outcome, or the error.
 */
export function toolResultBrief(result: unknown, maxChars = 2000): string {
  if (result === null || typeof result !== 'object') return String(result).slice(0, maxChars);
  const r = result as Record<string, unknown>;
  const cut = (t: string) => (t.length > maxChars ? `${t.slice(0, maxChars - 1)}…` : t);
  if ('error' in r) return cut(`error: ${String(r.error)}`);
  if ('before' in r && 'after' in r) {
    const side = (x: unknown) => (x as {outcome?: string} | null)?.outcome ?? '?';
    return cut(`before ${side(r.before)}, after ${side(r.after)} · ${deltaBrief(r.delta)}`);
  }
  if (Array.isArray(r.chains)) {
    const chains = r.chains as {chain: string[]; times?: number}[];
    const callers = Array.isArray(r.callers) ? r.callers.length : 0;
    const names = chains.map(
      c => `${c.chain.map(f => f.split(' (')[0]).join(' ← ')}${c.times && c.times > 1 ? ` (×${c.times})` : ''}`,
    );
    return cut(
      `${chains.length ? `${chains.length} traced chain${chains.length === 1 ? '' : 's'}: ${names.join('; ')}` : 'no traced chain'} · ${callers} static caller line${callers === 1 ? '' : 's'}`,
    );
  }
  if ('exit_code' in r && 'outcome' in r)
    return cut(
      `${String(r.outcome)} (exit ${String(r.exit_code)})${typeof r.stdout === 'string' && r.stdout.trim() ? ` · ${r.stdout.trim().split('\n').at(-1)}` : ''}`,
    );
  if (typeof r.content === 'string') return cut(`${r.content.length} characters${r.truncated ? ' (cut)' : ''}`);
  return cut(JSON.stringify(r));
}

/** Where behaviour first differs, as diff_execution reports it: the function, file and line, the
 * kind, and the differing values (buggy → patched). */
function deltaBrief(delta: unknown): string {
  if (!delta || typeof delta !== 'object') return 'no delta';
  const d = delta as {
    function?: string;
    file?: string;
    line?: number;
    kind?: string;
    status?: string;
    reason?: string;
    variables?: {name: string; buggy?: unknown; patched?: unknown}[];
  };
  if (!d.function) return `delta ${d.status ?? 'unknown'}${d.reason ? `: ${d.reason}` : ''}`;
  const vars = (d.variables ?? []).map(v =>
    `${v.name} ${JSON.stringify(v.buggy ?? null)} → ${JSON.stringify(v.patched ?? null)}`
      .replace(/\{"\$absent":"[^"]*"\}/g, '(not a local there)')
      .replace(/\{"\$unchanged":"[^"]*"\}/g, '(unchanged)'),
  );
  return `delta at ${d.function} (${d.file}:${d.line}, ${d.kind})${vars.length ? `: ${vars.join(', ')}` : ''}`;
}

/**
 * A delta's differing variable as a tool answers it to a model: both sides always present, a side
 * where the name is not a local of the frame at that point said so ({"$absent": …}), never a
 * null the model would read as a value; a side whose value did not change there, likewise.
 */
export function variableForModel(v: {
  name: string;
  buggy?: unknown;
  patched?: unknown;
  unchangedOn?: 'buggy' | 'patched';
}): {name: string; buggy: unknown; patched: unknown} {
  const side = (s: 'buggy' | 'patched') =>
    v[s] !== undefined
      ? v[s]
      : v.unchangedOn === s
        ? {$unchanged: 'the value it had before this line'}
        : {$absent: `not a local variable of the frame here (${s} side)`};
  return {name: v.name, buggy: side('buggy'), patched: side('patched')};
}
