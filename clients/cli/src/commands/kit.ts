// What every command file shares: the errors that end a command, the option parsers, and the kit a group registers with.
import type { SvcClient } from '@svc-agents/sdk';
import { type Command, InvalidArgumentError } from 'commander';
import type { Output, Streams } from '../output';

/**
 * Exit codes: 0 done, 1 the API refused (or `svc verify`: the PDF is not valid), 2 the command line
 * is wrong, 3 the service could not be reached.
 */
export const EXIT = { ok: 0, refused: 1, usage: 2, network: 3 } as const;

export class UsageError extends Error {}

/** The command printed its answer; it ends with this exit code (`svc verify` of a PDF that is not valid). */
export class Outcome extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

/** `Ann Example <ann@example.com>` (or a bare e-mail) as a signer or recipient. */
export function person(value: string, previous: Array<{ name: string; email: string }> = []) {
  const match = /^\s*(.*?)\s*<([^<>\s]+@[^<>\s]+)>\s*$/.exec(value) ?? /^\s*()([^\s<>]+@[^\s<>]+)\s*$/.exec(value);
  if (!match) throw new InvalidArgumentError('expected "Name <e-mail>" or an e-mail');
  return [...previous, { name: match[1] || match[2].split('@')[0], email: match[2] }];
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A field's value as a command line or a CSV cell writes it: `true` and `false` tick a checkbox, anything else is text. */
export const fieldValue = (text: string): string | boolean => (text === 'true' ? true : text === 'false' ? false : text);

/** `--value name=value` (repeated): the fields a document is prefilled with, by name. */
export function namedValue(value: string, previous: Record<string, string | boolean> = {}) {
  const at = value.indexOf('=');
  if (at < 1) throw new InvalidArgumentError('expected name=value (a template field’s name, e.g. receiving-title=Chief Counsel)');
  return { ...previous, [value.slice(0, at)]: fieldValue(value.slice(at + 1)) };
}

export function positiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('expected a positive whole number');
  return number;
}

export function seconds(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError('expected a whole number of seconds (0 or more)');
  return number;
}

/** A page of a list as the API answers it. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** What a command group registers its commands with. */
export interface CommandKit {
  root: Command;
  io: Streams;
  /** A command's action with its client and output; errors reach the exit-code mapping in run(). */
  act<A extends unknown[]>(run: (c: { client: SvcClient; out: Output }, ...args: A) => Promise<void>): (...args: A) => Promise<void>;
  /** Prints a page as a table of the given columns, and on stderr how to ask for the next one. */
  list<T extends object>(out: Output, page: Page<T>, columns: Array<keyof T & string>): void;
  /** Adds --limit and --cursor. */
  paging(command: Command): Command;
}
