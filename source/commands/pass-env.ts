import {parsePassEnv} from '../services/sandbox.js';
import {UsageError} from './args.js';

/** --pass-env NAME…: the variables a confined run may see, or a usage error naming the bad one.
 * (Apart from args.ts, which every command loads: this one brings the sandbox module.) */
export function passEnvOption(names: string[] | undefined): string[] {
  try {
    return parsePassEnv(names);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
