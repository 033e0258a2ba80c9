import type { VerifyReport } from '@svc-agents/sdk';
import { renderTable } from './output';

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** `svc verify`'s report on a terminal: the verdict first, then where the file comes from, then each signature. */
export function renderReport(report: VerifyReport): string {
  const lines = [report.valid ? 'VALID' : 'NOT VALID', ...report.problems.map((problem) => `  - ${problem}`), ''];
  lines.push(`sha256     ${report.sha256}`);
  lines.push(
    report.issued_by_this_service
      ? `issued     by this service: document ${report.document_id}, revision ${report.revision}${report.completed ? ' (completed)' : ''}`
      : 'issued     not by this service (not byte for byte a revision it issued): only its signatures were checked',
  );
  if (report.modified_after_seal) lines.push('modified   bytes were added after its last signature');
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
      report.signatures.map((signature, index) => ({
        '#': index + 1,
        kind: signature.kind,
        subfilter: signature.subfilter,
        signed_at: signature.signed_at,
        signer: signature.signer,
        timestamp: signature.timestamp
          ? `${signature.timestamp.time} ${signature.timestamp.tsa}${signature.timestamp.valid ? '' : ' (does not verify)'}`
          : '',
        whole_file: yesNo(signature.covers_whole_document),
        valid: yesNo(signature.valid),
      })),
      ['#', 'kind', 'subfilter', 'signed_at', 'signer', 'timestamp', 'whole_file', 'valid'],
    ),
  );
  return lines.join('\n');
}
