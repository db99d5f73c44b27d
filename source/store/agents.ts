import type {Db} from './db.js';

export function ensureAgent(db: Db, name: string, model: string): number {
  db.prepare('INSERT INTO agent (name, model) VALUES (?, ?) ON CONFLICT (name, model) DO NOTHING').run(name, model);
  return (db.prepare('SELECT id FROM agent WHERE name = ? AND model = ?').get(name, model) as {id: number}).id;
}
