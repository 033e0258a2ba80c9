// The body of a PDF thread (see pool.ts): runs the PDF jobs it is sent, one at a time, and answers each
// with its result or its error, serialised. Every job parses a PDF: none of them runs on a request's
// event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { PdfError } from '../errors';
import { inspectSignatures, type SignatureCheck } from '../pades/inspect';
import type { SealInfo } from '../seal';
import type { IntakeLimits } from './limits';
import { normalisePdf } from './normalise';
import type { ThreadData } from './pool';
import { refuse } from './refuse';
import { scanPdf } from './scan';
import { type SealerConfig, sealerFor } from './sealing';

export type JobRequest =
  | { kind: 'intake'; pdf: ArrayBuffer }
  | { kind: 'inspect'; pdf: ArrayBuffer }
  | { kind: 'seal'; pdf: ArrayBuffer; info: SealInfo; sealer: SealerConfig };
export type ThreadRequest = JobRequest & { id: number };

/** A signature check as it crosses threads: its timestamp token stays behind. */
export type InspectedSignature = Omit<SignatureCheck, 'timestamp'> & {
  timestamp?: Omit<NonNullable<SignatureCheck['timestamp']>, 'token'>;
};

export type JobResult =
  | { kind: 'intake'; pdf: ArrayBuffer; pages: Array<{ width: number; height: number }>; removed: string[] }
  | { kind: 'inspect'; signatures: InspectedSignature[] }
  | { kind: 'seal'; pdf: ArrayBuffer };

export type ThreadReply =
  | { type: 'ready' }
  | { type: 'done'; id: number; result: JobResult }
  | { type: 'failed'; id: number; error: SerialisedError };
export type SerialisedError = { pdfError: boolean; reason?: string; name: string; message: string; stack?: string };

export function serialiseError(error: unknown): SerialisedError {
  const { name, message, stack } = error instanceof Error ? error : new Error(String(error));
  return error instanceof PdfError ? { pdfError: true, reason: error.reason, name, message } : { pdfError: false, name, message, stack };
}

async function run(job: JobRequest, limits: IntakeLimits): Promise<{ result: JobResult; transfer: ArrayBuffer[] }> {
  const bytes = new Uint8Array(job.pdf);
  switch (job.kind) {
    case 'intake': {
      const result = await normalisePdf(bytes, limits);
      const pdf = owned(result.pdf);
      return { result: { kind: 'intake', pdf, pages: result.pages, removed: result.removed }, transfer: [pdf] };
    }
    case 'inspect': {
      // The intake's bounds before pdf-lib reads the file: objects, and the decoding of what it decodes.
      await scanPdf(bytes, limits, 'object-streams');
      const checks = await inspectSignatures(bytes).catch((error: unknown) => {
        if (error instanceof PdfError) throw error;
        // pdf-lib throws on structures it cannot follow: the file is not one a reader could check either.
        throw refuse(`The PDF's structure cannot be read (${(error as Error).message}).`);
      });
      const signatures = checks.map(({ timestamp, ...check }) => {
        if (!timestamp) return check;
        const { token: _token, ...rest } = timestamp;
        return { ...check, timestamp: rest };
      });
      return { result: { kind: 'inspect', signatures }, transfer: [] };
    }
    case 'seal': {
      const sealed = owned(await (await sealerFor(job.sealer)).seal(bytes, job.info));
      return { result: { kind: 'seal', pdf: sealed }, transfer: [sealed] };
    }
  }
}

if (parentPort) {
  const port = parentPort;
  const { limits } = workerData as ThreadData;
  // pdf-lib warns on the console for every odd object: thousands of lines a hostile file can make, each
  // one a message to the main thread's event loop.
  console.warn = () => {};
  console.log = () => {};
  port.on('message', async ({ id, ...job }: ThreadRequest) => {
    try {
      const { result, transfer } = await run(job as JobRequest, limits);
      port.postMessage({ type: 'done', id, result } satisfies ThreadReply, transfer);
    } catch (error) {
      port.postMessage({ type: 'failed', id, error: serialiseError(error) } satisfies ThreadReply);
    }
  });
  port.postMessage({ type: 'ready' } satisfies ThreadReply);
}

/** A buffer holding exactly these bytes, so it can be transferred rather than copied. */
function owned(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  return bytes.slice().buffer as ArrayBuffer;
}
