import { errors, type ServiceError } from './errors';
import { t } from './i18n';

// PostgreSQL refuses NUL in text and jsonb, and a UTF-16 half without its pair in jsonb ("\ud800").
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what PostgreSQL refuses
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** Why such text is refused (errors.input.unstorable). */
export function unstorableMessage(): string {
  return t('errors.input.unstorable');
}

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** A name as it can be shown back (in an error's path): each refused character as its \uXXXX escape. */
export function printable(name: string): string {
  return name.replace(UNSTORABLE_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

interface Step {
  value: unknown;
  key?: string;
  /** The key is an object's (checked too), not an array index. */
  named?: boolean;
  parent?: Step;
}

function pathOf(step: Step): string {
  const keys: string[] = [];
  for (let at: Step | undefined = step; at?.key !== undefined; at = at.parent) keys.push(printable(at.key));
  return keys.reverse().join('.');
}

/**
 * The dotted path of the first string or key in a parsed JSON value that PostgreSQL would refuse.
 * Walked with a stack of its own, not recursion: JSON.parse takes nesting a million deep.
 */
export function unstorablePath(value: unknown): string | undefined {
  const pending: Step[] = [{ value }];
  while (pending.length > 0) {
    const step = pending.pop()!;
    if (step.named && !isStorableText(step.key!)) return pathOf(step);
    const current = step.value;
    if (typeof current === 'string') {
      if (!isStorableText(current)) return pathOf(step);
    } else if (current && typeof current === 'object') {
      const entries = Array.isArray(current) ? current.map((item, index) => [String(index), item] as const) : Object.entries(current);
      const named = !Array.isArray(current);
      // Pushed last to first, so they are visited in document order.
      for (let index = entries.length - 1; index >= 0; index--)
        pending.push({ value: entries[index][1], key: entries[index][0], named, parent: step });
    }
  }
  return undefined;
}

/** 400 invalid_request naming the field whose text PostgreSQL would refuse. */
export function unstorableInput(path: string): ServiceError {
  const reason = unstorableMessage();
  const message = path ? t('errors.input.unstorable_at', { path, reason }) : t('errors.input.unstorable_body', { reason });
  return errors.invalidRequest(message, [{ path, message: reason }]);
}

/** Refuses a parsed JSON value (a body, a JSON form field) holding text PostgreSQL would refuse, naming its path under `root`. */
export function assertStorableJson(value: unknown, root?: string): void {
  const found = unstorablePath(value);
  if (found !== undefined) throw unstorableInput([root, found].filter(Boolean).join('.'));
}
