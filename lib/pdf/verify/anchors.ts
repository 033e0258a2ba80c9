// The verifier's trust anchors: the CA at the top of the service's own seal chain and of its
// development timestamp authority (so every PDF it issued verifies), and the PEM bundle named by
// SVC_VERIFY_TRUST_ANCHORS (AATL/EUTL roots, a partner's CA, the root of SVC_TSA_URL's authority).
import fs from 'node:fs/promises';
import forge from 'node-forge';
import * as pkijs from 'pkijs';
import { ConfigError } from '../../config/errors';
import { openP12, type SealCertificate } from '../pades/pki';

export async function loadTrustAnchors(options: { own: SealCertificate[]; bundle?: string }): Promise<Uint8Array[]> {
  const anchors = options.own.flatMap((certificate) => chainTop(certificate));
  if (options.bundle) anchors.push(...(await readBundle(options.bundle)));
  return anchors;
}

/** The certificates that head a PKCS#12's chain: its self-signed ones, else the one no other in it issued. */
function chainTop(certificate: SealCertificate): Uint8Array[] {
  const opened = openP12(certificate);
  const all = [opened.certificate, ...opened.chain];
  const selfSigned = all.filter((cert) => cert.isIssuer(cert));
  const tops = selfSigned.length > 0 ? selfSigned : all.filter((cert) => !all.some((other) => other !== cert && cert.isIssuer(other)));
  return tops.map((cert) => new Uint8Array(Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary')));
}

async function readBundle(file: string): Promise<Uint8Array[]> {
  const text = await fs.readFile(file, 'utf8').catch((error: Error) => {
    throw new ConfigError(`SVC_VERIFY_TRUST_ANCHORS: cannot read ${file} (${error.message})`);
  });
  const certificates = pemCertificates(text);
  if (certificates.length === 0) throw new ConfigError(`SVC_VERIFY_TRUST_ANCHORS: ${file} holds no PEM certificate`);
  return certificates.map((der, index) => {
    try {
      pkijs.Certificate.fromBER(der);
    } catch (error) {
      throw new ConfigError(`SVC_VERIFY_TRUST_ANCHORS: certificate ${index + 1} of ${file} cannot be read (${(error as Error).message})`);
    }
    return der;
  });
}

/** The DER certificates of a PEM bundle, in order. */
export function pemCertificates(pem: string): Uint8Array[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map(
    ([, body]) => new Uint8Array(Buffer.from(body.replace(/\s+/g, ''), 'base64')),
  );
}
