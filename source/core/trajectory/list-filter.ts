/**
 * The explorer list's `/` filter: free text (instance, agent or model) plus named conditions —
 * `resolved:yes|no|unknown`, `tier:lucky|solid|ideal|none`, `agent:NAME`, `instance:ID`,
 * `reasoning:yes|no` (code reasoning in a thought), `claim:contradicted|confirmed|unverifiable`
 * (a checked claim with that verdict) — in any order.
 * A value with spaces is quoted (`agent:"my agent"`). A word that looks like a condition but is
 * not one stays free text, and says so.
 */
interface ListFilter {
  text?: string;
  resolved?: boolean | null;
  tier?: string | null;
  agent?: string;
  instance?: string;
  reasoning?: boolean;
  claim?: 'confirmed' | 'contradicted' | 'unverifiable';
  /** words that looked like conditions but are not known ones */
  unknown: string[];
}

const TIERS: Record<string, string | null> = {lucky: 'Lucky', solid: 'Solid', ideal: 'Ideal', none: null};
const RESOLVED: Record<string, boolean | null> = {yes: true, no: false, unknown: null};

export function parseListFilter(input: string): ListFilter {
  const out: ListFilter = {unknown: []};
  const free: string[] = [];
  // a condition's value may be quoted to hold spaces: agent:"my agent"
  for (const word of input.match(/[a-z]+:"[^"]*"?|\S+/gi) ?? []) {
    const m = /^(resolved|tier|agent|instance|reasoning|claim):(.+)$/i.exec(word);
    if (!m) {
      free.push(word);
      continue;
    }
    const [, name] = m;
    const raw = m[2]!.replace(/^"|"$/g, '');
    const value = raw!.toLowerCase();
    if (name!.toLowerCase() === 'resolved' && value in RESOLVED) out.resolved = RESOLVED[value];
    else if (name!.toLowerCase() === 'tier' && value in TIERS) out.tier = TIERS[value];
    else if (name!.toLowerCase() === 'agent') out.agent = raw;
    else if (name!.toLowerCase() === 'instance') out.instance = raw;
    else if (name!.toLowerCase() === 'reasoning' && (value === 'yes' || value === 'no'))
      out.reasoning = value === 'yes';
    else if (name!.toLowerCase() === 'claim' && ['confirmed', 'contradicted', 'unverifiable'].includes(value))
      out.claim = value as ListFilter['claim'];
    else {
      out.unknown.push(word);
      free.push(word);
    }
  }
  if (free.length) out.text = free.join(' ');
  return out;
}

/** The list's columns, in the order `s` cycles through them. */
export type SortKey = 'id' | 'instance' | 'agent' | 'resolved' | 'steps' | 'explanation' | 'lens';
export const SORT_KEYS: SortKey[] = ['id', 'instance', 'agent', 'resolved', 'steps', 'explanation', 'lens'];
