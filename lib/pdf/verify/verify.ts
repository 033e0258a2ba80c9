// The verifier: reads a PDF as its cross-reference data says, finds the signatures a reader shows,
// checks each one's structure, CMS and timestamp, the path of every certificate to a trust anchor at
// the time a trusted timestamp proves, and every change made after it; then answers valid, invalid
// or indeterminate with the ETSI EN 319 102-1 indication of each signature. It trusts nothing in the
// file it has not checked, and fetches nothing.
import { createHash } from 'node:crypto';
import * as pkijs from 'pkijs';
import { refuse } from '../intake/refuse';
import { type Change, compareRevisions, LEVELS, type RevisionChanges } from './changes';
import {
  checkSigner,
  checkToken,
  digestRanges,
  embeddedRevocation,
  type SignerCheck,
  signatureTimestampOf,
  signatureValueOf,
  type TokenCheck,
} from './cms';
import { decodeStream } from './decode';
import { get, isWhitespace } from './objects';
import type { ChangeReport, Indication, PadesLevel, SignatureReport, TimeSource, TimestampReport, VerificationReport } from './report';
import { countByteRanges, type FoundSignature, findSignatures, MAX_SIGNATURES } from './signatures';
import { refsOf } from './structure';
import { type ChainResult, derKey, type Revocation, subjectOf, TrustStore } from './trust';
import { type DocumentState, PdfFile, type RevisionEnd, StructureError } from './xref';

export interface VerifyOptions {
  /** DER certificates of the trust anchors. */
  anchors: Uint8Array[];
  /** What decoded object and cross-reference streams may add up to, in bytes. */
  decodeLimit: number;
  /** The validation time when no timestamp proves an earlier one; the current time. */
  now?: Date;
}

