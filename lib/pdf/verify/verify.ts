// The verifier: reads a PDF as its cross-reference data says, finds the signatures a reader shows,
// checks each one's structure, CMS and timestamp, the path of every certificate to a trust anchor at
// the time a trusted timestamp proves, and every change made after it; then answers valid, invalid
// or indeterminate with the ETSI EN 319 102-1 indication of each signature. It trusts nothing in the
// file it has not checked, and fetches nothing.

import { createHash } from 'node:crypto';
import * as pkijs from 'pkijs';
import { t } from '../../i18n';
import { refuse } from '../intake/refuse';
import { type Change, LEVELS, type RevisionChanges } from './change-levels';
import { compareRevisions } from './changes';
import { checkSigner, checkToken, digestRanges, embeddedRevocation, signatureTimestampOf, signatureValueOf, type TokenCheck } from './cms';
import { decodeStream } from './decode';
import { isWhitespace } from './objects';
import type { VerificationReport } from './report';
import { countByteRanges, type FoundSignature, findSignatures, MAX_SIGNATURES } from './signatures';
import { refsOf } from './structure';
import { type ChainResult, derKey, type Revocation, TrustStore } from './trust';
import { get } from './values';
import { assemble, type DssData, type Judged, judge, padesLevel } from './verdict';
import { type DocumentState, PdfFile, type RevisionEnd, StructureError } from './xref';

export interface VerifyOptions {
  /** DER certificates of the trust anchors. */
  anchors: Uint8Array[];
  /** What decoded object and cross-reference streams may add up to, in bytes. */
  decodeLimit: number;
  /** The validation time when no timestamp proves an earlier one; the current time. */
  now?: Date;
}

