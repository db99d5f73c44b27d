import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SAMPLES = join(ROOT, 'sample-data', 'trajectories');
/** The shared DEV data beside the checkout (present on developer machines and in CI). */
export const SHARED = join(ROOT, '..', 'shared', 'data', 'trajectories');
