// How the corpus test looks at a file with tools other than the service's own code: qpdf (structure,
// its JSON view of the objects a reader resolves), pdfsig (signatures, ranges), openssl (CMS, OCSP).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import * as pkijs from 'pkijs';
import { run, type ToolResult, tempDir, writeTemp } from '../pdf-tools';

const TST_INFO = '1.2.840.113549.1.9.16.1.4';
const SIGNATURE_TIMESTAMP = '1.2.840.113549.1.9.16.2.14';

export type ByteRange = [number, number, number, number];

/** One signature as pdfsig reports it. */
export interface PdfsigEntry {
  field: string;
  commonName: string;
  ranges?: ByteRange;
  total: boolean;
  /** "Signature is Valid.": the CMS verifies over the ranges pdfsig read. */
  valid: boolean;
  text: string;
}

export interface Examined {
  file: string;
  qpdf: ToolResult;
  pdfsig: { report: string; signatures: PdfsigEntry[] };
  /** qpdf --json: pages, acroform, and every object qpdf resolves ("obj:n 0 R" → { value } or { stream: { dict } }). */
  json: {
    pages: Array<{ contents: string[]; object: string }>;
    acroform: { hasacroform: boolean; fields: Array<{ fullname: string; value: unknown; fieldtype: string }> };
    objects: Record<string, any>;
  };
}

let counter = 0;

/** A file name of its own for each file the tools are given. */
function fileName(stem: string): string {
  counter += 1;
  return `${stem}-${counter}.pdf`;
}

export async function examine(name: string, pdf: Uint8Array): Promise<Examined> {
  const file = await writeTemp(fileName(name), pdf);
  const [qpdf, sig, json] = await Promise.all([
    run('qpdf', ['--check', file]),
    run('pdfsig', [file]),
    run('qpdf', ['--json', '--json-key=pages', '--json-key=acroform', '--json-key=qpdf', file]),
  ]);
  const report = sig.stdout + sig.stderr;
  const parsed = JSON.parse(json.stdout);
  return {
    file,
    qpdf,
    pdfsig: { report, signatures: parsePdfsig(report) },
    json: { pages: parsed.pages, acroform: parsed.acroform, objects: parsed.qpdf[1] },
  };
}

export function parsePdfsig(report: string): PdfsigEntry[] {
  return report
    .split(/^Signature #\d+:$/m)
    .slice(1)
    .map((text) => {
      const ranges = /Signed Ranges: \[(\d+) - (\d+)\], \[(\d+) - (\d+)\]/.exec(text);
      const [a, b, c, e] = ranges ? ranges.slice(1).map(Number) : [];
      return {
        field: /Signature Field Name: (.*)/.exec(text)?.[1] ?? '',
        commonName: /Signer Certificate Common Name: (.*)/.exec(text)?.[1] ?? '',
        ranges: ranges ? ([a, b, c, e - c] as ByteRange) : undefined,
        total: /^\s*- Total document signed$/m.test(text),
        valid: text.includes('Signature is Valid.'),
        text,
      };
    });
}

/** A value qpdf's JSON shows for an object: the dictionary of a stream, else the value itself. */
export function objectValue(examined: Examined, reference: string): any {
  const object = examined.json.objects[`obj:${reference}`];
  return object?.stream ? object.stream.dict : object?.value;
}

/** Every `/ByteRange [a b c d]` written anywhere in the file (referenced or not), distinct. */
export function writtenByteRanges(pdf: Uint8Array): ByteRange[] {
  const text = Buffer.from(pdf).toString('latin1');
  const found = [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)].map(
    (match) => match.slice(1).map(Number) as ByteRange,
  );
  return found.filter((range, index) => found.findIndex((other) => other.join() === range.join()) === index);
}

/** The bytes a byte range signs, and the DER of the CMS in its gap (the hex string starting at b). */
export function rangeParts(pdf: Uint8Array, [, b, c, d]: ByteRange): { signed: Buffer; cms: Buffer; gap: Buffer } {
  const bytes = Buffer.from(pdf);
  const gap = bytes.subarray(b, c);
  const hexEnd = gap.indexOf('>');
  if (gap[0] !== 0x3c || hexEnd < 0) throw new Error('the gap does not start with a hex string');
  const der = Buffer.from(gap.subarray(1, hexEnd).toString('latin1'), 'hex');
  return { signed: Buffer.concat([bytes.subarray(0, b), bytes.subarray(c, c + d)]), cms: der.subarray(0, derLength(der)), gap };
}

/** The length of a DER TLV with its header (the CMS in /Contents is followed by zero padding). */
function derLength(der: Buffer): number {
  if (der.length < 2) return 0;
  const first = der[1];
  if (first < 0x80) return 2 + first;
  const count = first & 0x7f;
  return 2 + count + der.subarray(2, 2 + count).reduce((sum, byte) => sum * 256 + byte, 0);
}

function runBuffer(tool: string, args: string[]): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve) => {
    execFile(tool, args, { encoding: 'buffer', maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as NodeJS.ErrnoException).code ?? 1) : 0, stdout, stderr: stderr.toString('utf8') });
    });
  });
}

export interface CmsCheck {
  ok: boolean;
  output: string;
  /** The signer's certificate (the authority's, for a token). */
  signer?: { commonName: string; selfSigned: boolean };
  /** A timestamp token's TSTInfo (document timestamp), or the signature timestamp's, when there is one. */
  timestamp?: { time: Date; imprintMatches: boolean; signerSelfSigned: boolean };
}

