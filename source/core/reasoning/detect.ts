/**
 * Code reasoning in an agent's own words (DeskCheck §2): where a step's thought simulates the
 * program — a variable's value (A), who calls whom (B), a loop's course (C), a branch taken
 * (D), a return value or an exception (E) — with the matched span. Reports of what a run
 * showed ("all tests pass", "reproduced the issue", "the output shows …") are observations,
 * kept apart: they are not simulation.
 *
 * Pure, and linear in the text: every pattern's repetitions are bounded, nothing nests.
 */

export type Family = 'A' | 'B' | 'C' | 'D' | 'E';
export type MarkFamily = Family | 'obs';

/** The paper's five families, their names in the artifact's aggregates, and our kinds under them. */
export const TAXONOMY: Record<MarkFamily, {name: string; deskcheck: string | null; kinds: Record<string, string>}> = {
  A: {
    name: 'variable state',
    deskcheck: 'has_state_strong',
    kinds: {
      'state-value': 'a name is, becomes or holds a concrete value ("`total` becomes 3600")',
      'state-update': 'a name is set, reset or updated to a value ("sets `self.x` to None")',
      'state-initial': 'a starting or default value ("`seen` starts as an empty list")',
      'state-hypothetical': 'a value supposed in a condition ("if `unit` is None, …")',
    },
  },
  B: {
    name: 'call dependency',
    deskcheck: 'has_call_dep',
    kinds: {
      'forward-call': 'a function calls, delegates or passes a value to another ("`parse` calls `_tokens`")',
      'backward-call':
        'a function is called from somewhere, or when it is called ("`clean()` is called by `full_clean()`")',
    },
  },
  C: {
    name: 'loop',
    deskcheck: 'has_loop_talk',
    kinds: {
      iteration: 'a particular iteration ("on the second iteration")',
      'loop-course': 'how often a loop runs, or when it stops ("the loop exits after the first unit")',
    },
  },
  D: {
    name: 'conditional',
    deskcheck: 'has_cond_talk',
    kinds: {
      'branch-taken': 'a branch taken or skipped, an early return ("falls through to the else branch")',
      'condition-value': 'what a condition evaluates to ("the check `if not seen` is False")',
    },
  },
  E: {
    name: 'return value / exception',
    deskcheck: 'has_output_talk',
    kinds: {
      'returns-value':
        "a call returns or evaluates to a concrete value (\"calling `_split_opt` returns `('', '-x')`\")",
      'result-is': 'the result or output is a value ("the result is 1800")',
      raises: 'an exception raised ("raises `UnknownUnit`", "fails with a TypeError")',
    },
  },
  obs: {
    name: 'observation (not reasoning)',
    deskcheck: null,
    kinds: {
      'test-outcome': 'a run of the tests reported ("all tests pass", "the test fails")',
      reproduced: 'a reproduction or confirmation reported ("reproduced the issue")',
      'run-output': 'what a run printed or showed; a value stated from it is an observation, not a simulation',
    },
  },
};

export const FAMILY_ORDER: Family[] = ['A', 'B', 'C', 'D', 'E'];

/** The default detector's settings: one place, stored with every tagging run. */
export const DEFAULT_SETTINGS = {
  /** thoughts shorter than this (after cleaning) are not read (the artifact's MIN_THOUGHT_CHARS) */
  minChars: 50,
  /** only the first this many characters of a thought are read (a thought past it is marked) */
  maxChars: 2_000_000,
  /** a task statement line at least this long, repeated in a thought, is not the agent's own text */
  echoLineChars: 40,
  /** how far around a match an observation cue makes it an observation (within its sentence) */
  sentenceChars: 300,
  /** at most this many marks per thought (real thoughts have a handful; a pasted log can repeat one pattern endlessly) */
  maxMarks: 200,
};

type DetectorSettings = typeof DEFAULT_SETTINGS;
/** 2: plain-prose observations, literal conditions, exceptions caused, habitual calls (measured on the labelled steps) */
export const DETECTOR_VERSION = 2;

