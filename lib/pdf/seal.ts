import { PDF } from '@libpdf/core';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import signpdfModule from '@signpdf/signpdf';
import { Signer, SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import { PDFArray, PDFDict, type PDFDocument, PDFHexString, PDFInvalidObject, PDFName, type PDFRef, PDFString } from 'pdf-lib';
import { t } from '../i18n';
import { loadPdf } from './document';
import { PdfError } from './errors';
import { addSignatureTimestamp, contentInfo, der, OID, type SigningKey, sha256, signatureValue, signDigest, subjectOf } from './pades/cms';
import { addDss } from './pades/dss';
import type { RevocationProvider } from './pades/revocation';
import { type TimestampAuthority, TimestampUnavailable } from './pades/timestamps';

export { loadSealCertificate, type SealCertificate } from './seal-certificate';

// Under tsx the CommonJS default export arrives wrapped.
const signpdf = ((signpdfModule as unknown as { default?: typeof signpdfModule }).default ?? signpdfModule) as typeof signpdfModule;

export interface SealInfo {
  reason: string;
  location?: string;
  /** The time the signature dictionary claims (/M); the trusted time is the timestamp's. */
  signedAt?: Date;
}

export interface Sealer {
  /** An approval seal of the whole file: PAdES B-T (B-B when no timestamp authority is configured). */
  seal(pdf: Uint8Array, info: SealInfo): Promise<Uint8Array>;
  /**
   * The completion seal: a certification signature (DocMDP P=1: no change permitted after it), then
   * a Document Security Store with the chains and revocation data of the seal and the timestamp
   * authority, and a document timestamp over it all: PAdES B-LTA. `warnings` name any validation
   * data that could not be had (a certificate with no OCSP or CRL URL, a responder that did not answer).
   */
  certify(pdf: Uint8Array, info: SealInfo): Promise<{ pdf: Uint8Array; warnings: string[] }>;
  /** The seal certificate's subject, e.g. "CN=Document seal (development), O=E-signature service". */
  subject: string;
  /** Where seal times come from: the timestamp authority's name, or undefined (untimestamped seals). */
  timestamps?: string;
}

// Room in /Contents beyond the seal's certificates: signed attributes, the RSA value, ASN.1 framing,
// and the signature timestamp token with its authority's certificates.
const SIGNATURE_ROOM = 24 * 1024;
// The document timestamp's token (its authority's chain included).
const DOCUMENT_TIMESTAMP_ROOM = 16 * 1024;

/**
 * PAdES baseline seals (ETSI.CAdES.detached, SHA-256, ESS signing-certificate-v2, no signing-time
 * attribute) over the whole file; each carries an RFC 3161 signature timestamp from `tsa`. When the
 * authority fails, sealing fails (TimestampUnavailable): a seal never falls back to an untrusted time.
 *
 * The input must be unsealed: the whole file is rewritten, which would break an earlier signature,
 * so a PDF that already carries one is refused with PdfError('already_sealed'). Callers seal each
 * revision from the unsealed working copy.
 */
export function createSealer(
  key: SigningKey,
  options: { tsa?: TimestampAuthority; revocation?: RevocationProvider; revocationTimeoutMs?: number } = {},
): Sealer {
  const commonName = commonNameOf(key);
  const certificatesLength = [key.certificate, ...key.chain].reduce((sum, cert) => sum + der(cert).length, 0);
  // Counted in hex digits: two per byte of the signature.
  const signatureLength = 2 * (certificatesLength + SIGNATURE_ROOM);

  async function prepare(pdf: Uint8Array, info: SealInfo, certify: boolean): Promise<Buffer> {
    const doc = await loadPdf(pdf);
    if (isSealed(doc)) throw new PdfError('already_sealed', t('errors.pdf.already_signed_seal_copy'));
    const fieldNames = topFieldNames(doc);
    pdflibAddPlaceholder({
      pdfDoc: doc,
      reason: literal(info.reason),
      contactInfo: '',
      name: literal(commonName),
      location: literal(info.location ?? ''),
      signingTime: info.signedAt ?? new Date(),
      signatureLength,
      subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    });
    const field = renameSealField(doc, fieldNames);
    if (certify) certifyWith(doc, field);
    // No object streams: the signature dictionary must stay readable in the file as written, and
    // the DSS and document timestamp are appended as incremental updates to a classic xref table.
    return Buffer.from(await doc.save({ useObjectStreams: false }));
  }

  /** The signed PDF and the CMS signature it carries. */
  async function sign(prepared: Buffer): Promise<{ pdf: Uint8Array; cms: Uint8Array }> {
    const signer = new PadesSigner(key, options.tsa);
    try {
      return { pdf: new Uint8Array(await signpdf.sign(prepared, signer)), cms: signer.cms! };
    } catch (error) {
      if (error instanceof PdfError) throw error;
      throw new PdfError('sign_failed', t('errors.pdf.could_not_signed', { reason: (error as Error).message }));
    }
  }

  return {
    subject: subjectOf(key.certificate),
    timestamps: options.tsa?.name,
    async seal(pdf, info) {
      return (await sign(await prepare(pdf, info, false))).pdf;
    },
    async certify(pdf, info) {
      const certified = await sign(await prepare(pdf, info, true));
      if (!options.tsa)
        return { pdf: certified.pdf, warnings: ['no timestamp authority: the completion seal has no document timestamp (B-B)'] };
      return archive(certified, options.tsa, options.revocation, options.revocationTimeoutMs ?? 10_000);
    },
  };
}

/**
 * The DSS (the chains, OCSP responses and CRLs of the seal's certificates and of its timestamp's
 * authority) and a document timestamp over the whole file, as incremental updates, so the
 * certification signature stays intact: PAdES B-LTA.
 */
async function archive(
  certified: { pdf: Uint8Array; cms: Uint8Array },
  tsa: TimestampAuthority,
  revocation: RevocationProvider | undefined,
  timeoutMs: number,
): Promise<{ pdf: Uint8Array; warnings: string[] }> {
  try {
    const validation = await addDss(certified.pdf, [certified.cms], { revocation, timeoutMs });
    // The DSS already holds the authority's chain and revocation data (gathered from the seal's own
    // signature timestamp): nothing follows the document timestamp, which covers the whole file.
    const stamped = await (await PDF.load(validation.pdf)).addTimestamp({
      timestampAuthority: tsa,
      longTermValidation: false,
      estimatedSize: DOCUMENT_TIMESTAMP_ROOM,
      fieldName: 'Archive timestamp',
    });
    return { pdf: stamped.bytes, warnings: [...validation.warnings, ...stamped.warnings.map((warning) => warning.message)] };
  } catch (error) {
    if (error instanceof PdfError) throw error;
    const message = (error as Error).message;
    // libpdf wraps the authority's failure: it stays a failure that retrying may mend.
    if (/TSA|timestamp/i.test(`${(error as Error).name} ${message}`))
      throw new TimestampUnavailable(`The document timestamp failed: ${message}`);
    throw new PdfError('sign_failed', t('errors.pdf.validation_data_not_added', { reason: message }));
  }
}

/** A CAdES signer for @signpdf: signs the SHA-256 of the byte ranges, then timestamps its own signature value. One per seal. */
class PadesSigner extends Signer {
  /** The CMS it made, once it signed. */
  cms: Uint8Array | undefined;

  constructor(
    private readonly key: SigningKey,
    private readonly tsa: TimestampAuthority | undefined,
  ) {
    super();
  }

  override async sign(pdfBuffer: Buffer): Promise<Buffer> {
    const signed = await signDigest(this.key, { contentType: OID.data, digest: sha256(pdfBuffer) });
    if (this.tsa) addSignatureTimestamp(signed, await this.tsa.timestamp(sha256(signatureValue(signed)), 'SHA-256'));
    const cms = contentInfo(signed);
    this.cms = cms;
    return cms;
  }
}

/**
 * Makes the seal a certification signature: the signature dictionary references the DocMDP transform
 * with P=1 (no change permitted), and the catalog's /Perms names it. The placeholder wrote its
 * dictionary as raw bytes, so the reference is added to those bytes.
 */
function certifyWith(doc: PDFDocument, field: PDFDict): void {
  const ref = field.get(PDFName.of('V')) as PDFRef;
  const raw = doc.context.lookup(ref) as PDFInvalidObject;
  const text = Buffer.from(rawBytes(raw)).toString('latin1');
  const reference = '/Reference [<< /Type /SigRef /TransformMethod /DocMDP /TransformParams << /Type /TransformParams /P 1 /V /1.2 >> >>]';
  if (!text.startsWith('<<')) throw new PdfError('sign_failed', t('errors.pdf.signature_dictionary_unexpected_form'));
  doc.context.assign(ref, PDFInvalidObject.of(Buffer.from(`<<\n${reference}\n${text.slice(2)}`, 'latin1')));
  doc.catalog.set(PDFName.of('Perms'), doc.context.obj({ DocMDP: ref }));
}

function rawBytes(object: PDFInvalidObject): Uint8Array {
  const bytes = new Uint8Array(object.sizeInBytes());
  object.copyBytesInto(bytes, 0);
  return bytes;
}

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

/** The placeholder names its field "Signature1"; a form may already use that name. Answers the field. */
function renameSealField(doc: PDFDocument, taken: Set<string>): PDFDict {
  const fields = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).lookup(PDFName.of('Fields'), PDFArray);
  const field = fields.lookup(fields.size() - 1, PDFDict);
  let name = 'Seal';
  for (let n = 2; taken.has(name); n += 1) name = `Seal${n}`;
  field.set(PDFName.of('T'), PDFString.of(name));
  return field;
}

function commonNameOf(key: SigningKey): string {
  const cn = key.certificate.subject.typesAndValues.find((entry) => entry.type === '2.5.4.3');
  return cn ? String(cn.value.valueBlock.value) : 'Document seal';
}