export function verifyPdfBytes(pdf: Uint8Array, options: VerifyOptions): VerificationReport {
  const now = options.now ?? new Date();
  const sha256 = createHash('sha256').update(pdf).digest('hex');
  const count = countByteRanges(pdf);
  if (count > MAX_SIGNATURES) throw tooMany(count);
  const file = new PdfFile(pdf, options.decodeLimit);
  const ends = file.revisionEnds();
  // Each revision is read once here to know it is readable (and where the DSS first appears); only the
  // last is kept: a state holds an entry per object, and a hostile file may have many revisions.
  const revisions: RevisionEnd[] = [];
  let final: DocumentState | undefined;
  let dssRevision = -1;
  let lastProblem = '';
  for (const end of ends) {
    try {
      final = file.state(end);
      revisions.push(end);
      if (dssRevision < 0 && get(final.resolve(final.root), 'DSS') !== undefined) dssRevision = revisions.length - 1;
    } catch (error) {
      if (!(error instanceof StructureError)) throw error;
      lastProblem = error.message;
    }
  }
  if (!final) throw refuse(`The PDF cannot be read as its cross-reference data says${lastProblem ? ` (${lastProblem})` : ''}.`);
  let found: FoundSignature[];
  try {
    found = findSignatures(file, final, revisions);
  } catch (error) {
    if (error instanceof StructureError) throw refuse(`The PDF's form cannot be read: ${error.message}`);
    throw error;
  }
  if (found.length > MAX_SIGNATURES) throw tooMany(found.length);

  const tail = tailChanges(pdf, ends, final, revisions.length + 1);
  const diffs = revisionChanges(file, revisions, final, Math.min(...found.map((signature) => signature.revision ?? Infinity)));
  // The changes of each revision after a signature's (each pair of revisions compared once, whatever the number of signatures).
  const changesAfter = (revision: number): Array<Change & { revision: number; fields: string[] }> => {
    const all: Array<Change & { revision: number; fields: string[] }> = [];
    for (let index = revision + 1; index < revisions.length; index++) {
      const diff = diffs.get(index)!;
      for (const change of diff.changes) all.push({ ...change, revision: diff.revision, fields: diff.fields });
    }
    return [...all, ...tail.map((change) => ({ ...change, revision: revisions.length + 1, fields: [] }))];
  };

  const trust = new TrustStore(options.anchors.flatMap((der) => parseCertificate(der) ?? []));
  const dss = readDss(final);
  const certification = found.find((signature) => signature.reachable && signature.kind === 'certification');
  const judged: Judged[] = found.map((signature) => ({ found: signature, changes: [], time: { at: now, source: 'none' }, level: null }));

  // Cryptography and changes, which need no time.
  for (const item of judged) {
    const { found: signature } = item;
    if (signature.structureProblem || !signature.contents || !signature.byteRange) continue;
    const range = signature.byteRange;
    if (signature.kind === 'timestamp') item.token = checkToken(signature.contents, (hash) => digestRanges(pdf, range, hash));
    else {
      item.cms = checkSigner(signature.contents, {
        digest: (hash) => digestRanges(pdf, range, hash),
        stream: (verifier) => verifier.update(pdf.subarray(0, range[1])).update(pdf.subarray(range[2], range[2] + range[3])),
      });
      const token = item.cms.signedData && signatureTimestampOf(item.cms.signedData);
      const value = item.cms.signedData && signatureValueOf(item.cms.signedData);
      if (token && value) item.token = checkToken(token, (hash) => createHash(hash).update(value).digest());
    }
    const permission = Math.min(
      certification && certification.revision! <= signature.revision! ? certification.docMdp! : 2,
      signature.lock?.permission ?? 3,
      signature.docMdp ?? 3,
    );
    item.changes = changesAfter(signature.revision!).map((change) => ({
      revision: change.revision,
      level: change.level,
      what: change.what,
      allowed: allowedBy(permission, change.level) && !locked(signature, change.fields),
    }));
  }

  // Times: each document timestamp from the last, then each signature, at the earliest time a later trusted timestamp proves.
  const proven: Array<{ revision: number; time: Date }> = [];
  const provenAfter = (revision: number) =>
    proven.filter((poe) => poe.revision > revision).sort((a, b) => a.time.getTime() - b.time.getTime())[0];
  const pool = (...lists: pkijs.Certificate[][]) => [...dss.certificates, ...lists.flat()];
  for (const item of [...judged].reverse()) {
    if (item.found.kind !== 'timestamp' || !item.token?.signer || item.found.revision === undefined) continue;
    const at = provenAfter(item.found.revision)?.time ?? now;
    item.tokenChain = trust.validate(item.token.signer, pool(item.token.certificates), dss.revocation, at, 'timestamping');
    if (tokenPassed(item.token, item.tokenChain)) proven.push({ revision: item.found.revision, time: item.token.time! });
  }
  for (const item of judged) {
    const revision = item.found.revision;
    if (item.found.kind === 'timestamp' || revision === undefined || !item.cms?.signer) continue;
    const later = provenAfter(revision);
    if (item.token?.signer)
      item.tokenChain = trust.validate(
        item.token.signer,
        pool(item.token.certificates, item.cms.certificates),
        dss.revocation,
        later?.time ?? now,
        'timestamping',
      );
    if (item.token && item.tokenChain && tokenPassed(item.token, item.tokenChain))
      item.time = { at: item.token.time!, source: 'signature_timestamp' };
    else if (later) item.time = { at: later.time, source: 'document_timestamp' };
    const embedded = item.cms.signedData ? embeddedRevocation(item.cms.signedData) : { crls: [], ocsps: [] };
    const revocation = { crls: [...dss.revocation.crls, ...embedded.crls], ocsps: [...dss.revocation.ocsps, ...embedded.ocsps] };
    item.chain = trust.validate(
      item.cms.signer,
      pool(item.cms.certificates, item.token?.certificates ?? []),
      revocation,
      item.time.at,
      'signing',
    );
  }
  for (const item of judged) {
    item.failure = judge(item, certification, found);
    item.level = padesLevel(item, judged, dss, dssRevision);
  }
  return assemble(judged, { sha256, revisions: revisions.length, tail: tail.length > 0 });
}

/**
 * Each revision after `from` compared with the one before it, walking the revisions in order and
 * holding two states at a time (plus the last), so memory does not grow with the number of revisions.
 */
