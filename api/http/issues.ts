import { z } from 'zod';
import type { ErrorDetail } from '../../lib/errors';

// A missing field reads "Required" rather than "expected string, received undefined".
z.config({ customError: (issue) => (issue.input === undefined && issue.code === 'invalid_type' ? 'Required' : undefined) });

function joinPath(path: PropertyKey[]): string {
  return path.map(String).join('.');
}

/** At most this many fields are named in a refusal (a hostile body may hold a million keys); the rest are counted. */
const MAX_DETAILS = 20;
/** A field name longer than this is cut in a refusal. */
const MAX_PATH = 200;

/**
 * zod issues as `{path, message}` pairs, one per offending field (an unknown key is its own field):
 * at most MAX_DETAILS, then one `and N more` detail; long names are cut.
 */
export function issueDetails(issues: z.core.$ZodIssue[], root?: string): ErrorDetail[] {
  const prefix = (path: PropertyKey[]) => cut(joinPath(root ? [root, ...path] : path));
  const details: ErrorDetail[] = [];
  let more = 0;
  const add = (path: PropertyKey[], message: string) => {
    if (details.length < MAX_DETAILS) details.push({ path: prefix(path), message });
    else more += 1;
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...issue.path, key], 'Unknown field');
    } else {
      add(issue.path, issue.message);
    }
  }
  if (more > 0) details.push({ path: root ?? '', message: `and ${more} more` });
  return details;
}

function cut(path: string): string {
  return path.length > MAX_PATH ? `${path.slice(0, MAX_PATH)}…` : path;
}

export function describeDetails(details: ErrorDetail[]): string {
  return details.map((detail) => (detail.path ? `${detail.path}: ${detail.message}` : detail.message)).join('; ');
}
