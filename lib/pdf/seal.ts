import crypto from 'node:crypto';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import signpdfModule from '@signpdf/signpdf';
import { Signer } from '@signpdf/utils';
import forge from 'node-forge';
import { PDFArray, PDFDict, type PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { loadPdf } from './document';
import { PdfError } from './errors';
import { openP12, type SealCertificate, type SealKey } from './seal-certificate';

export { loadSealCertificate, type SealCertificate } from './seal-certificate';

// Under tsx the CommonJS default export arrives wrapped.
const signpdf = ((signpdfModule as unknown as { default?: typeof signpdfModule }).default ?? signpdfModule) as typeof signpdfModule;

export interface Sealer {
  seal(pdf: Uint8Array, info: { reason: string; location?: string; signedAt?: Date }): Promise<Uint8Array>;
  /** The seal certificate's subject, e.g. "CN=Document seal (self-signed), O=E-signature service". */
  subject: string;
}

// The signature's room beyond its certificates: signed attributes, the RSA value, ASN.1 framing.
const SIGNATURE_ROOM = 4096;

/**
 * PKCS#7 detached SHA-256 (adbe.pkcs7.detached) over the whole file; the result passes pdfsig
 * (Signature is Valid; Total document signed) and qpdf --check.
 *
 * The input must be unsealed: the whole file is rewritten, which would break an earlier signature,
 * so a PDF that already carries one is refused with PdfError('already_sealed'). Callers seal each
 * revision from the unsealed working copy.
 */
export function createSealer(certificate: SealCertificate): Sealer {
  const key = openP12(certificate);
  const signer = new SealSigner(key);
  const commonName = key.certificate.subject.getField('CN')?.value ?? 'Document seal';
  const certificatesLength = [key.certificate, ...key.chain].reduce((sum, cert) => sum + derOf(cert).length, 0);
  return {
    subject: subjectOf(key.certificate),
    async seal(pdf, info) {
      const doc = await loadPdf(pdf);
      if (isSealed(doc))
        throw new PdfError('already_sealed', 'The PDF already carries a digital signature; seal the unsealed working copy instead.');
      const signedAt = info.signedAt ?? new Date();
      const fieldNames = topFieldNames(doc);
      pdflibAddPlaceholder({
        pdfDoc: doc,
        reason: literal(info.reason),
        contactInfo: '',
        name: literal(commonName),
        location: literal(info.location ?? ''),
        signingTime: signedAt,
        // Counted in hex digits: two per byte of the signature.
        signatureLength: 2 * (certificatesLength + SIGNATURE_ROOM),
      });
      renameSealField(doc, fieldNames);
      // No object streams: the signature dictionary must stay readable in the file as written.
      const prepared = Buffer.from(await doc.save({ useObjectStreams: false }));
      try {
        return new Uint8Array(await signpdf.sign(prepared, signer, signedAt));
      } catch (error) {
        throw new PdfError('sign_failed', `The PDF could not be signed: ${(error as Error).message}`);
      }
    },
  };
}

/** Signs with a key opened once, RSA done by Node's crypto; the PKCS#7 structure is built by forge. */
class SealSigner extends Signer {
  private readonly nodeKey: crypto.KeyObject;

  constructor(private readonly key: SealKey) {
    super();
    this.nodeKey = crypto.createPrivateKey(forge.pki.privateKeyToPem(key.privateKey));
  }

  override async sign(pdfBuffer: Buffer, signingTime?: Date): Promise<Buffer> {
    const p7 = forge.pkcs7.createSignedData();
    p7.content = forge.util.createBuffer(pdfBuffer.toString('binary'));
    for (const cert of [this.key.certificate, ...this.key.chain]) p7.addCertificate(cert);
    p7.addSigner({
      key: this.rsaSigner() as unknown as forge.pki.rsa.PrivateKey,
      certificate: this.key.certificate,
      digestAlgorithm: forge.pki.oids.sha256,
      // This order of attributes is what EU validators (DSS) accept.
      authenticatedAttributes: [
        { type: forge.pki.oids.contentType, value: forge.pki.oids.data },
        { type: forge.pki.oids.signingTime, value: (signingTime ?? new Date()) as unknown as string },
        { type: forge.pki.oids.messageDigest },
      ],
    });
    p7.sign({ detached: true });
    return Buffer.from(forge.asn1.toDer(p7.toAsn1()).getBytes(), 'binary');
  }

  /** What forge calls to sign the attributes' digest: RSASSA-PKCS1-v1_5 over SHA-256. */
  private rsaSigner() {
    return {
      sign: (md: forge.md.MessageDigest) => {
        const digestInfo = Buffer.concat([SHA256_DIGEST_INFO, Buffer.from(md.digest().getBytes(), 'binary')]);
        return crypto.privateEncrypt({ key: this.nodeKey, padding: crypto.constants.RSA_PKCS1_PADDING }, digestInfo).toString('binary');
      },
    };
  }
}

// DER prefix of a DigestInfo for SHA-256 (RFC 8017, 9.2 note 1).
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/** A signature dictionary anywhere (it has a /ByteRange), or a signature field with a value. */
function isSealed(doc: PDFDocument): boolean {
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict)) continue;
    if (object.has(PDFName.of('ByteRange'))) return true;
    if (object.get(PDFName.of('FT')) === PDFName.of('Sig') && object.has(PDFName.of('V'))) return true;
  }
  return false;
}

/**
 * The placeholder writes its strings into the file as given, unescaped: a ")" would end the string
 * early and "Šimůnek" would lose bytes. This gives the literal's escaped body, UTF-16BE when needed.
 */
function literal(text: string): string {
  const ascii = /^[\x20-\x7e]*$/.test(text);
  const bytes = ascii ? Buffer.from(text, 'latin1') : Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
  let body = '';
  for (const byte of bytes) {
    if (byte === 0x28 || byte === 0x29 || byte === 0x5c) body += `\\${String.fromCharCode(byte)}`;
    else if (byte === 0x0a) body += '\\n';
    else if (byte === 0x0d) body += '\\r';
    else body += String.fromCharCode(byte);
  }
  return body;
}

function topFieldNames(doc: PDFDocument): Set<string> {
  const fields = doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict)?.lookupMaybe(PDFName.of('Fields'), PDFArray);
  const names = new Set<string>();
  for (let i = 0; i < (fields?.size() ?? 0); i += 1) {
    const name = fields!.lookupMaybe(i, PDFDict)?.lookup(PDFName.of('T'));
    if (name instanceof PDFString || name instanceof PDFHexString) names.add(name.decodeText());
  }
  return names;
}

/** The placeholder names its field "Signature1"; a form may already use that name. */
function renameSealField(doc: PDFDocument, taken: Set<string>): void {
  const fields = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).lookup(PDFName.of('Fields'), PDFArray);
  const field = fields.lookup(fields.size() - 1, PDFDict);
  let name = 'Seal';
  for (let n = 2; taken.has(name); n += 1) name = `Seal${n}`;
  field.set(PDFName.of('T'), PDFString.of(name));
}

function subjectOf(cert: forge.pki.Certificate): string {
  return cert.subject.attributes.map((attribute) => `${attribute.shortName ?? attribute.name}=${String(attribute.value)}`).join(', ');
}

function derOf(cert: forge.pki.Certificate): string {
  return forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes();
}
