import {AUTO_FLAG_TEXT, FLAG_TEXT, type AutoFlag} from '../../core/questions/annotation.js';
import {fit} from '../../core/text/sanitize.js';
import type {AgreementReport} from '../../services/annotation.js';
import type {FlagRow} from '../../store/annotations.js';
import {textBlock, type DisplayLine} from '../components/text-view.js';

const k = (x: number | null) => (x === null ? '—' : x.toFixed(3));
const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 100)}%`);

/** The agreement screen: the same figures as `deltalens agreement`. */
export function agreementLines(r: AgreementReport, width: number): DisplayLine[] {
  if (!r.items_labelled) return [{text: 'No labels yet: deltalens annotate --annotator NAME (or deltalens annotations import FILE).', role: 'muted'}];
  const lines: DisplayLine[] = [
    {text: `${r.items_labelled} items labelled by ${r.annotators.length} people: ${r.annotators.join(', ')}`},
    {text: `Fleiss' κ ${k(r.fleiss_kappa)} over ${r.fleiss.n} items with ${r.fleiss.raters} labels each${r.fleiss.left_out ? ` (${r.fleiss.left_out} left out)` : ''}`},
    {text: ''},
    {text: fit(`${'people, pairwise'.padEnd(30)} items   raw      κ`, width), role: 'heading'},
    ...r.pairs.map(p => ({text: fit(`${`${p.a} – ${p.b}`.padEnd(30)} ${String(p.n).padStart(5)}  ${pct(p.raw).padStart(4)}  ${k(p.cohen_kappa).padStart(6)}`, width)})),
    {text: ''},
    {text: fit(`${'by question type'.padEnd(30)} items  Fleiss κ`, width), role: 'heading'},
    ...Object.entries(r.by_type).map(([t, v]) => ({text: fit(`${t.padEnd(30)} ${String(v.items).padStart(5)}  ${k(v.fleiss_kappa).padStart(8)}   pairs ${v.pairs.map(p => k(p.cohen_kappa)).join(' ')}`, width)})),
    {text: ''},
    {text: fit(`${'person vs model majority'.padEnd(44)} items   raw      κ`, width), role: 'heading'},
    ...r.human_vs_model.map(h => ({text: fit(`${`${h.annotator} – ${h.model}${h.baseline ? ' (baseline)' : ''}`.padEnd(44)} ${String(h.n).padStart(5)}  ${pct(h.raw).padStart(4)}  ${k(h.cohen_kappa).padStart(6)}`, width)})),
  ];
  const adj = r.human_vs_adjudicated.filter(h => h.n);
  if (adj.length) {
    lines.push({text: ''}, {text: fit(`${'person vs adjudicated'.padEnd(30)} items   raw      κ`, width), role: 'heading'});
    for (const h of adj) lines.push({text: fit(`${h.annotator.padEnd(30)} ${String(h.n).padStart(5)}  ${pct(h.raw).padStart(4)}  ${k(h.cohen_kappa).padStart(6)}`, width)});
  }
  lines.push({text: ''}, ...r.notes.flatMap(n => textBlock(`note: ${n}`, width).map(l => ({...l, role: 'muted' as const}))));
  return lines;
}

/** The flags section of the question screen. */
export function flagLines(f: {people: FlagRow[]; automatic: AutoFlag[]}, width: number): DisplayLine[] {
  const lines: DisplayLine[] = [{text: ''}, {text: 'Flags (f adds yours)', role: 'heading'}];
  if (!f.people.length && !f.automatic.length) lines.push({text: 'none', role: 'muted'});
  for (const p of f.people) lines.push(...textBlock(`${p.author}: ${FLAG_TEXT[p.verdict]}${p.note ? ` — ${p.note}` : ''}`, width));
  for (const a of f.automatic) lines.push(...textBlock(`automatic: ${AUTO_FLAG_TEXT[a.reason]} (${a.evidence})`, width).map(l => ({...l, role: 'muted' as const})));
  return lines;
}
