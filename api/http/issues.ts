import { z } from 'zod';
import type { ErrorDetail } from '../../lib/errors';

// A missing field reads "Required" rather than "expected string, received undefined".
z.config({ customError: (issue) => (issue.input === undefined && issue.code === 'invalid_type' ? 'Required' : undefined) });

function joinPath(path: PropertyKey[]): string {
  return path.map(String).join('.');
}

/** zod issues as `{path, message}` pairs, one per offending field (an unknown key is its own field). */
export function issueDetails(issues: z.core.$ZodIssue[], root?: string): ErrorDetail[] {
  const prefix = (path: PropertyKey[]) => joinPath(root ? [root, ...path] : path);
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) details.push({ path: prefix([...issue.path, key]), message: 'Unknown field' });
    } else {
      details.push({ path: prefix(issue.path), message: issue.message });
    }
  }
  return details;
}

export function describeDetails(details: ErrorDetail[]): string {
  return details.map((detail) => (detail.path ? `${detail.path}: ${detail.message}` : detail.message)).join('; ');
}
