import { ServiceError } from './errors';

// PostgreSQL refuses NUL in text and jsonb, and a UTF-16 half without its pair in jsonb ("\ud800").
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

export const UNSTORABLE_MESSAGE = 'Text may not contain the NUL character (\\u0000) or an unpaired UTF-16 surrogate.';

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** A name as it can be shown back (in an error's path): each refused character as its \uXXXX escape. */
export function printable(name: string): string {
  return name.replace(UNSTORABLE_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The dotted path of the first string or key in a parsed JSON value that PostgreSQL would refuse. */
export function unstorablePath(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path.join('.');
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unstorablePath(item, [...path, String(index)]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!isStorableText(key)) return [...path, printable(key)].join('.');
      const found = unstorablePath(item, [...path, key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** 400 invalid_request naming the field whose text PostgreSQL would refuse. */
export function unstorableInput(path: string): ServiceError {
  return new ServiceError('invalid_request', `Invalid request: ${path || 'the body'}: ${UNSTORABLE_MESSAGE}`, [{ path, message: UNSTORABLE_MESSAGE }]);
}

/** Refuses a parsed JSON value (a body, a JSON form field) holding text PostgreSQL would refuse, naming its path under `root`. */
export function assertStorableJson(value: unknown, root?: string): void {
  const found = unstorablePath(value);
  if (found !== undefined) throw unstorableInput([root, found].filter(Boolean).join('.'));
}