export interface ReasoningMark {
  family: MarkFamily;
  kind: string;
  /** UTF-16 offsets into the step's thought */
  span: [number, number];
  text: string;
}

const CODE = String.raw`(?:\x60(?!(?:if|elif|while|for|return|raise|assert)\s)[^\x60\n]{1,80}\x60|\bself\.\w{1,40}(?:\.\w{1,40}){0,3}(?:\([^()\n]{0,60}\))?|\b[A-Za-z_]\w{0,40}(?:(?:\.[A-Za-z_]\w{0,40}){1,4}(?:\([^()\n]{0,60}\))?|\([^()\n]{0,60}\)|_\w{1,40}))`;
const VALUE = String.raw`(?:\x60[^\x60\n]{1,80}\x60|'[^'\n]{0,60}'|"[^"\n]{0,60}"|-?\d+(?:\.\d+)?(?!\w|\.\d)|\b(?:True|False|None)\b|\[[^\]\n]{0,60}\]|\{[^}\n]{0,60}\}|\((?:[^()\n]{0,60})\)|\ban? empty (?:list|dict|dictionary|string|tuple|set|queryset)\b|\bempty\b)`;
const EXC = String.raw`(?:\x60?[A-Z]\w{0,40}(?:Error|Exception|Warning|Exit|Interrupt)\x60?)`;
const BE = String.raw`(?:is|was|will\s+be|would\s+be|becomes|became|equals|remains|stays|holds|contains|ends\s+up\s+(?:as|being))`;

interface Pattern {
  family: MarkFamily;
  kind: string;
  re: RegExp;
  /** words every match of `re` contains: a thought without them is not searched (cheap first) */
  gate: RegExp | null;
}

const p = (family: MarkFamily, kind: string, source: string, flags = 'gi', gate: RegExp | null = null): Pattern => ({
  family,
  kind,
  re: new RegExp(source, flags),
  gate,
});

