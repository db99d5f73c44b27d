import {highlight} from 'cli-highlight';

/**
 * Syntax highlighting off the render path: one visible line at a time, memoized, so a
 * 10,000-line observation costs only the lines on screen. Lines are highlighted separately so
 * an escape code never bleeds from one rendered line into the next.
 */
const cache = new Map<string, string>();
const LIMIT = 5000;

export type Language = 'bash' | 'python' | 'diff' | 'plain';

export function highlightLine(line: string, language: Language, color: boolean): string {
  if (!color || language === 'plain' || line.length === 0) return line;
  const key = `${language}\0${line}`;
  let out = cache.get(key);
  if (out === undefined) {
    try {
      out = highlight(line, {language, ignoreIllegals: true});
    } catch {
      out = line;
    }
    if (cache.size >= LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, out);
  }
  return out;
}

/** Guess how to colour an observation from the action that produced it. */
export function observationLanguage(action: string | null, observation: string): Language {
  if (/^(diff --git|--- a\/|@@ )/m.test(observation.slice(0, 2000))) return 'diff';
  if (action && /\.py\b/.test(action) && /^(cat|open|view|sed|head|tail|nl|grep -n|str_replace_editor view)\b|\bview\b/.test(action.trim())) {
    return 'python';
  }
  return 'plain';
}
