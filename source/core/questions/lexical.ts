/**
 * `lexical`: the offline, deterministic baseline QA model (always labelled a baseline). It
 * reads the prompt the way a careless reader would: words only.
 *
 * - The explanation is the text between "*** Explanation Start ***" and "*** Explanation
 *   End ***"; the options are the lines "A. …" after "Question:".
 * - Words: lower-case runs of letters, digits and underscores, minus a short stop list.
 * - An option's score is the share of its words that occur in the explanation.
 * - The best-scoring option wins (ties: the earlier option). If the explanation has no words,
 *   or no option scores above 0.2, it answers the "insufficient" option (the one saying the
 *   explanation is insufficient / the question cannot be answered).
 * - Two-letter questions (end-to-end effect): "before" is the best-scoring option that says
 *   the test failed; "after" is the option saying the test passed when the explanation says
 *   fix/fixed/resolve/pass, else the same as "before".
 */

const STOP = new Set(
  'a an and are as at be by for from in is it of on or that the this to was were with which what when'.split(' '),
);

export function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9_]+/g) ?? []).filter(w => !STOP.has(w));
}

export function lexicalAnswer(prompt: string): string {
  const start = prompt.indexOf('*** Explanation Start ***');
  const end = prompt.indexOf('*** Explanation End ***');
  const explanation = start >= 0 && end > start ? prompt.slice(start + 25, end) : '';
  const qAt = prompt.lastIndexOf('Question:');
  const options = [...prompt.slice(Math.max(qAt, 0)).matchAll(/^([A-Z])\. (.*)$/gm)].map(m => ({
    label: m[1]!,
    text: m[2]!,
  }));
  if (!options.length) return '';
  const insufficient = options.find(o => /insufficient|cannot be answered/i.test(o.text)) ?? options.at(-1)!;
  const vocab = new Set(words(explanation));
  const score = (text: string) => {
    const w = words(text);
    return w.length ? w.filter(x => vocab.has(x)).length / w.length : 0;
  };
  const best = (candidates: typeof options) => {
    let pick: (typeof options)[number] | null = null;
    let top = 0.2;
    for (const o of candidates) {
      const s = score(o.text);
      if (s > top) {
        top = s;
        pick = o;
      }
    }
    return pick;
  };
  const answerable = options.filter(o => o !== insufficient);
  if (/two letters/.test(prompt)) {
    if (!vocab.size) return `${insufficient.label}, ${insufficient.label}`;
    const before = best(answerable.filter(o => /fail/i.test(o.text))) ?? insufficient;
    const passed = options.find(o => /test passed/i.test(o.text));
    const claimsFix = /\b(fix|fixed|fixes|resolve[sd]?|pass(es|ed)?)\b/i.test(explanation);
    return `${before.label}, ${(claimsFix && passed ? passed : before).label}`;
  }
  if (!vocab.size) return insufficient.label;
  return (best(answerable) ?? insufficient).label;
}
