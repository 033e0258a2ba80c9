// Files made to cost a verifier as much as its limits allow, for the load test and the benchmark of the
// verify lane: fifty structurally sound signatures, each over a large file (every one hashed), and a
// document of many reachable objects with a signature followed by many revisions (every revision
// compared object by object with the one before it).
import { randomBytes } from 'node:crypto';
import { PDFRawStream } from 'pdf-lib';
import type { SigningKey } from '../../lib/pdf/pades/cms';
import { classic, ndaDocument } from './documents';
import { appendUpdate, findObject, lastTrailer, nextObjectNumber, ref } from './incremental';
import { addSignaturePlaceholder, BYTE_RANGE_PLACEHOLDER, signPlaceholder } from './signing';

/** A signature revision on top of `pdf`: a new signature field (its widget on the page) listed in the AcroForm, signed by `key` over the whole file. */
async function addSignature(
  pdf: Buffer,
  key: SigningKey,
  acroForm: number,
  fields: number[],
  page: number,
  index: number,
): Promise<{ pdf: Buffer; field: number }> {
  const next = nextObjectNumber(pdf);
  const [signature, field] = [next, next + 1];
  const room = 4 * 1024;
  const objects = new Map<number, string>([
    [
      signature,
      `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached ${BYTE_RANGE_PLACEHOLDER} /Contents <${'0'.repeat(2 * room)}> >>`,
    ],
    [
      field,
      `<< /Type /Annot /Subtype /Widget /FT /Sig /T (Signature ${index}) /V ${ref(signature)} /Rect [0 0 0 0] /F 4 /P ${ref(page)} >>`,
    ],
    [acroForm, `<< /Fields [${[...fields, field].map((num) => ref(num)).join(' ')}] /SigFlags 3 >>`],
  ]);
  const signed = await signPlaceholder(appendUpdate(pdf, objects), key);
  return { pdf: signed.pdf, field };
}

/**
 * The NDA padded with `paddingBytes` of random data no page shows, then `count` signatures, each in a
 * revision of its own and over the whole file as it then stood: every one is structurally sound, so a
 * verifier hashes the file `count` times and checks each CMS.
 */
export async function manySignatures(key: SigningKey, options: { count: number; paddingBytes: number }): Promise<Buffer> {
  const doc = await ndaDocument();
  // Registered, never referenced: bytes every signature covers and no reader shows.
  doc.context.register(PDFRawStream.of(doc.context.obj({ Length: options.paddingBytes }), randomBytes(options.paddingBytes)));
  const { widgetRef } = addSignaturePlaceholder(doc, { fieldName: 'Signature 1', room: 4 * 1024 });
  let pdf = (await signPlaceholder(await classic(doc), key)).pdf;
  const root = Number(/^(\d+)/.exec(lastTrailer(pdf).root)![1]);
  const acroForm = Number(/\/AcroForm\s+(\d+)\s+0\s+R/.exec(findObject(pdf, root).value)![1]);
  const page = doc.getPage(0).ref.objectNumber;
  const fields = [widgetRef.objectNumber];
  for (let index = 2; index <= options.count; index++) {
    const added = await addSignature(pdf, key, acroForm, fields, page, index);
    pdf = added.pdf;
    fields.push(added.field);
  }
  return pdf;
}

/**
 * A one-page document whose catalog reaches `objects` small dictionaries, signed, then `revisions`
 * updates that each change one of them: comparing every revision with the one before it walks every
 * object, `revisions` times.
 */
export async function manyRevisions(key: SigningKey, options: { objects: number; revisions: number }): Promise<Buffer> {
  const first = 6;
  const parts: string[] = ['%PDF-1.7\n%\xe2\xe3\xcf\xd3\n'];
  const offsets: number[] = [];
  let length = Buffer.byteLength(parts[0], 'latin1');
  const write = (num: number, body: string) => {
    offsets[num] = length;
    const text = `${num} 0 obj\n${body}\nendobj\n`;
    parts.push(text);
    length += Buffer.byteLength(text, 'latin1');
  };
  const junk = Array.from({ length: options.objects }, (_, index) => ref(first + index)).join(' ');
  write(1, `<< /Type /Catalog /Pages 2 0 R /Junk 4 0 R /AcroForm 5 0 R >>`);
  write(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  write(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>');
  write(4, `[${junk}]`);
  write(5, '<< /Fields [] >>');
  for (let index = 0; index < options.objects; index++)
    write(first + index, `<< /N ${index} /Next ${ref(first + ((index + 1) % options.objects))} >>`);
  const size = first + options.objects;
  let xref = `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let num = 1; num < size; num++) xref += `${String(offsets[num]).padStart(10, '0')} 00000 n \n`;
  parts.push(`${xref}trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`);
  let pdf = (await addSignature(Buffer.from(parts.join(''), 'latin1'), key, 5, [], 3, 1)).pdf;
  for (let revision = 0; revision < options.revisions; revision++) {
    pdf = appendUpdate(pdf, new Map([[first + revision, `<< /N ${revision} /Changed ${revision} /Next ${ref(first)} >>`]]));
  }
  return pdf;
}
