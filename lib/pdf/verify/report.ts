// What the verifier answers, as plain data (it crosses from the PDF thread to the API): a three-valued
// verdict with its reasons, and for each signature the ETSI EN 319 102-1 indication and sub-indication
// with everything it rests on.
import type { ChangeLevel } from './change-levels';
import type { SignatureKind } from './signatures';
import type { RevocationStatus } from './trust';

export type Indication = 'TOTAL-PASSED' | 'TOTAL-FAILED' | 'INDETERMINATE';
export type Verdict = 'valid' | 'invalid' | 'indeterminate';
export type PadesLevel = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';
export type TimeSource = 'signature_timestamp' | 'document_timestamp' | 'none';

export interface TimestampReport {
  time: string;
  /** The authority's certificate subject. */
  tsa: string;
  indication: Indication;
  sub_indication: string | null;
  problem: string | null;
}

export interface ChainReport {
  /** trusted: a path to an anchor that holds; untrusted: no path to an anchor; failed: a path that does not hold. */
  status: 'trusted' | 'untrusted' | 'failed';
  anchor: string | null;
  /** Subjects from the signer's certificate to the anchor. */
  certificates: string[];
  revocation: RevocationStatus;
  revoked_at: string | null;
}

export interface ChangeReport {
  /** The revision (1-based) that made it. */
  revision: number;
  level: ChangeLevel;
  /** This signature's permission allows it. */
  allowed: boolean;
  what: string;
}

export interface SignatureReport {
  /** 1-based, in the order of the revisions they sign. */
  index: number;
  field: string | null;
  /** A field of the document's form holds it: what every PDF reader shows. */
  reachable: boolean;
  kind: SignatureKind;
  subfilter: string;
  signer: string | null;
  /** The time its dictionary claims (/M): not proven. */
  claimed_time: string | null;
  /** The earliest time proven by a trusted timestamp that it existed; null when none proves one. */
  trusted_time: string | null;
  time_source: TimeSource;
  /** Its own RFC 3161 token: the signature timestamp, or the document timestamp itself. */
  timestamp: TimestampReport | null;
  chain: ChainReport | null;
  pades_level: PadesLevel | null;
  /** A certification's DocMDP permission: 1 no change, 2 form filling and signing, 3 also annotations. */
  docmdp: number | null;
  /** The revision (1-based) it signs; null when its byte range ends at no revision. */
  revision: number | null;
  /** whole_file: nothing follows it; revision: later revisions follow; none: its byte range is not a revision. */
  coverage: 'whole_file' | 'revision' | 'none';
  changes_after: ChangeReport[];
  indication: Indication;
  sub_indication: string | null;
  /** Why it did not pass, in words. */
  problem: string | null;
}

export interface VerificationReport {
  verdict: Verdict;
  /** One sentence: why this verdict. */
  summary: string;
  /** Everything that kept it from valid, in words. */
  problems: string[];
  sha256: string;
  revisions: number;
  signatures: SignatureReport[];
  /** Bytes or revisions follow the last signature (allowed or not: see each signature's changes). */
  modified_after_last_signature: boolean;
}
