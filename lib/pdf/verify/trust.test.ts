// Certificate paths judged at the trusted time: a signer whose certificate has expired is valid when a
// trusted timestamp proves it signed while it was valid, and only then; a certificate not yet valid at
// that time fails; a key that may not sign documents, or a timestamp authority without the
// timeStamping EKU, is indeterminate. A test CA made here (node-forge), trusted by the verifier.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { verifyOffline } from '../../../test/verifier';
import { type CertifiedKey, certifiedKey, timestampAuthorityAt } from '../../../test/verify-corpus/keys';
import { developmentTimestampAuthority } from '../pades/timestamps';
import { buildSampleNda } from '../samples';
import { createSealer } from '../seal';

const DAY = 86_400_000;
const YEAR = 365 * DAY;

describe('the verifier judges each certificate at the trusted time', () => {
  let ca: CertifiedKey;
  let tsa: CertifiedKey;
  let nda: Uint8Array;

  before(async () => {
    ca = await certifiedKey({
      commonName: 'Trust Test CA',
      ca: true,
      notBefore: new Date(Date.now() - 3 * YEAR),
      notAfter: new Date(Date.now() + 10 * YEAR),
    });
    tsa = await certifiedKey({
      commonName: 'Trust Test TSA',
      issuer: ca.forge,
      timeStamping: true,
      notBefore: new Date(Date.now() - 3 * YEAR),
    });
    nda = (await buildSampleNda()).pdf;
  });

  const signer = (options: Parameters<typeof certifiedKey>[0]) => certifiedKey({ ...options, issuer: ca.forge });

  it('an expired signing certificate: valid with a trusted timestamp from while it was valid (B-T), indeterminate without one', async () => {
    const expired = await signer({
      commonName: 'Expired Seal',
      notBefore: new Date(Date.now() - 2 * YEAR),
      notAfter: new Date(Date.now() - YEAR),
    });
    const stamped = await createSealer(expired.signing, { tsa: timestampAuthorityAt(tsa.signing, new Date(Date.now() - 1.5 * YEAR)) }).seal(
      nda,
      {
        reason: 'While it was valid',
      },
    );
    const proven = verifyOffline(stamped, [ca.pem]);
    assert.equal(proven.verdict, 'valid', proven.problems.join('\n'));
    assert.deepEqual([proven.signatures[0].time_source, proven.signatures[0].pades_level], ['signature_timestamp', 'B-T']);

    const unstamped = await createSealer(expired.signing).seal(nda, { reason: 'No timestamp' });
    const unproven = verifyOffline(unstamped, [ca.pem]).signatures[0];
    assert.deepEqual([unproven.indication, unproven.sub_indication], ['INDETERMINATE', 'OUT_OF_BOUNDS_NO_POE']);
  });

  it('a certificate not yet valid at the trusted time fails (NOT_YET_VALID), even stamped now', async () => {
    const future = await signer({
      commonName: 'Future Seal',
      notBefore: new Date(Date.now() + DAY),
      notAfter: new Date(Date.now() + YEAR),
    });
    const sealed = await createSealer(future.signing, { tsa: developmentTimestampAuthority(tsa.signing) }).seal(nda, {
      reason: 'Too early',
    });
    const report = verifyOffline(sealed, [ca.pem]);
    assert.equal(report.verdict, 'invalid');
    assert.deepEqual([report.signatures[0].indication, report.signatures[0].sub_indication], ['TOTAL-FAILED', 'NOT_YET_VALID']);
  });

  it('a key whose usage allows no signing, and a timestamp authority without the timeStamping EKU, are indeterminate (CHAIN_CONSTRAINTS_FAILURE)', async () => {
    const encipherOnly = await signer({ commonName: 'Encryption Key', keyUsage: { keyEncipherment: true } });
    const sealed = await createSealer(encipherOnly.signing).seal(nda, { reason: 'Wrong usage' });
    const wrongUsage = verifyOffline(sealed, [ca.pem]).signatures[0];
    assert.deepEqual([wrongUsage.indication, wrongUsage.sub_indication], ['INDETERMINATE', 'CHAIN_CONSTRAINTS_FAILURE']);
    assert.match(wrongUsage.problem!, /may not sign/);

    const seal = await signer({ commonName: 'Good Seal' });
    const notTsa = await signer({ commonName: 'Not A TSA' });
    const stamped = await createSealer(seal.signing, { tsa: developmentTimestampAuthority(notTsa.signing) }).seal(nda, {
      reason: 'Stamped by a non-TSA',
    });
    const report = verifyOffline(stamped, [ca.pem]);
    assert.equal(report.verdict, 'indeterminate', JSON.stringify(report.signatures[0]));
    assert.deepEqual(
      [report.signatures[0].timestamp?.indication, report.signatures[0].timestamp?.sub_indication],
      ['INDETERMINATE', 'CHAIN_CONSTRAINTS_FAILURE'],
    );
    assert.equal(report.signatures[0].time_source, 'none', 'a timestamp from a certificate that may not stamp proves no time');
  });
});
