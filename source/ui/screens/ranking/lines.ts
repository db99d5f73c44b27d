import {RANKING_HEADER, rankingRow, type AgentRanking, type LensResult} from '../../../core/lens/build.js';
import {fit} from '../../../core/text/sanitize.js';
import {textBlock, type DisplayLine} from '../../display-lines.js';

/** The ranking screen: rank by pass rate vs rank by mean quality, with the shift. */
export function rankingLines(
  r: {threshold: LensResult['threshold']; rankings: AgentRanking[]; built_at: string} | null,
  width: number,
): DisplayLine[] {
  if (!r) return [{text: 'No lens build in this database: run `deltalens lens build`.', role: 'muted'}];
  const lines: DisplayLine[] = [
    ...textBlock(`Lens build of ${r.built_at}; threshold ${r.threshold.value} (${r.threshold.note}).`, width).map(
      l => ({...l, role: 'muted' as const}),
    ),
    ...textBlock(
      'Pass rate over runs with a known status; quality = mean over scored runs; shift = pass-rate rank − quality rank (▲ rises when ranked by quality).',
      width,
    ).map(l => ({...l, role: 'muted' as const})),
    {text: ''},
    {text: fit(`  ${RANKING_HEADER}`, width), role: 'heading'},
  ];
  for (const a of r.rankings) {
    lines.push({
      text: fit(`  ${rankingRow(a)}`, width),
      ref: a.agent,
      ...(a.shift !== null && a.shift < 0
        ? {role: 'removed' as const}
        : a.shift !== null && a.shift > 0
          ? {role: 'added' as const}
          : {}),
    });
  }
  return lines;
}
