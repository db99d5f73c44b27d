/**
 * A real PostgreSQL server for tests: initdb and pg_ctl (Debian's postgresql package) in a
 * temporary folder, on a free local port, trusting local connections. PostgreSQL refuses to
 * run as root: run as root (CI, containers), the server runs as the postgres user (runuser).
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {chownSync, existsSync, mkdtempSync, readdirSync, rmSync} from 'node:fs';
import {createServer} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

/** The folder of initdb and pg_ctl, or null (with why) when PostgreSQL is not installed. */
export function postgresBin(): {bin: string | null; why: string} {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const bin = join(root, v, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return {bin, why: ''};
  }
  return {bin: null, why: 'PostgreSQL is not installed (apt-get install -y postgresql)'};
}

async function freePort(): Promise<number> {
  return new Promise(resolve => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as {port: number}).port;
      s.close(() => resolve(port));
    });
  });
}

export interface TestPostgres {
  url: string;
  stop(): void;
  start(): void;
  remove(): void;
}

export async function startPostgres(): Promise<TestPostgres> {
  const {bin, why} = postgresBin();
  if (!bin) throw new Error(why);
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'deltalens-pg-'));
  const data = join(dir, 'data');
  if (root) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], {encoding: 'utf8'}).trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const as = (exe: string, args: string[]) => {
    const r = root
      ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, exe), ...args], {encoding: 'utf8'})
      : spawnSync(join(bin, exe), args, {encoding: 'utf8'});
    if (r.status !== 0) throw new Error(`${exe} failed: ${r.stderr || r.stdout}`);
  };
  as('initdb', ['-D', data, '-A', 'trust', '-U', 'deltalens', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  return {
    url: `postgres://deltalens@127.0.0.1:${port}/postgres`,
    start,
    stop,
    remove: () => {
      try {
        stop();
      } catch {
        /* stopped already */
      }
      rmSync(dir, {recursive: true, force: true});
    },
  };
}
