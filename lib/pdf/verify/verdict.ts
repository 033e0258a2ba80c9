// The judgement of each signature from what the verifier established (structure, CMS, timestamps,
// chains, changes after it), as ETSI EN 319 102-1 names it, and the report a relying party reads.
import type * as pkijs from 'pkijs';
import { t } from '../../i18n';
import { subjectOf } from '../pades/cms';
import type { SignerCheck, TokenCheck } from './cms';
import type { ChangeReport, Indication, PadesLevel, SignatureReport, TimeSource, TimestampReport, VerificationReport } from './report';
import type { FoundSignature } from './signatures';
import { type ChainResult, derKey, type Revocation } from './trust';

export interface Judged {
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

/** The validation data of the document as it stands (its DSS), for every signature. */
export interface DssData {
  certificates: pkijs.Certificate[];
  revocation: Revocation;
  /** derKey of each certificate. */
  keys: Set<string>;
}

export function judge(item: Judged, certification: FoundSignature | undefined, all: FoundSignature[]): Judged['failure'] {
  const { found: signature, cms, token } = item;
  if (!signature.reachable)
    return {
      indication: 'INDETERMINATE',
      sub: 'FORMAT_FAILURE',
      reason: t('verify.reason.unreachable'),
    };
  if (signature.structureProblem) return { indication: 'TOTAL-FAILED', sub: 'FORMAT_FAILURE', reason: signature.structureProblem };
  if (signature.kind === 'certification' && all.find((other) => other.reachable) !== signature)
    return {
      indication: 'TOTAL-FAILED',
      sub: 'FORMAT_FAILURE',
      reason: t('verify.reason.certification_not_first'),
    };
  if (signature.kind !== 'timestamp' && !['ETSI.CAdES.detached', 'adbe.pkcs7.detached'].includes(signature.subfilter))
    return {
      indication: 'INDETERMINATE',
      sub: 'FORMAT_FAILURE',
      reason: t('verify.reason.subfilter', { subfilter: signature.subfilter }),
    };
  const check = signature.kind === 'timestamp' ? token : cms;
  if (!check) return { indication: 'INDETERMINATE', sub: 'FORMAT_FAILURE', reason: t('verify.reason.unreadable') };
  if (check.format) return { indication: 'TOTAL-FAILED', sub: 'FORMAT_FAILURE', reason: check.format };
  if (!check.signer)
    return { indication: 'INDETERMINATE', sub: 'NO_SIGNING_CERTIFICATE_FOUND', reason: t('verify.reason.no_signing_certificate') };
  if (!check.digestOk)
    return {
      indication: 'TOTAL-FAILED',
      sub: 'HASH_FAILURE',
      reason: t(signature.kind === 'timestamp' ? 'verify.reason.changed_since_timestamp' : 'verify.reason.changed_since_signed'),
    };
  if (!check.signatureOk) return { indication: 'TOTAL-FAILED', sub: 'SIG_CRYPTO_FAILURE', reason: t('verify.reason.signature_value') };
  if (signature.kind === 'timestamp' && !token!.imprintOk)
    return { indication: 'TOTAL-FAILED', sub: 'HASH_FAILURE', reason: t('verify.reason.changed_since_timestamp') };
  const disallowed = item.changes.find((change) => !change.allowed);
  if (disallowed) {
    const certified = certification && signature.kind !== 'approval' && certification === signature ? 'yes' : 'no';
    return {
      indication: 'TOTAL-FAILED',
      sub: 'FORMAT_FAILURE',
      reason: t('verify.reason.disallowed', {
        certified,
        revision: disallowed.revision,
        what: disallowed.what,
        permission: permissionText(signature, certification),
      }),
    };
  }
  if (check.ess === false)
    return {
      indication: 'INDETERMINATE',
      sub: 'NO_SIGNING_CERTIFICATE_FOUND',
      reason: t('verify.reason.ess_other'),
    };
  const chain = signature.kind === 'timestamp' ? item.tokenChain : item.chain;
  if (chain?.failure) return chain.failure;
  if (signature.kind === 'timestamp' && token?.time && token.time < token.signer!.notBefore.value)
    return { indication: 'TOTAL-FAILED', sub: 'NOT_YET_VALID', reason: t('verify.reason.time_before_authority') };
  return undefined;
}

function permissionText(signature: FoundSignature, certification: FoundSignature | undefined): string {
  const p = certification?.docMdp ?? signature.lock?.permission;
  if (p === 1) return t('verify.permission.p1');
  if (p === 3) return t('verify.permission.p3');
  if (p === 2) return t('verify.permission.p2');
  return t('verify.permission.approval');
}

export function padesLevel(item: Judged, all: Judged[], dss: DssData, dssRevision: number): PadesLevel | null {
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

export function assemble(judged: Judged[], meta: { sha256: string; revisions: number; tail: boolean }): VerificationReport {
  const signatures: SignatureReport[] = judged.map((item, index) => report(item, index + 1, meta));
  const problems: string[] = [];
  for (const signature of signatures) {
    if (signature.problem)
      problems.push(
        t('verify.problem.signature', {
          index: signature.index,
          kind: signature.kind,
          hasField: signature.field ? 'yes' : 'no',
          field: signature.field ?? '',
          problem: signature.problem,
        }),
      );
    if (signature.kind !== 'timestamp' && signature.timestamp && signature.timestamp.indication !== 'TOTAL-PASSED')
      problems.push(t('verify.problem.timestamp', { index: signature.index, problem: signature.timestamp.problem }));
  }
  const reachable = signatures.filter((signature) => signature.reachable);
  let verdict: VerificationReport['verdict'];
  let summary: string;
  if (reachable.some((signature) => signature.indication === 'TOTAL-FAILED')) {
    verdict = 'invalid';
    summary = t('verify.summary.invalid');
  } else if (reachable.length === 0 && signatures.length === 0) {
    verdict = 'invalid';
    summary = t('verify.summary.no_signature');
    problems.push(t('verify.summary.no_signature'));
  } else if (problems.length > 0) {
    verdict = 'indeterminate';
    summary = t('verify.summary.indeterminate');
  } else {
    verdict = 'valid';
    summary = t('verify.summary.valid');
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
    return { indication: 'INDETERMINATE', sub: 'NO_SIGNING_CERTIFICATE_FOUND', reason: t('verify.reason.token_no_authority_certificate') };
  if (!token.digestOk || !token.imprintOk)
    return { indication: 'TOTAL-FAILED', sub: 'HASH_FAILURE', reason: t('verify.reason.token_not_over_signature') };
  if (!token.signatureOk) return { indication: 'TOTAL-FAILED', sub: 'SIG_CRYPTO_FAILURE', reason: t('verify.reason.token_signature') };
  if (token.ess === false)
    return {
      indication: 'INDETERMINATE',
      sub: 'NO_SIGNING_CERTIFICATE_FOUND',
      reason: t('verify.reason.ess_other'),
    };
  return chain?.failure;
}
