import {warn} from './output.js';
import type {Db} from '../store/db.js';
import {sumCounts} from '../store/team.js';
import {syncTeam, TeamUnavailable, type SyncReport} from '../services/team.js';

export const TEAM_OPTION_HELP = `  --team URL        the team's PostgreSQL server (postgres://user@host/db; or $DELTALENS_TEAM):
                    labels, adjudications and flags are sent there and everyone's brought back
                    here; a server that is down loses nothing (the next sync sends it)`;

/** A one-line account of a sync (or of every sync of a session: `over`). */
export function syncLine(r: SyncReport, over?: string): string {
  const names: [keyof SyncReport['sent'], string][] = [
    ['labels', 'label'],
    ['adjudications', 'adjudication'],
    ['flags', 'flag'],
    ['reviews', 'review'],
    ['stages', 'stage correction'],
  ];
  // only what moved: "sent 3 labels, 1 flag; received nothing"
  const n = (c: SyncReport['sent']) =>
    names
      .filter(([k]) => c[k] > 0)
      .map(([k, name]) => `${c[k]} ${name}${c[k] === 1 ? '' : 's'}`)
      .join(', ') || 'nothing';
  return `team ${r.server}${over ? `, ${over}` : ''}: sent ${n(r.sent)}; received ${n(r.received)}${r.notHere ? `; ${r.notHere} about questions, explanations or runs this store does not have` : ''}`;
}

/** A sync's report with what earlier syncs sent and received added. */
export function addCounts(r: SyncReport, earlier: Pick<SyncReport, 'sent' | 'received'>): SyncReport {
  return {...r, sent: sumCounts(r.sent, earlier.sent), received: sumCounts(r.received, earlier.received)};
}

/**
 * A sync before (or after) a command's work: said in one line; a server that cannot be reached is
 * said in one line too, and the command goes on with this store (null).
 */
export async function syncOrSay(db: Db, url: string | undefined, quiet = false): Promise<SyncReport | null> {
  if (!url) return null;
  try {
    const r = await syncTeam(db, url);
    if (!quiet) warn(syncLine(r));
    return r;
  } catch (error) {
    if (!(error instanceof TeamUnavailable)) throw error;
    warn(`deltalens: ${error.message}; working with this store (its labels stay here and go with the next sync)`);
    return null;
  }
}