/** In priority order: where two marks of one family overlap, the earlier pattern's is kept. */
export const PATTERNS: Pattern[] = [
  // A — variable state
  p(
    'A',
    'state-hypothetical',
    String.raw`\b(?:if|when|once|while|until|unless)\s+${CODE}\s+(?:is|was|becomes|equals|is\s+set\s+to)\s+(?:not\s+)?${VALUE}`,
  ),
  p(
    'A',
    'state-initial',
    String.raw`${CODE}\s+(?:starts|begins|is\s+initiali[sz]ed)\s+(?:out\s+)?(?:as|at|with|to)\s+${VALUE}|${CODE}\s+is\s+initially\s+${VALUE}|${CODE}\s+defaults\s+to\s+${VALUE}`,
    'gi',
    /\b(?:starts|begins|initiali[sz]ed|initially|defaults)\b/i,
  ),
  p(
    'A',
    'state-update',
    String.raw`${CODE}\s+(?:is|gets|was|will\s+be|would\s+be)\s+(?:set|reset|assigned|updated|changed|incremented|decremented|overwritten|cleared)\s+(?:to|with)\s+${VALUE}|\bsets?\s+${CODE}\s+to\s+${VALUE}`,
    'gi',
    /\b(?:sets?|reset|assigned|updated|changed|incremented|decremented|overwritten|cleared)\s/i,
  ),
  p(
    'A',
    'state-value',
    String.raw`${CODE}\s+${BE}\s+(?:now\s+|still\s+|then\s+|just\s+|only\s+)?${VALUE}|\b[A-Za-z_]\w{0,40}(?:\.\w{1,40}){0,3}\s+is\s+(?:still\s+|now\s+|already\s+|always\s+)?(?:None|True|False)\b`,
    'g',
  ),
  // B — call dependency
  p(
    'B',
    'forward-call',
    String.raw`${CODE}\s+(?:then\s+)?(?:calls|invokes|delegates\s+to|dispatches\s+to|forwards\s+to|hands\s+off\s+to)\s+${CODE}|\b(?:which|it|this|that)\s+(?:then\s+)?(?:calls|invokes|delegates\s+to)\s+${CODE}|${CODE}\s+(?:is|gets)\s+passed\s+(?:to|into)\s+${CODE}`,
    'gi',
    /\b(?:calls|invokes|delegates|dispatches|forwards|hands|passed)\b/i,
  ),
  p(
    'B',
    'forward-call',
    String.raw`\b(?:always|then|first|unconditionally|still|never|now)\s+(?:tries\s+to\s+|attempts\s+to\s+)?(?:calls|invokes|indexes|accesses)\s+(?:${CODE}|\.\w{1,40}\([^)\n]{0,40}\)|[A-Za-z_]\w{0,40}\[[^\]\n]{0,20}\])`,
    'gi',
    /\b(?:calls|invokes|indexes|accesses)\b/i,
  ),
  p(
    'B',
    'backward-call',
    String.raw`${CODE}\s+(?:is|gets|was|will\s+be)\s+(?:called|invoked|triggered)\s+(?:from|by|in|inside|via|within)\s+${CODE}|\b(?:when|after|before|once)\s+${CODE}\s+(?:is|gets)\s+(?:called|invoked)`,
    'gi',
    /\b(?:called|invoked|triggered)\b/i,
  ),
  // C — loop
  p(
    'C',
    'iteration',
    String.raw`\b(?:on|in|during|after|at)\s+(?:the\s+)?(?:first|second|third|fourth|next|last|final|\d+(?:st|nd|rd|th))\s+(?:iteration|pass\s+through\s+the\s+loop)\b|\biteration\s+\d+\b`,
    'gi',
    /\biteration\b|\bpass\s+through\b/i,
  ),
  p(
    'C',
    'loop-course',
    String.raw`\b(?:the\s+)?(?:for\s+|while\s+|inner\s+|outer\s+)?loop\s+(?:exits|breaks|terminates|stops|ends|never\s+(?:runs|executes|starts)|is\s+(?:skipped|never\s+entered)|runs\s+(?:\d+|once|twice|zero|no)\b)|\b(?:breaks|exits)\s+(?:out\s+of\s+)?the\s+(?:for\s+|while\s+)?loop\b|\bnever\s+enters\s+the\s+(?:for\s+|while\s+)?loop\b`,
    'gi',
    /\bloop\b/i,
  ),
  // D — conditional
  p(
    'D',
    'branch-taken',
    String.raw`\b(?:takes|took|enters|entered|hits|reaches|falls\s+(?:into|through\s+to)|goes\s+(?:into|to)|skips)\s+the\s+\x60?(?:if|else|elif|except|finally)\x60?\s+(?:branch|block|clause|path)\b|\bthe\s+\x60?(?:if|else|elif)\x60?\s+(?:branch|block|clause)\s+(?:is|gets)\s+(?:taken|executed|skipped)\b|\b(?:returns|exits|bails\s+out)\s+early\b`,
    'gi',
    /\b(?:branch|block|clause|path|early)\b/i,
  ),
  p(
    'D',
    'condition-value',
    String.raw`\b(?:the\s+)?(?:condition|check|guard)\s+(?:${CODE}\s+)?(?:is|evaluates\s+to|will\s+be|would\s+be)\s+(?:True|False|true|false|met|satisfied|not\s+met|truthy|falsy)\b|\x60(?:if|elif|while)\s[^\x60\n]{1,100}\x60\s+(?:is|evaluates\s+to)\s+(?:True|False|true|false)\b|${CODE}\s+(?:is|evaluates\s+to)\s+(?:truthy|falsy)\b`,
    'gi',
    /\b(?:true|false|met|satisfied|truthy|falsy)\b/i,
  ),
  p(
    'D',
    'condition-value',
    String.raw`\b(?:when|if|unless|once)\s+(?:the\s+|a\s+|an\s+)?(?:[\w.\x60()]{1,40}\s+){1,3}?(?:is|are|returns|equals)\s+(?:not\s+)?(?:the\s+literal\s+)?(?:None|True|False|empty|missing|absent)\b`,
    'gi',
    /\b(?:none|true|false|empty|missing|absent)\b/i,
  ),
  // E — return value / exception
  p(
    'E',
    'returns-value',
    String.raw`\bcalling\s+${CODE}\s+(?:returns|gives|yields|produces)\s+${VALUE}|${CODE}\s+(?:returns|returned|will\s+return|would\s+return|yields|evaluates\s+to|produces)\s+(?:back\s+)?${VALUE}|${CODE}\s*(?:->|=>|→)\s*${VALUE}`,
    'gi',
    /\b(?:returns?|returned|gives|yields|evaluates|produces)\b|->|=>|→/i,
  ),
  p(
    'E',
    'result-is',
    String.raw`\bthe\s+(?:result|output|return\s+value|returned\s+value)\s+(?:of\s+${CODE}\s+)?(?:is|will\s+be|would\s+be|becomes)\s+${VALUE}`,
    'gi',
    /\b(?:result|output|value)\b/i,
  ),
  p(
    'E',
    'raises',
    String.raw`\b(?:raises|raised|raising|throws|will\s+raise|would\s+raise|[Cc]ausing|[Cc]auses|[Cc]aused|[Ll]eads?\s+to|[Rr]esults?\s+in)\s+(?:an?\s+|the\s+)?${EXC}|${EXC}\s+(?:is|gets|will\s+be|would\s+be)\s+(?:raised|thrown)\b|\bfails\s+with\s+(?:an?\s+|the\s+)?${EXC}|\b(?:this|which|that|it)\s+(?:fails|will\s+fail|would\s+fail)\s+(?:if|when|because)\b`,
    'g',
    /rais|throw|caus|lead|result|fail/i,
  ),
  p(
    'E',
    'returns-value',
    String.raw`\b(?:returns|will\s+return|would\s+return)\s+(?:a\s+|an\s+)?(?:None|True|False|-?\d+(?:\.\d+)?(?!\w|\.\d)|zero|empty\s+\w+|no\s+\w+)\b|\(expected\s+(?:None|True|False|-?\d+|'[^'\n]{0,40}'|"[^"\n]{0,40}")\)`,
    'gi',
    /\breturn|\(expected/i,
  ),
  // observations
  p(
    'obs',
    'test-outcome',
    String.raw`\b(?:all|the|both|every|these|those|existing|new)\s+(?:\w{1,20}\s+)?tests?\s+(?:now\s+|still\s+)?(?:pass|passes|passed|fail|fails|failed)\b`,
    'gi',
    /\btests?\b/i,
  ),
  p(
    'obs',
    'run-output',
    String.raw`\b(?:the|my)\s+previous\s+(?:\w+\s+){0,3}?(?:failed|didn't|did\s+not|returned|was\s+too|showed|supposedly)\b|\b(?:failed|errored)\s+(?:due\s+to|because|with)\b|\b(?:tests?|repro\w*|output|traceback|run|check|search|grep|script|command)\s+(?:\w+\s+){0,3}?(?:shows?|showed|indicates?|printed|reported|returned\s+no|found\s+no)\b|\b(?:compiled|compiles)\s+successfully\b|\bverified\s+(?:that\s+)?(?:the\s+)?\w+\s+(?:compiles|works|runs|passes)\b|\b(?:wasn't|was\s+not)\s+found\b|\b(?:I\s+)?(?:verified|confirmed|validated)\s+(?:that\s+|it\s+|both\s+|the\s+)\b`,
  ),
  p(
    'obs',
    'reproduced',
    String.raw`\b(?:successfully\s+)?(?:reproduced|reproduces|confirmed|confirms|verified|verifies)\s+(?:that\s+)?(?:the\s+)?(?:issue|bug|error|fix|problem|behaviou?r|crash|failure)\b`,
    'gi',
    /\b(?:reproduc|confirm|verif)/i,
  ),
];

/** A sentence (around a match) that reports what a run showed. */
const OBSERVED =
  /\b(?:the\s+)?(?:output|script|run|traceback|log|result|reproduction|test\s+run)\s+(?:now\s+)?(?:shows|showed|printed|prints|confirms|confirmed|indicates|displays)\b|\bas\s+(?:we\s+can\s+see|shown|expected\s+from\s+the\s+output)\b|\b(?:we|i)\s+(?:can\s+)?(?:see|saw)\s+(?:that|from|in)\b|\b(?:printed|outputs?)\s*:|\bit\s+(?:printed|prints)\b|\bnow\s+(?:prints|outputs|shows)\b/i;

/**
 * The thought with what is not the agent's prose blanked (same length, newlines kept, so spans
 * point into the original): fenced code blocks, runs of two or more numbered listing lines
 * (`cat -n` / `nl` output pasted back), a `<pr_description>` block, and lines of the task
 * statement repeated verbatim.
 */
export function proseOnly(
  thought: string,
  task: string | null = null,
  settings: DetectorSettings = DEFAULT_SETTINGS,
): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  let text = thought.length > settings.maxChars ? thought.slice(0, settings.maxChars) : thought;
  text = text.replace(/```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)/g, blank);
  text = text.replace(/<pr_description\b[^>]{0,200}>[\s\S]*?<\/pr_description\s*>/gi, blank);
  const lines = text.split('\n');
  const numbered = (l: string) => /^\s{0,8}\d{1,7}[\t:]\s/.test(l);
  for (let i = 0; i < lines.length; ) {
    if (!numbered(lines[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && numbered(lines[j]!)) j++;
    if (j - i >= 2) for (let k = i; k < j; k++) lines[k] = blank(lines[k]!);
    i = j;
  }
  if (task) {
    const echoed = new Set(
      task
        .split('\n')
        .map(l => l.trim())
        .filter(l => l.length >= settings.echoLineChars),
    );
    for (let k = 0; k < lines.length; k++) if (echoed.has(lines[k]!.trim())) lines[k] = blank(lines[k]!);
  }
  return lines.join('\n');
}

function sentenceAround(text: string, start: number, end: number, limit: number): string {
  let s = start;
  while (s > 0 && start - s < limit && !/[.!?\n]/.test(text[s - 1]!)) s--;
  let e = end;
  while (e < text.length && e - end < limit && !/[.!?\n]/.test(text[e]!)) e++;
  return text.slice(s, e);
}

/** The default detector: every mark in a thought, in text order. */
export function detectReasoning(
  thought: string | null,
  o: {task?: string | null; settings?: DetectorSettings} = {},
): ReasoningMark[] {
  const settings = o.settings ?? DEFAULT_SETTINGS;
  if (!thought) return [];
  const text = proseOnly(thought, o.task ?? null, settings);
  if (text.replace(/\s+/g, '').length < settings.minChars) return [];
  const marks: ReasoningMark[] = [];
  const overlaps = (m: ReasoningMark) =>
    marks.some(x => x.family === m.family && x.span[0] < m.span[1] && m.span[0] < x.span[1]);
  for (const pat of PATTERNS) {
    if (pat.gate && !pat.gate.test(text)) continue;
    for (const m of text.matchAll(pat.re)) {
      const span: [number, number] = [m.index!, m.index! + m[0].length];
      let mark: ReasoningMark = {family: pat.family, kind: pat.kind, span, text: thought.slice(span[0], span[1])};
      // a value stated in a sentence that reports a run is what the run showed, not a simulation
      if (mark.family !== 'obs' && OBSERVED.test(sentenceAround(text, span[0], span[1], settings.sentenceChars)))
        mark = {...mark, family: 'obs', kind: 'run-output'};
      if (!overlaps(mark)) marks.push(mark);
      if (marks.length >= settings.maxMarks) break;
    }
    if (marks.length >= settings.maxMarks) break;
  }
  return marks.sort((a, b) => a.span[0] - b.span[0] || a.span[1] - b.span[1]);
}