interface Judged {
  found: FoundSignature;
  cms?: SignerCheck;
  token?: TokenCheck;
  tokenChain?: ChainResult;
  chain?: ChainResult;
  changes: ChangeReport[];
  time: { at: Date; source: TimeSource };
  failure?: { indication: Indication; sub: string; reason: string };
  level: PadesLevel | null;
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
  if (ends.at(-1) !== final.revision)
    changes.push({ level: 'other', what: 'the file’s last revision cannot be read as its cross-reference data says' });
  let extra = 0;
  for (let at = final.revision.end; at < pdf.length; at++) if (!isWhitespace(pdf[at])) extra++;
  if (extra > 0 && ends.at(-1) === final.revision)
    changes.push({
      level: 'other',
      what: `${extra} bytes follow the last revision (${revision - 1}) that no cross-reference section describes`,
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
function readDss(state: DocumentState): { certificates: pkijs.Certificate[]; revocation: Revocation; keys: Set<string> } {
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

function judge(item: Judged, certification: FoundSignature | undefined, all: FoundSignature[]): Judged['failure'] {
  const { found: signature, cms, token } = item;
  if (!signature.reachable)
    return {
      indication: 'INDETERMINATE',
      sub: 'FORMAT_FAILURE',
      reason: 'no field of the document’s form holds it, so PDF readers do not show it',
    };
  if (signature.structureProblem) return { indication: 'TOTAL-FAILED', sub: 'FORMAT_FAILURE', reason: signature.structureProblem };
  if (signature.kind === 'certification' && all.find((other) => other.reachable) !== signature)
    return {
      indication: 'TOTAL-FAILED',
      sub: 'FORMAT_FAILURE',
      reason: 'a certification signature must be the document’s first signature',
    };
  if (signature.kind !== 'timestamp' && !['ETSI.CAdES.detached', 'adbe.pkcs7.detached'].includes(signature.subfilter))
    return {
      indication: 'INDETERMINATE',
      sub: 'FORMAT_FAILURE',
      reason: `its format (${signature.subfilter}) is not one this service verifies`,
    };
  const check = signature.kind === 'timestamp' ? token : cms;
  if (!check) return { indication: 'INDETERMINATE', sub: 'FORMAT_FAILURE', reason: 'it could not be read' };
  if (check.format) return { indication: 'TOTAL-FAILED', sub: 'FORMAT_FAILURE', reason: check.format };
  if (!check.signer)
    return { indication: 'INDETERMINATE', sub: 'NO_SIGNING_CERTIFICATE_FOUND', reason: 'its signing certificate is not in it' };
  if (!check.digestOk)
    return {
      indication: 'TOTAL-FAILED',
      sub: 'HASH_FAILURE',
      reason: signature.kind === 'timestamp' ? 'the file changed since it was timestamped' : 'the signed bytes changed after it was signed',
    };
  if (!check.signatureOk) return { indication: 'TOTAL-FAILED', sub: 'SIG_CRYPTO_FAILURE', reason: 'its signature value does not verify' };
  if (signature.kind === 'timestamp' && !token!.imprintOk)
    return { indication: 'TOTAL-FAILED', sub: 'HASH_FAILURE', reason: 'the file changed since it was timestamped' };
  const disallowed = item.changes.find((change) => !change.allowed);
  if (disallowed) {
    const after = certification && signature.kind !== 'approval' && certification === signature ? 'modified after certification: ' : '';
    return {
      indication: 'TOTAL-FAILED',
      sub: 'FORMAT_FAILURE',
      reason: `${after}in revision ${disallowed.revision}, ${disallowed.what}, which ${permissionText(signature, certification)} does not allow`,
    };
  }
  if (check.ess === false)
    return {
      indication: 'INDETERMINATE',
      sub: 'NO_SIGNING_CERTIFICATE_FOUND',
      reason: 'its signing-certificate attribute names another certificate',
    };
  const chain = signature.kind === 'timestamp' ? item.tokenChain : item.chain;
  if (chain?.failure) return chain.failure;
  if (signature.kind === 'timestamp' && token?.time && token.time < token.signer!.notBefore.value)
    return { indication: 'TOTAL-FAILED', sub: 'NOT_YET_VALID', reason: 'its time is before its authority’s certificate was valid' };
  return undefined;
}

function permissionText(signature: FoundSignature, certification: FoundSignature | undefined): string {
  const p = certification?.docMdp ?? signature.lock?.permission;
  if (p === 1) return 'the certification’s permission (DocMDP P=1: no changes)';
  if (p === 3) return 'the permission (DocMDP P=3: form filling, signing and comments)';
  if (p === 2) return 'the permission (DocMDP P=2: form filling and signing)';
  return 'an approval signature (new signatures, form filling and validation data only)';
}

function padesLevel(item: Judged, all: Judged[], dss: ReturnType<typeof readDss>, dssRevision: number): PadesLevel | null {
  const { found: signature, cms } = item;
  if (signature.kind === 'timestamp' || signature.subfilter !== 'ETSI.CAdES.detached' || !cms?.signer || cms.ess !== true || item.failure)
    return null;
  const trustedDocumentTimestamps = all.filter(
    (other) => other.found.kind === 'timestamp' && !other.failure && (other.found.revision ?? -1) > (signature.revision ?? Infinity),
  );
  if (item.time.source === 'none') return 'B-B';
  const chain = item.chain;
  const stored = chain?.path.slice(0, -1).every((certificate) => dss.keys.has(derKey(certificate))) ?? false;
  const tsaStored = !item.tokenChain || item.tokenChain.path.slice(0, -1).every((certificate) => dss.keys.has(derKey(certificate)));
  if (dssRevision <= (signature.revision ?? Infinity) || !stored || !tsaStored || !chain?.revocationComplete) return 'B-T';
  return trustedDocumentTimestamps.some((other) => (other.found.revision ?? -1) > dssRevision) ? 'B-LTA' : 'B-LT';
}

function assemble(judged: Judged[], meta: { sha256: string; revisions: number; tail: boolean }): VerificationReport {
  const signatures: SignatureReport[] = judged.map((item, index) => report(item, index + 1, meta));
  const problems: string[] = [];
  for (const signature of signatures) {
    if (signature.problem)
      problems.push(
        `Signature ${signature.index} (${signature.kind}${signature.field ? `, field "${signature.field}"` : ''}): ${signature.problem}.`,
      );
    if (signature.kind !== 'timestamp' && signature.timestamp && signature.timestamp.indication !== 'TOTAL-PASSED')
      problems.push(`Signature ${signature.index}'s timestamp proves no time: ${signature.timestamp.problem}.`);
  }
  const reachable = signatures.filter((signature) => signature.reachable);
  let verdict: VerificationReport['verdict'];
  let summary: string;
  if (reachable.some((signature) => signature.indication === 'TOTAL-FAILED')) {
    verdict = 'invalid';
    summary = 'At least one signature fails: the document is not what was signed, or a signature does not hold.';
  } else if (reachable.length === 0 && signatures.length === 0) {
    verdict = 'invalid';
    summary = 'The PDF carries no digital signature.';
    problems.push('The PDF carries no digital signature.');
  } else if (problems.length > 0) {
    verdict = 'indeterminate';
    summary = 'No signature fails, but not everything could be established (see the problems): this is not a valid result.';
  } else {
    verdict = 'valid';
    summary =
      'Every signature and timestamp passed on a trusted chain, and nothing after them changed the document beyond what they permit.';
  }
  const last = reachable.at(-1);
  return {
    verdict,
    summary,
    problems,
    sha256: meta.sha256,
    revisions: meta.revisions,
    signatures,
    modified_after_last_signature: meta.tail || (last !== undefined && last.coverage !== 'whole_file'),
  };
}

function report(item: Judged, index: number, meta: { revisions: number; tail: boolean }): SignatureReport {
  const { found: signature, failure } = item;
  const chain = signature.kind === 'timestamp' ? item.tokenChain : item.chain;
  const token = item.token;
  const tokenFailure = token && signature.kind !== 'timestamp' ? tokenJudgement(token, item.tokenChain) : undefined;
  const signer = signature.kind === 'timestamp' ? token?.signer : item.cms?.signer;
  return {
    index,
    field: signature.field ?? null,
    reachable: signature.reachable,
    kind: signature.kind,
    subfilter: signature.subfilter,
    signer: signer ? subjectOf(signer) : null,
    claimed_time: signature.claimedTime?.toISOString() ?? null,
    trusted_time:
      signature.kind === 'timestamp'
        ? !failure && token?.time
          ? token.time.toISOString()
          : null
        : item.time.source === 'none'
          ? null
          : item.time.at.toISOString(),
    time_source: signature.kind === 'timestamp' ? (!failure && token?.time ? 'document_timestamp' : 'none') : item.time.source,
    timestamp:
      token?.time && token.signer
        ? ({
            time: token.time.toISOString(),
            tsa: subjectOf(token.signer),
            ...(signature.kind === 'timestamp'
              ? {
                  indication: failure?.indication ?? 'TOTAL-PASSED',
                  sub_indication: failure?.sub ?? null,
                  problem: failure?.reason ?? null,
                }
              : {
                  indication: tokenFailure?.indication ?? 'TOTAL-PASSED',
                  sub_indication: tokenFailure?.sub ?? null,
                  problem: tokenFailure?.reason ?? null,
                }),
          } satisfies TimestampReport)
        : null,
    chain: chain
      ? {
          status: chain.failure?.sub === 'NO_CERTIFICATE_CHAIN_FOUND' ? 'untrusted' : chain.failure ? 'failed' : 'trusted',
          anchor: chain.anchor ? subjectOf(chain.anchor) : null,
          certificates: chain.path.map(subjectOf),
          revocation: chain.revocation,
          revoked_at: chain.revokedAt?.toISOString() ?? null,
        }
      : null,
    pades_level: item.level,
    docmdp: signature.docMdp ?? null,
    revision: signature.revision === undefined ? null : signature.revision + 1,
    coverage:
      signature.revision === undefined ? 'none' : signature.revision + 1 === meta.revisions && !meta.tail ? 'whole_file' : 'revision',
    changes_after: item.changes,
    indication: failure?.indication ?? 'TOTAL-PASSED',
    sub_indication: failure?.sub ?? null,
    problem: failure?.reason ?? null,
  };
}

function tokenJudgement(token: TokenCheck, chain: ChainResult | undefined): Judged['failure'] {
  if (token.format) return { indication: 'TOTAL-FAILED', sub: 'FORMAT_FAILURE', reason: token.format };
  if (!token.signer)
    return { indication: 'INDETERMINATE', sub: 'NO_SIGNING_CERTIFICATE_FOUND', reason: 'its authority’s certificate is not in it' };
  if (!token.digestOk || !token.imprintOk)
    return { indication: 'TOTAL-FAILED', sub: 'HASH_FAILURE', reason: 'it is not over this signature' };
  if (!token.signatureOk) return { indication: 'TOTAL-FAILED', sub: 'SIG_CRYPTO_FAILURE', reason: 'its signature does not verify' };
  if (token.ess === false)
    return {
      indication: 'INDETERMINATE',
      sub: 'NO_SIGNING_CERTIFICATE_FOUND',
      reason: 'its signing-certificate attribute names another certificate',
    };
  return chain?.failure;
}
