// The body of a PDF thread (see pool.ts): normalises the PDFs it is sent, one at a time, and answers
// each with the result or the error, serialised.
import { parentPort, workerData } from 'node:worker_threads';
import { PdfError } from '../errors';
import { normalisePdf } from './normalise';
import type { ThreadData } from './pool';
import type { Removed } from './strip';

export type ThreadRequest = { id: number; pdf: ArrayBuffer };
export type ThreadReply =
  | { type: 'ready' }
  | { type: 'done'; id: number; pdf: ArrayBuffer; pages: Array<{ width: number; height: number }>; removed: Removed[] }
  | { type: 'failed'; id: number; error: SerialisedError };
export type SerialisedError = { pdfError: boolean; reason?: string; name: string; message: string; stack?: string };

export function serialiseError(error: unknown): SerialisedError {
  const { name, message, stack } = error instanceof Error ? error : new Error(String(error));
  return error instanceof PdfError ? { pdfError: true, reason: error.reason, name, message } : { pdfError: false, name, message, stack };
}

if (parentPort) {
  const port = parentPort;
  const { limits } = workerData as ThreadData;
  // pdf-lib warns on the console for every odd object: thousands of lines a hostile file can make, each
  // one a message to the main thread's event loop.
  console.warn = () => {};
  console.log = () => {};
  port.on('message', async ({ id, pdf }: ThreadRequest) => {
    try {
      const result = await normalisePdf(new Uint8Array(pdf), limits);
      const out = owned(result.pdf);
      const reply: ThreadReply = { type: 'done', id, pdf: out, pages: result.pages, removed: result.removed };
      port.postMessage(reply, [out]);
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
