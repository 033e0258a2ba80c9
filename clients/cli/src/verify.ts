import type { VerifyReport } from '@svc-agents/sdk';
import { renderTable } from './output';

const VERDICT: Record<VerifyReport['verdict'], string> = {
  valid: 'VALID',
  invalid: 'INVALID',
  indeterminate: 'INDETERMINATE (not valid: something could not be established)',
};

/** `svc verify`'s report on a terminal: the verdict and why first, then where the file comes from, then each signature. */
export function renderReport(report: VerifyReport): string {
  const lines = [VERDICT[report.verdict], `  ${report.summary}`, ...report.problems.map((problem) => `  - ${problem}`), ''];
  lines.push(`sha256     ${report.sha256}`);
  lines.push(
    report.issued_by_this_service
      ? `issued     by this service: document ${report.document_id}, revision ${report.revision}${report.completed ? ' (completed)' : ''}`
      : 'issued     not by this service (not byte for byte a revision it issued): only its signatures were checked',
  );
  lines.push(`revisions  ${report.revisions}${report.modified_after_seal ? ' (something follows its last signature)' : ''}`);
  if (report.signers.length > 0)
    lines.push(
      '',
      'signers',
      renderTable(
        report.signers.map((signer) => ({ ...signer, mandate: signer.mandate_id })),
        ['name', 'email', 'how', 'mandate', 'level', 'signed_at'],
      ),
    );
  lines.push(
    '',
    'signatures',
    renderTable(
      report.signatures.map((signature) => ({
        '#': signature.index,
        kind: signature.reachable ? signature.kind : `${signature.kind} (not in the form)`,
        signer: signature.signer,
        trusted_time: signature.trusted_time ? `${signature.trusted_time} (${signature.time_source})` : 'none',
        chain: signature.chain ? `${signature.chain.status}${signature.chain.revocation === 'revoked' ? ', revoked' : ''}` : '',
        level: signature.pades_level ?? '',
        changes:
          signature.changes_after.length === 0
            ? 'none'
            : signature.changes_after.some((change) => !change.allowed)
              ? 'NOT ALLOWED'
              : 'allowed',
        result: signature.sub_indication ? `${signature.indication} ${signature.sub_indication}` : signature.indication,
      })),
      ['#', 'kind', 'signer', 'trusted_time', 'chain', 'level', 'changes', 'result'],
    ),
  );
  return lines.join('\n');
}
