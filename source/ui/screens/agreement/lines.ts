import {AUTO_FLAG_TEXT, FLAG_TEXT, type AutoFlag} from '../../../core/questions/annotation.js';
import {fit} from '../../../core/text/sanitize.js';
import {agreementText, type AgreementReport} from '../../../services/annotation.js';
import type {FlagRow} from '../../../store/annotations.js';
import {textBlock, type DisplayLine} from '../../components/text-view.js';

/** The agreement screen: the same lines as `deltalens agreement`, fitted to the screen (notes wrapped). */
export function agreementLines(r: AgreementReport, width: number): DisplayLine[] {
  return agreementText(r).flatMap(l =>
    l.text.startsWith('note: ') || l.text.startsWith('No labels yet')
      ? textBlock(l.text, width).map(x => ({...x, role: 'muted' as const}))
      : [{text: fit(l.text, width), ...(l.role ? {role: l.role} : {})}],
  );
}

/** The flags section of the question screen. */
export function flagLines(f: {people: FlagRow[]; automatic: AutoFlag[]}, width: number): DisplayLine[] {
  const lines: DisplayLine[] = [{text: ''}, {text: 'Flags (f adds yours)', role: 'heading'}];
  if (!f.people.length && !f.automatic.length) lines.push({text: 'none', role: 'muted'});
  for (const p of f.people)
    lines.push(...textBlock(`${p.author}: ${FLAG_TEXT[p.verdict]}${p.note ? ` — ${p.note}` : ''}`, width));
  for (const a of f.automatic)
    lines.push(
      ...textBlock(`automatic: ${AUTO_FLAG_TEXT[a.reason]} (${a.evidence})`, width).map(l => ({
        ...l,
        role: 'muted' as const,
      })),
    );
  return lines;
}
