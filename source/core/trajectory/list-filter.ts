/**
 * The explorer list's `/` filter: free text (instance, agent or model) plus named conditions —
 * `resolved:yes|no|unknown`, `tier:lucky|solid|ideal|none`, `agent:NAME` — in any order.
 * A word that looks like a condition but is not one stays free text, and says so.
 */
export interface ListFilter {
  text?: string;
  resolved?: boolean | null;
  tier?: string | null;
  agent?: string;
  /** words that looked like conditions but are not known ones */
  unknown: string[];
}

const TIERS: Record<string, string | null> = {lucky: 'Lucky', solid: 'Solid', ideal: 'Ideal', none: null};
const RESOLVED: Record<string, boolean | null> = {yes: true, no: false, unknown: null};

export function parseListFilter(input: string): ListFilter {
  const out: ListFilter = {unknown: []};
  const free: string[] = [];
  for (const word of input.split(/\s+/).filter(Boolean)) {
    const m = /^(resolved|tier|agent):(.+)$/i.exec(word);
    if (!m) {
      free.push(word);
      continue;
    }
    const [, name, raw] = m;
    const value = raw!.toLowerCase();
    if (name!.toLowerCase() === 'resolved' && value in RESOLVED) out.resolved = RESOLVED[value];
    else if (name!.toLowerCase() === 'tier' && value in TIERS) out.tier = TIERS[value];
    else if (name!.toLowerCase() === 'agent') out.agent = raw;
    else {
      out.unknown.push(word);
      free.push(word);
    }
  }
  if (free.length) out.text = free.join(' ');
  return out;
}
