// The body of a PDF thread (see pool.ts): runs the PDF jobs it is sent, one at a time, and answers each
// with its result or its error, serialised. Every job parses a PDF: none of them runs on a request's
// event loop.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { t, withLocale } from '../../i18n';
import { PdfError } from '../errors';
import { stampPrefill } from '../stamp';
import { verifyPdfBytes } from '../verify/verify';
import { type IntakeLimits, inflateBudget } from './limits';
import { normalisePdf } from './normalise';
import type { JobRequest, JobResult, SerialisedError, ThreadData, ThreadReply, ThreadRequest } from './protocol';
import { refuse } from './refuse';
import { scanPdf } from './scan';
import { sealerFor } from './sealing';

export function serialiseError(error: unknown): SerialisedError {
  const { name, message, stack } = error instanceof Error ? error : new Error(String(error));
  return error instanceof PdfError ? { pdfError: true, reason: error.reason, name, message } : { pdfError: false, name, message, stack };
}

/**
 * What a verification may decode (cross-reference and object streams, validation data): with the file
 * itself, the memory outside the thread's heap one verify can hold.
 */
const VERIFY_DECODE_LIMIT = 64 * 1024 * 1024;

async function run(job: JobRequest, limits: IntakeLimits): Promise<{ result: JobResult; transfer: ArrayBuffer[] }> {
  const bytes = new Uint8Array(job.pdf);
  switch (job.kind) {
    case 'intake': {
      const result = await normalisePdf(bytes, limits);
      const pdf = owned(result.pdf);
      return { result: { kind: 'intake', pdf, pages: result.pages, removed: result.removed }, transfer: [pdf] };
    }
    case 'verify': {
      // The intake's bounds before the verifier reads the file: objects, and what object streams inflate to.
      await scanPdf(bytes, limits, 'object-streams');
      try {
        const decodeLimit = Math.min(inflateBudget(bytes.length, limits), VERIFY_DECODE_LIMIT);
        return { result: { kind: 'verify', report: verifyPdfBytes(bytes, { anchors: job.anchors, decodeLimit }) }, transfer: [] };
      } catch (error) {
        if (error instanceof PdfError) throw error;
        // A structure the verifier cannot follow is a file no reader could check either, never a 500.
        throw refuse(t('errors.pdf.could_not_checked', { reason: (error as Error).message }));
      }
    }
    case 'seal': {
      const sealed = owned(await (await sealerFor(job.sealer)).seal(bytes, job.info));
      return { result: { kind: 'seal', pdf: sealed }, transfer: [sealed] };
    }
    case 'prefill': {
      const stamped = owned(await stampPrefill(bytes, job.widgets));
      return { result: { kind: 'prefill', pdf: stamped }, transfer: [stamped] };
    }
  }
}

if (parentPort) {
  const port = parentPort;
  const { limits, nice } = workerData as ThreadData;
  if (nice) lowerPriority(nice);
  // pdf-lib warns on the console for every odd object: thousands of lines a hostile file can make, each
  // one a message to the main thread's event loop.
  console.warn = () => {};
  console.log = () => {};
  port.on('message', async ({ id, locale, ...job }: ThreadRequest) => {
    try {
      // The words of the result (the verifier's report, a refusal's reason) in the locale of the request.
      const { result, transfer } = await withLocale(locale, () => run(job as JobRequest, limits));
      port.postMessage({ type: 'done', id, result } satisfies ThreadReply, transfer);
    } catch (error) {
      port.postMessage({ type: 'failed', id, error: serialiseError(error) } satisfies ThreadReply);
    }
  });
  port.postMessage({ type: 'ready' } satisfies ThreadReply);
}

/**
 * Lowers this thread's CPU priority (Linux: setpriority on the thread's own id), so that work queued
 * here by strangers yields the processor to the threads that serve tenants. Elsewhere it stays as is.
 */
function lowerPriority(nice: number): void {
  try {
    const tid = Number(/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1]);
    if (tid) setPriority(tid, nice);
  } catch {
    // No /proc or no permission: the lane is still bounded, only not deprioritised.
  }
}

/** A buffer holding exactly these bytes, so it can be transferred rather than copied. */
function owned(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  return bytes.slice().buffer as ArrayBuffer;
}
