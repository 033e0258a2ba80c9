import { z } from 'zod';
import { boundedDetails, type ErrorDetail } from '../../lib/errors';

// A missing field reads "Required" rather than "expected string, received undefined".
z.config({ customError: (issue) => (issue.input === undefined && issue.code === 'invalid_type' ? 'Required' : undefined) });

function joinPath(path: PropertyKey[]): string {
  return path.map(String).join('.');
}

/** A field name longer than this is cut in a refusal. */
const MAX_PATH = 200;

/**
 * zod issues as `{path, message}` pairs, one per offending field (an unknown key is its own field):
 * at most MAX_NAMED_DETAILS, then one `and N more` detail (boundedDetails); long names are cut.
 */
export function issueDetails(issues: z.core.$ZodIssue[], root?: string): ErrorDetail[] {
  const prefix = (path: PropertyKey[]) => cut(joinPath(root ? [root, ...path] : path));
  const details = boundedDetails();
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) details.add({ path: prefix([...issue.path, key]), message: 'Unknown field' });
    } else {
      details.add({ path: prefix(issue.path), message: issue.message });
    }
  }
  return details.list(root ?? '');
}

function cut(path: string): string {
  return path.length > MAX_PATH ? `${path.slice(0, MAX_PATH)}…` : path;
}

export function describeDetails(details: ErrorDetail[]): string {
  return details.map((detail) => (detail.path ? `${detail.path}: ${detail.message}` : detail.message)).join('; ');
}
