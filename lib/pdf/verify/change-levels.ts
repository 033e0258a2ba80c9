// The words of a revision's changes: how far each goes, in the order of DocMDP's permissions (after
// pyHanko's ModificationLevel). changes.ts judges with them; the report (verify.ts, report.ts) reads them.
/** How far a change goes. */
export type ChangeLevel = 'lta' | 'signing' | 'form_fill' | 'annotation' | 'other';
export const LEVELS: ChangeLevel[] = ['lta', 'signing', 'form_fill', 'annotation', 'other'];

export interface Change {
  level: ChangeLevel;
  what: string;
}

export interface RevisionChanges {
  /** The revision (1-based) that made the changes. */
  revision: number;
  changes: Change[];
  /** Full names of the form fields whose value it set. */
  fields: string[];
}

/** The highest level of a list of changes, or undefined for none. */
export function levelOf(changes: Change[]): ChangeLevel | undefined {
  let best = -1;
  for (const change of changes) best = Math.max(best, LEVELS.indexOf(change.level));
  return best < 0 ? undefined : LEVELS[best];
}

/** The higher of two levels (`a` absent: `b`). */
export function maxLevel(a: ChangeLevel | undefined, b: ChangeLevel): ChangeLevel {
  return a === undefined || LEVELS.indexOf(b) > LEVELS.indexOf(a) ? b : a;
}
