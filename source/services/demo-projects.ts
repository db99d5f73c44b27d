/**
 * The demo projects (sample-data/projects/NAME: project.json, repo/, patches/*.diff) — what the
 * demo build traces, builds questions on and audits, and where commands find a demo instance's
 * checkout. Kept apart from the demo build so the services that only need a checkout (the audit)
 * do not import the build.
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {packageRoot} from '../package-root.js';

export const ROOT = packageRoot();
export const SAMPLE_DIR = join(ROOT, 'sample-data');
export const PROJECTS_DIR = join(SAMPLE_DIR, 'projects');

export interface DemoProject {
  name: string;
  dir: string;
  instance: string;
  repo: string;
  test: string;
  problemStatement: string;
  patches: {name: string; file: string; description: string}[];
}

/** The demo projects (sample-data/projects/NAME/{project.json, repo/, patches/*.diff}); gold first. */
export function demoProjects(): DemoProject[] {
  if (!existsSync(PROJECTS_DIR)) return [];
  return readdirSync(PROJECTS_DIR, {withFileTypes: true})
    .filter(entry => entry.isDirectory() && existsSync(join(PROJECTS_DIR, entry.name, 'project.json')))
    .map(entry => entry.name)
    .sort()
    .map(name => {
      const dir = join(PROJECTS_DIR, name);
      const meta = JSON.parse(readFileSync(join(dir, 'project.json'), 'utf8')) as {
        instance: string;
        repo: string;
        test: string;
        problem_statement: string;
        patches: Record<string, string>;
      };
      const order = (p: string) => (p === 'gold' ? '0' : `1${p}`);
      const patches = Object.keys(meta.patches)
        .sort((a, b) => order(a).localeCompare(order(b)))
        .map(p => ({name: p, file: join(dir, 'patches', `${p}.diff`), description: meta.patches[p]!}));
      return {
        name,
        dir,
        instance: meta.instance,
        repo: meta.repo,
        test: meta.test,
        problemStatement: meta.problem_statement,
        patches,
      };
    });
}

/** The demo projects' checkouts (sample-data/projects/NAME/repo), by instance. */
export function demoCheckouts(): {instance: string; dir: string}[] {
  return demoProjects()
    .map(p => ({instance: p.instance, dir: join(p.dir, 'repo')}))
    .filter(p => existsSync(p.dir));
}
