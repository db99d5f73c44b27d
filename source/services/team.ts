/**
 * A team's human work on one PostgreSQL server (`--team postgres://…` or $DELTALENS_TEAM): people's
 * labels, adjudications, question flags, reviewers' accepts and rejects, and corrections of a
 * step's stage. The heavy data (runs, traces, questions, explanations) stays in each person's own
 * store, imported from the same sources; the server holds only the human work, keyed by what
 * every store agrees on — the question id, the explanation's and the run's content hash, the
 * person.
 *
 * Every write goes to the local store first (as without a team). A sync sends all of it to the
 * server and brings everyone's back into the local store — the
 * newer of two writes of one key wins on both ends — so a server that is down loses nothing: the
 * next sync sends what is waiting. Agreement, conflicts, adjudication and flags then work on the
 * local store as they always do, with the whole team's labels in it.
 */
import pg from 'pg';
import type {Db} from '../store/db.js';
import {localTeamRows, mergeTeamRows, noCounts, sumCounts, type TeamCounts} from '../store/team.js';
import {migrateServer, readRows, sendRows, TeamSchemaError} from '../store/team-server.js';

const CONNECT_TIMEOUT_MS = 5000;

/** The server cannot be reached or refused us: one line, nothing lost. */
export class TeamUnavailable extends Error {}

/** --team, else $DELTALENS_TEAM; undefined: no team. */
export function teamUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = flag ?? env.DELTALENS_TEAM;
  return url?.trim() ? url.trim() : undefined;
}

/** The URL as it may be shown: without its password. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(a URL that does not parse)';
  }
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS});
  // an error after connecting (the server stopped) is thrown by the query that meets it
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    const code = (error as {code?: string}).code;
    throw new TeamUnavailable(
      `the team server ${shownUrl(url)} cannot be reached (${code ?? (error as Error).message.split('\n')[0]})`,
    );
  }
  return client;
}

export interface SyncReport {
  server: string;
  migrations: string[];
  /** rows of this store the server did not have in this form */
  sent: TeamCounts;
  /** rows of others (or of this person elsewhere) that were new here */
  received: TeamCounts;
  /** the server's rows about a question, explanation or run this store does not have */
  notHere: number;
}

/** Sends this store's human work to the team server and brings the team's back. */
export async function syncTeam(db: Db, url: string): Promise<SyncReport> {
  const client = await connect(url);
  try {
    const migrations = await migrateServer(client);
    const sent = await sendRows(client, localTeamRows(db));
    const {received, notHere} = mergeTeamRows(db, await readRows(client));
    return {server: shownUrl(url), migrations, sent, received, notHere};
  } catch (error) {
    if (error instanceof TeamUnavailable) throw error;
    if (error instanceof TeamSchemaError) throw new TeamUnavailable(error.message);
    const code = (error as {code?: string}).code;
    throw new TeamUnavailable(
      `the team server ${shownUrl(url)} failed midway (${code ? `${code}: ` : ''}${(error as Error).message.split('\n')[0]}); nothing is lost: the next sync sends it again`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A session's writes sent as they happen: after each write a sync runs in the background — one
 * at a time, and once more when writes came in meanwhile. A server that cannot be reached is
 * remembered (said once, at the end) and the writes wait in the store for the next sync.
 */
export class TeamSyncer {
  private running: Promise<void> | null = null;
  private again = false;
  /** the last sync's failure, null once one succeeds */
  failure: string | null = null;
  /** what this syncer's syncs sent and received, summed */
  sent = noCounts();
  received = noCounts();

  constructor(
    private readonly db: Db,
    private readonly url: string,
  ) {}

  /** A write was stored: send it (and whatever else waits). */
  wrote(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          const r = await syncTeam(this.db, this.url);
          this.sent = sumCounts(this.sent, r.sent);
          this.received = sumCounts(this.received, r.received);
          this.failure = null;
        } catch (error) {
          if (!(error instanceof TeamUnavailable)) throw error;
          this.failure = error.message;
        }
      } while (this.again);
    })().finally(() => {
      this.running = null;
    });
  }

  /** Resolves when no sync is running. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}
