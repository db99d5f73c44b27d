/**
 * One registry of trajectory formats: what `import --format` accepts and lists, what the importer
 * parses with, and docs/import.md's table all come from it.
 */
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {formatTable, TRAJECTORY_FORMATS} from '../../source/core/trajectory/formats.js';
import {IMPORT_FORMATS} from '../../source/services/importer.js';
import {freshDb, importInto} from '../helpers/db.js';
import {SAMPLES} from '../helpers/files.js';
import {ROOT} from '../helpers/paths.js';
import {runCli} from '../helpers/hostile.js';

describe('the trajectory-format registry', () => {
  it('docs/import.md shows its table; import --help and --format name every format in it', () => {
    expect(readFileSync(join(ROOT, 'docs', 'import.md'), 'utf8')).toContain(formatTable());
    const help = runCli(['import', '--help'], {}).stdout;
    for (const f of TRAJECTORY_FORMATS)
      expect(help).toMatch(new RegExp(`^\\s+${f.name}\\s+${f.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    expect([...IMPORT_FORMATS]).toEqual(['auto', ...TRAJECTORY_FORMATS.map(f => f.name)]);
  });

  it('each format with a parser reads its real sample file when named with --format', () => {
    const samples: Record<string, string> = {
      'mini-swe-agent': join(SAMPLES, 'mini-swe-agent', 'django__django-11099.traj.json'),
      'swe-agent': join(SAMPLES, 'swe-agent', 'pydicom__pydicom-1458.traj'),
      openhands: join(SAMPLES, 'openhands', 'basic.json'),
    };
    for (const f of TRAJECTORY_FORMATS.filter(x => x.parse)) {
      const {db} = freshDb();
      const r = importInto(db, [samples[f.name]!], {format: f.name});
      expect(r.failed, f.name).toEqual([]);
      expect(
        r.added.map(a => a.format),
        f.name,
      ).toEqual([f.name]);
    }
  });
});