/**
 * `openssl cms -verify -noverify` of the CMS in a byte range's gap: the signer's signature (not its
 * chain). A detached CMS is checked over the ranged bytes; a timestamp token's signature over its
 * TSTInfo, whose imprint must be the SHA-256 of the ranged bytes.
 */
export async function verifyRangeCms(pdf: Uint8Array, range: ByteRange): Promise<CmsCheck> {
  const { signed, cms } = rangeParts(pdf, range);
  const signedData = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(cms).content });
  if (signedData.encapContentInfo.eContentType === TST_INFO) return verifyToken(cms, createHash('sha256').update(signed).digest());
  const directory = await tempDir();
  const [cmsFile, dataFile] = [path.join(directory, 'cms.der'), path.join(directory, 'data.bin')];
  await Promise.all([fs.writeFile(cmsFile, cms), fs.writeFile(dataFile, signed)]);
  const result = await run('openssl', [
    'cms',
    '-verify',
    '-binary',
    '-inform',
    'DER',
    '-in',
    cmsFile,
    '-content',
    dataFile,
    '-noverify',
    '-out',
    '/dev/null',
  ]);
  const token = signatureTimestampToken(signedData);
  const signatureValue = Buffer.from(signedData.signerInfos[0].signature.valueBlock.valueHexView);
  return {
    ok: result.code === 0 && /Verification successful/.test(result.stderr),
    output: result.stdout + result.stderr,
    signer: signerOf(signedData),
    ...(token ? { timestamp: (await verifyToken(token, createHash('sha256').update(signatureValue).digest())).timestamp } : {}),
  };
}

function signatureTimestampToken(signedData: pkijs.SignedData): Buffer | undefined {
  const attribute = signedData.signerInfos[0].unsignedAttrs?.attributes.find((item) => item.type === SIGNATURE_TIMESTAMP);
  return attribute ? Buffer.from(attribute.values[0].toBER(false)) : undefined;
}

/** An RFC 3161 token: openssl checks its signature and hands out the TSTInfo, whose imprint must be `digest`. */
async function verifyToken(token: Buffer, digest: Buffer): Promise<CmsCheck> {
  const directory = await tempDir();
  const tokenFile = path.join(directory, 'token.der');
  await fs.writeFile(tokenFile, token);
  const result = await runBuffer('openssl', ['cms', '-verify', '-inform', 'DER', '-in', tokenFile, '-noverify']);
  const ok = result.code === 0 && /Verification successful/.test(result.stderr);
  if (!ok) return { ok, output: result.stderr };
  const tstInfo = pkijs.TSTInfo.fromBER(new Uint8Array(result.stdout));
  const signer = signerOf(new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(token).content }));
  const imprintMatches = Buffer.from(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView).equals(digest);
  return {
    ok: ok && imprintMatches,
    output: result.stderr,
    signer,
    timestamp: { time: tstInfo.genTime, imprintMatches, signerSelfSigned: signer?.selfSigned ?? false },
  };
}

/** The certificate the SignerInfo names (issuer and serial): its CN, and whether it issued itself. */
function signerOf(signedData: pkijs.SignedData): CmsCheck['signer'] {
  const sid = signedData.signerInfos[0].sid as pkijs.IssuerAndSerialNumber;
  const signer = (signedData.certificates ?? []).find(
    (cert): cert is pkijs.Certificate => cert instanceof pkijs.Certificate && cert.serialNumber.isEqual(sid.serialNumber),
  );
  if (!signer) return undefined;
  const der = (name: pkijs.RelativeDistinguishedNames) => Buffer.from(name.toSchema().toBER(false));
  const cn = signer.subject.typesAndValues.find((entry) => entry.type === '2.5.4.3');
  return { commonName: String(cn?.value.valueBlock.value ?? ''), selfSigned: der(signer.issuer).equals(der(signer.subject)) };
}

/** The decoded data of stream object `n` as qpdf resolves it. */
export async function streamData(file: string, number: number): Promise<Buffer> {
  const result = await runBuffer('qpdf', [`--show-object=${number}`, '--filtered-stream-data', file]);
  if (result.code !== 0 && result.code !== 3) throw new Error(`qpdf --show-object=${number}: ${result.stderr}`);
  return result.stdout;
}

/** `openssl ocsp -respin … -resp_text -noverify` of a DER OCSP response. */
export async function ocspText(response: Buffer): Promise<string> {
  const file = path.join(await tempDir(), 'ocsp.der');
  await fs.writeFile(file, response);
  const result = await run('openssl', ['ocsp', '-respin', file, '-resp_text', '-noverify']);
  return result.stdout + result.stderr;
}

/** How many revisions the file has (each ends with %%EOF). */
export function revisionCount(pdf: Uint8Array): number {
  return Buffer.from(pdf).toString('latin1').split('%%EOF').length - 1;
}

/** The text pdftotext reads from a file given as bytes. */
export async function textOf(pdf: Uint8Array): Promise<string> {
  const file = await writeTemp(fileName('text'), pdf);
  const result = await run('pdftotext', [file, '-']);
  if (result.code !== 0) throw new Error(`pdftotext: ${result.stderr}`);
  return result.stdout.replace(/\s+/g, ' ');
}
