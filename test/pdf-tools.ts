// The PDF tools other programs use (poppler, qpdf), run on real files: what tests check PDFs with.
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { verifyOffline } from './verifier';

const created: string[] = [];
process.once('exit', () => {
  for (const directory of created) rmSync(directory, { recursive: true, force: true });
});

/** A fresh directory under the OS temp dir, removed when the test process exits. */
export async function tempDir(): Promise<string> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-pdf-'));
  created.push(directory);
  return directory;
}

let scratch: Promise<string> | undefined;

/** Writes bytes to a file the tools can read. */
export async function writeTemp(name: string, bytes: Uint8Array): Promise<string> {
  scratch ??= tempDir();
  const file = path.join(await scratch, name);
  await fs.writeFile(file, bytes);
  return file;
}

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command line tool; a non-zero exit is reported, not thrown (pdfsig exits 1 on a bad signature). */
export function run(tool: string, args: string[]): Promise<ToolResult> {
  return new Promise((resolve) => {
    execFile(tool, args, { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as NodeJS.ErrnoException).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The text of a PDF (or of pages first..last) as pdftotext reads it. */
export async function pdfText(pdf: Uint8Array, pages?: { first: number; last: number }): Promise<string> {
  const file = await writeTemp(`text-${Date.now()}-${Math.random()}.pdf`, pdf);
  const range = pages ? ['-f', String(pages.first), '-l', String(pages.last)] : [];
  const result = await run('pdftotext', [...range, file, '-']);
  if (result.code !== 0) throw new Error(`pdftotext failed: ${result.stderr}`);
  return result.stdout;
}

export interface WordBox {
  page: number;
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

/** Every word pdftotext finds with its box, in points from the page's top-left as displayed. */
export async function pdfWords(pdf: Uint8Array): Promise<WordBox[]> {
  const file = await writeTemp(`bbox-${Date.now()}-${Math.random()}.pdf`, pdf);
  const { stdout } = await run('pdftotext', ['-bbox', file, '-']);
  const words: WordBox[] = [];
  let page = 0;
  for (const line of stdout.split('\n')) {
    if (line.includes('<page ')) page += 1;
    const match = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*)<\/word>/.exec(line);
    if (match) {
      const [xMin, yMin, xMax, yMax] = match.slice(1, 5).map(Number);
      words.push({ page, text: decodeEntities(match[5]), xMin, yMin, xMax, yMax });
    }
  }
  return words;
}

function decodeEntities(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&apos;', "'").replaceAll('&amp;', '&');
}

/** One signature as pdfsig reports it. */
export interface PdfsigSignature {
  type: string;
  /** pdfsig verified it (a document timestamp, which pdfsig 22 cannot verify, is checked by the service's verifier instead). */
  valid: boolean;
  wholeDocument: boolean;
  text: string;
}

/**
 * pdfsig's report of a PDF, and whether every check a sealed PDF must pass is there: every signature
 * pdfsig can verify is valid and SHA-256, and the last one covers the whole document. pdfsig 22.12
 * cannot verify a document timestamp (ETSI.RFC3161: "Unable to validate this type of signature"), so
 * those are checked here with the service's verifier (lib/pdf/verify): structure, imprint over the
 * byte ranges, the authority's signature, and no disallowed change after it; trust is not judged here
 * (no anchors: a chain not found is the one sub-indication accepted).
 */
export async function pdfsig(pdf: Uint8Array): Promise<{ report: string; valid: boolean; signatures: PdfsigSignature[] }> {
  const file = await writeTemp(`sig-${Date.now()}-${Math.random()}.pdf`, pdf);
  const { stdout, stderr } = await run('pdfsig', [file]);
  const report = stdout + stderr;
  const unverifiable = /Unable to validate this type of signature/;
  const signatures = report
    .split(/^Signature #\d+:$/m)
    .slice(1)
    .map((text) => ({
      type: /Signature Type: (\S+)/.exec(text)?.[1] ?? 'unknown',
      valid: text.includes('Signature is Valid.') && text.includes('SHA-256'),
      wholeDocument: /^\s*- Total document signed$/m.test(text),
      text,
    }));
  const timestamps = verifyOffline(pdf).signatures.filter((signature) => signature.kind === 'timestamp');
  const checked = signatures.every((signature) => signature.valid || (unverifiable.test(signature.text) && signature.type === 'unknown'));
  const documentTimestampsValid = timestamps.every((timestamp) => timestamp.sub_indication === 'NO_CERTIFICATE_CHAIN_FOUND');
  const unverified = signatures.filter((signature) => !signature.valid).length;
  const valid =
    signatures.length > 0 && checked && unverified === timestamps.length && documentTimestampsValid && signatures.at(-1)!.wholeDocument;
  return { report, valid, signatures };
}

export async function qpdfCheck(pdf: Uint8Array): Promise<ToolResult> {
  return run('qpdf', ['--check', await writeTemp(`check-${Date.now()}-${Math.random()}.pdf`, pdf)]);
}

/** `pdfimages -list` rows: one per image drawn on a page. */
export async function pdfImages(pdf: Uint8Array): Promise<Array<{ page: number; width: number; height: number; type: string }>> {
  const { stdout } = await run('pdfimages', ['-list', await writeTemp(`images-${Date.now()}-${Math.random()}.pdf`, pdf)]);
  return stdout
    .split('\n')
    .slice(2)
    .filter((line) => line.trim())
    .map((line) => line.trim().split(/\s+/))
    .map((cols) => ({ page: Number(cols[0]), type: cols[2], width: Number(cols[3]), height: Number(cols[4]) }));
}

/** Share of dark pixels in a region (points from the displayed top-left), rendered by pdftoppm at 72 dpi. */
export async function inkIn(pdf: Uint8Array, page: number, box: { x: number; y: number; width: number; height: number }): Promise<number> {
  const file = await writeTemp(`ink-${Date.now()}-${Math.random()}.pdf`, pdf);
  const args = [
    '-gray',
    '-r',
    '72',
    '-f',
    String(page),
    '-l',
    String(page),
    '-x',
    String(Math.round(box.x)),
    '-y',
    String(Math.round(box.y)),
    '-W',
    String(Math.round(box.width)),
    '-H',
    String(Math.round(box.height)),
    '-singlefile',
    file,
  ];
  const out = await new Promise<Buffer>((resolve, reject) => {
    execFile('pdftoppm', args, { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    );
  });
  // PGM: "P5\n<w> <h>\n255\n" then one byte per pixel.
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(out.subarray(0, 40).toString('latin1'));
  if (!header) throw new Error('pdftoppm did not answer a PGM image');
  const pixels = out.subarray(header[0].length);
  let dark = 0;
  for (const value of pixels) if (value < 128) dark += 1;
  return dark / pixels.length;
}

/** The files a PDF carries (its embedded files), by name, as pdfdetach saves them. */
export async function pdfAttachments(pdf: Uint8Array): Promise<Record<string, Buffer>> {
  const file = await writeTemp(`attached-${Date.now()}-${Math.random()}.pdf`, pdf);
  const directory = await fs.mkdtemp(path.join(await tempDir(), 'detach-'));
  const saved = await run('pdfdetach', ['-saveall', '-o', directory, file]);
  if (saved.code !== 0) throw new Error(`pdfdetach failed: ${saved.stderr}`);
  const files: Record<string, Buffer> = {};
  for (const name of await fs.readdir(directory)) files[name] = await fs.readFile(path.join(directory, name));
  return files;
}
