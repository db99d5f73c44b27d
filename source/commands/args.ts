import {parseArgs, type ParseArgsConfig} from 'node:util';
import {UsageError} from '../core/errors.js';

export {UsageError};

/** Something asked for by id is not in the database (exit 1). */
export class NotFound extends Error {}

/** Exit codes every command shares. */
export const EXIT = {ok: 0, failed: 1, usage: 2} as const;

export type Options = NonNullable<ParseArgsConfig['options']>;

export const COMMON_OPTIONS = {
  db: {type: 'string'},
  json: {type: 'boolean'},
  help: {type: 'boolean', short: 'h'},
} as const satisfies Options;

/** What every command that runs untrusted code takes: the interpreter, no sandbox, variables to pass in. */
export const SANDBOX_OPTIONS = {
  python: {type: 'string'},
  'no-sandbox': {type: 'boolean'},
  'pass-env': {type: 'string', multiple: true},
} as const satisfies Options;

/** node:util parseArgs in strict mode; its complaints become usage errors (exit 2). */
export function parse<O extends Options>(argv: string[], options: O, allowPositionals = true) {
  try {
    return parseArgs({args: argv, options, strict: true, allowPositionals});
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}

export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} takes a whole number (got "${value}")`);
  return n;
}

export {printJson} from './output.js';