function revisionChanges(file: PdfFile, revisions: RevisionEnd[], final: DocumentState, from: number): Map<number, RevisionChanges> {
  const diffs = new Map<number, RevisionChanges>();
  if (!Number.isFinite(from) || from >= revisions.length - 1) return diffs;
  let previous = file.state(revisions[from]);
  for (let index = from + 1; index < revisions.length; index++) {
    const next = index === revisions.length - 1 ? final : file.state(revisions[index]);
    diffs.set(index, compareRevisions(previous, next, index + 1));
    previous = next;
  }
  return diffs;
}

function tooMany(count: number): Error {
  return refuse(`The PDF has ${count} signature dictionaries; this service verifies at most ${MAX_SIGNATURES}.`);
}

function parseCertificate(der: Uint8Array): pkijs.Certificate | undefined {
  try {
    return pkijs.Certificate.fromBER(der);
  } catch {
    return undefined;
  }
}

/** Bytes after the last revision no cross-reference section describes, and a last revision that cannot be read. */
function tailChanges(pdf: Uint8Array, ends: RevisionEnd[], final: DocumentState, revision: number): Change[] {
  const changes: Change[] = [];
  if (ends.at(-1) !== final.revision) changes.push({ level: 'other', what: t('verify.change.last_revision_unreadable') });
  let extra = 0;
  for (let at = final.revision.end; at < pdf.length; at++) if (!isWhitespace(pdf[at])) extra++;
  if (extra > 0 && ends.at(-1) === final.revision)
    changes.push({
      level: 'other',
      what: t('verify.change.tail_bytes', { count: extra, revision: revision - 1 }),
    });
  return changes;
}

const MOST: Record<number, (typeof LEVELS)[number]> = { 1: 'lta', 2: 'form_fill', 3: 'annotation' };

function allowedBy(permission: number, level: (typeof LEVELS)[number]): boolean {
  return LEVELS.indexOf(level) <= LEVELS.indexOf(MOST[permission] ?? 'form_fill');
}

function locked(signature: FoundSignature, fields: string[]): boolean {
  const lock = signature.lock;
  if (!lock || fields.length === 0) return false;
  if (lock.action === 'All') return true;
  return fields.some((field) => lock.fields.includes(field) === (lock.action === 'Include'));
}

function tokenPassed(token: TokenCheck, chain: ChainResult): boolean {
  return (
    !token.format &&
    token.digestOk &&
    token.signatureOk &&
    token.imprintOk &&
    token.ess !== false &&
    !chain.failure &&
    token.time !== undefined
  );
}

/** The DSS of the document as it stands: certificates and revocation data for every signature. */
function readDss(state: DocumentState): DssData {
  const certificates: pkijs.Certificate[] = [];
  const revocation: Revocation = { ocsps: [], crls: [] };
  const dss = state.resolve(get(state.resolve(state.root), 'DSS'));
  const streams = (value: unknown, into: (bytes: Uint8Array) => void) => {
    for (const num of refsOf(state, value as never)) {
      try {
        const stream = state.object(num)?.value;
        if (stream?.t === 'stream') into(decodeStream(stream, state.file.budget));
      } catch {
        // An unreadable entry is validation data the signature cannot rely on.
      }
    }
  };
  const collect = (holder: unknown) => {
    streams(get(holder as never, 'Certs') ?? get(holder as never, 'Cert'), (bytes) => {
      const certificate = parseCertificate(bytes);
      if (certificate) certificates.push(certificate);
    });
    streams(get(holder as never, 'OCSPs') ?? get(holder as never, 'OCSP'), (bytes) => revocation.ocsps.push(bytes));
    streams(get(holder as never, 'CRLs') ?? get(holder as never, 'CRL'), (bytes) => revocation.crls.push(bytes));
  };
  if (dss?.t === 'dict') {
    collect(dss);
    const vri = state.resolve(dss.v.get('VRI'));
    if (vri?.t === 'dict') for (const entry of [...vri.v.values()].slice(0, 200)) collect(state.resolve(entry));
  }
  return { certificates, revocation, keys: new Set(certificates.map(derKey)) };
}
