import {FormatError} from './model.js';

/** Small readers that name the JSON path of whatever is missing or of the wrong type. */

export type Json = null | boolean | number | string | Json[] | {[key: string]: Json};
export type JsonObject = {[key: string]: Json};

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function objectAt(value: unknown, path: string): JsonObject {
  if (!isObject(value)) throw new FormatError(`expected an object, found ${typeName(value)}`, {path});
  return value;
}

export function arrayAt(value: unknown, path: string): Json[] {
  if (!Array.isArray(value)) {
    throw new FormatError(
      value === undefined ? 'required array is missing' : `expected an array, found ${typeName(value)}`,
      {path},
    );
  }
  return value;
}

export function requiredString(object: JsonObject, key: string, path: string): string {
  const value = object[key];
  if (typeof value !== 'string') {
    throw new FormatError(
      value === undefined ? 'required string is missing' : `expected a string, found ${typeName(value)}`,
      {path: `${path}.${key}`},
    );
  }
  return value;
}

export function optionalString(object: JsonObject, key: string, path: string): string | null {
  const value = object[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    throw new FormatError(`expected a string, found ${typeName(value)}`, {path: `${path}.${key}`});
  }
  return value;
}

export function optionalNumber(object: JsonObject | undefined, key: string): number | null {
  const value = object?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Text of a chat message `content`, which is a string or a list of `{type: "text", text}` parts. */
export function contentText(value: unknown, path: string): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    return value
      .map((part, index) => {
        if (typeof part === 'string') return part;
        const object = objectAt(part, `${path}[${index}]`);
        return typeof object['text'] === 'string' ? object['text'] : '';
      })
      .join('');
  }
  throw new FormatError(`expected message content as a string or a list of parts, found ${typeName(value)}`, {path});
}
