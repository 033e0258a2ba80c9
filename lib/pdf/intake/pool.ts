// A few threads that do a process's PDF work off its event loop (the intake of untrusted PDFs, reading
// a PDF's signatures, sealing), each job under a wall-clock limit and each thread under a heap limit;
// a thread that overruns either is ended and replaced.
import { Worker } from 'node:worker_threads';
import { currentLocale, type Locale, t } from '../../i18n';
import { PdfError } from '../errors';
import type { SealInfo } from '../seal';
import type { SealerConfig } from '../sealer';
import type { VerificationReport } from '../verify/report';
import type { Widget } from '../widgets';
import { formatDuration, type IntakeLimits, resolveLimits } from './limits';
import type { NormalisedPdf } from './normalise';
import type { JobRequest, JobResult, SerialisedError, ThreadData, ThreadReply, ThreadRequest } from './protocol';
import { refuse } from './refuse';
import type { Removed } from './strip';

export interface PdfThreads {
  /** Checks and normalises a PDF on a thread; rejects with PdfError('invalid_pdf') for a PDF refused. */
  intake(bytes: Uint8Array): Promise<NormalisedPdf>;
  /**
   * Verifies any PDF (lib/pdf/verify) against the trust anchors (DER), under the intake's limits. The
   * bytes move to the thread when they own their buffer: the caller must not read them after.
   */
  verify(bytes: Uint8Array, anchors: Uint8Array[]): Promise<VerificationReport>;
  /** Seals a PDF (an approval seal, lib/pdf/seal.ts) with the sealer `config` describes. */
  seal(bytes: Uint8Array, info: SealInfo, config: SealerConfig): Promise<Uint8Array>;
  /** Stamps the values a sender prefilled (lib/pdf/stamp.ts stampPrefill) into a PDF of the service's own making. */
  prefill(bytes: Uint8Array, widgets: Widget[]): Promise<Uint8Array>;
  /** Ends the threads; jobs not finished are rejected. */
  close(): Promise<void>;
  /**
   * The same threads for bulk work (a bulk send's items): its jobs wait while any other job waits, and
   * take at most all threads but one, so another tenant's single document is sealed next, not after them.
   */
  forBulk(): PdfThreads;
}

interface Job {
  id: number;
  /** Bulk work: served after every waiting interactive job, on all threads but one. */
  bulk: boolean;
  request: JobRequest;
  /** The locale of the request that queued it: the thread words its results in it. */
  locale: Locale;
  resolve: (result: JobResult) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
  error?: Error;
}

/**
 * A thread's first code: it imports thread.ts. The service and its tests run under tsx (`node --import
 * tsx`), but a worker thread may not have tsx's loader: then Node 20 cannot load a .ts file at all
 * (ERR_UNKNOWN_FILE_EXTENSION), and Node 22.18+/24, which strip types themselves, load thread.ts but
 * not its extensionless imports (ERR_MODULE_NOT_FOUND), a folder's index (ERR_UNSUPPORTED_DIR_IMPORT) or
 * JSON without its import attribute (ERR_IMPORT_ATTRIBUTE_MISSING: the message catalogue, lib/i18n).
 * Whichever comes first, the thread registers tsx itself
 * and imports again (under another URL: the failed import is cached).
 */
const BOOT = `
const { workerData } = require('node:worker_threads');
const TSX_CODES = ['ERR_UNKNOWN_FILE_EXTENSION', 'ERR_MODULE_NOT_FOUND', 'ERR_UNSUPPORTED_DIR_IMPORT', 'ERR_IMPORT_ATTRIBUTE_MISSING'];
import(workerData.thread).catch((error) => {
  if (!TSX_CODES.includes(error.code)) throw error;
  return import(workerData.tsx).then(({ register }) => {
    register();
    return import(workerData.thread + '?tsx');
  });
});
`;

export function createPdfThreads(options: { size?: number; limits?: Partial<IntakeLimits>; nice?: number } = {}): PdfThreads {
  const size = options.size ?? 2;
  if (!Number.isInteger(size) || size < 1) throw new TypeError('size must be a positive integer');
  const limits = resolveLimits(options.limits);
  const threads = new Set<Thread>();
  const queue: Job[] = [];
  const bulkQueue: Job[] = [];
  const bulkThreads = Math.max(1, size - 1);
  let nextId = 1;
  let closed = false;

  const spawn = (): Thread => {
    const workerData: ThreadData = {
      limits,
      nice: options.nice,
      thread: new URL('./thread.ts', import.meta.url).href,
      tsx: import.meta.resolve('tsx/esm/api'),
    };
    const worker = new Worker(BOOT, {
      eval: true,
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb, stackSizeMb: 4 },
    });
    const thread: Thread = { worker, ready: false };
    threads.add(thread);
    worker.on('message', (reply: ThreadReply) => onReply(thread, reply));
    worker.on('error', (error) => {
      thread.error = error;
    });
    worker.on('exit', (code) => onExit(thread, code));
    return thread;
  };

  const start = (thread: Thread, job: Job) => {
    thread.job = job;
    thread.worker.ref();
    if (!thread.ready) return;
    // The time limit runs from here: neither the queue nor the thread's start counts against the PDF.
    thread.timer = setTimeout(
      () => {
        retire(thread);
        job.reject(overran(job.request, limits));
        pump();
      },
      timeLimit(job.request, limits),
    );
    thread.worker.postMessage({ id: job.id, locale: job.locale, ...job.request } satisfies ThreadRequest, [job.request.pdf]);
  };

  const bulkRunning = () => {
    let running = 0;
    for (const thread of threads) if (thread.job?.bulk) running += 1;
    return running;
  };
  const waiting = () => queue.length > 0 || (bulkQueue.length > 0 && bulkRunning() < bulkThreads);
  const take = () => (queue.length > 0 ? queue.shift()! : bulkQueue.shift()!);

  const pump = () => {
    while (waiting() && !closed) {
      let free: Thread | undefined;
      for (const thread of threads) if (!thread.job) free = thread;
      if (!free && threads.size < size) {
        try {
          free = spawn();
        } catch (error) {
          take().reject(error as Error);
          continue;
        }
      }
      if (!free) return;
      start(free, take());
    }
  };

  const settle = (thread: Thread): Job | undefined => {
    const job = thread.job;
    clearTimeout(thread.timer);
    thread.job = undefined;
    thread.timer = undefined;
    thread.worker.unref();
    return job;
  };

  /** Ends a thread whose job overran; the next job gets a new one. */
  const retire = (thread: Thread) => {
    settle(thread);
    threads.delete(thread);
    thread.worker.removeAllListeners('exit');
    void thread.worker.terminate();
  };

  const onReply = (thread: Thread, reply: ThreadReply) => {
    if (reply.type === 'ready') {
      thread.ready = true;
      if (thread.job) start(thread, thread.job);
      else thread.worker.unref();
      pump();
      return;
    }
    if (thread.job?.id !== reply.id) return;
    const job = settle(thread)!;
    if (reply.type === 'done') {
      job.resolve(reply.result);
    } else {
      job.reject(deserialiseError(reply.error));
    }
    pump();
  };

  const onExit = (thread: Thread, code: number) => {
    threads.delete(thread);
    const job = settle(thread);
    if (job) job.reject(deathError(thread, code, limits));
    pump();
  };

  const run = <K extends JobRequest['kind']>(request: Extract<JobRequest, { kind: K }>, bulk: boolean) => {
    if (closed) return Promise.reject(new Error('The PDF threads are closed.'));
    return new Promise<Extract<JobResult, { kind: K }>>((resolve, reject) => {
      (bulk ? bulkQueue : queue).push({
        id: nextId++,
        bulk,
        request,
        locale: currentLocale(),
        resolve: resolve as (result: JobResult) => void,
        reject,
      });
      pump();
    });
  };
  // One copy of the caller's bytes into a buffer of its own, transferred to the thread (not cloned).
  const copy = (bytes: Uint8Array) => new Uint8Array(bytes).buffer;
  // The caller's own buffer when the bytes fill it (no second copy of a large upload), else a copy.
  const move = (bytes: Uint8Array) =>
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer &&
    bytes.byteLength > 64 * 1024
      ? bytes.buffer
      : copy(bytes);

  const close = async () => {
    closed = true;
    for (const job of [...queue.splice(0), ...bulkQueue.splice(0)]) job.reject(new Error('The PDF threads are closed.'));
    const ending = [...threads].map((thread) => {
      settle(thread)?.reject(new Error('The PDF threads are closed.'));
      thread.worker.removeAllListeners('exit');
      return thread.worker.terminate();
    });
    threads.clear();
    await Promise.all(ending);
  };

  const lane = (bulk: boolean): PdfThreads => ({
    async intake(bytes) {
      const result = await run({ kind: 'intake', pdf: copy(bytes) }, bulk);
      return { pdf: new Uint8Array(result.pdf), pages: result.pages, removed: result.removed as Removed[] };
    },
    async verify(bytes, anchors) {
      return (await run({ kind: 'verify', pdf: move(bytes), anchors }, bulk)).report;
    },
    async seal(bytes, info, config) {
      return new Uint8Array((await run({ kind: 'seal', pdf: copy(bytes), info, sealer: config }, bulk)).pdf);
    },
    async prefill(bytes, widgets) {
      return new Uint8Array((await run({ kind: 'prefill', pdf: copy(bytes), widgets }, bulk)).pdf);
    },
    close,
    forBulk: () => bulkLane,
  });
  const bulkLane = lane(true);
  return lane(false);
}

// A seal waits for its timestamp authority as well (at most its timeout, SVC_TSA_TIMEOUT_MS).
function timeLimit(request: JobRequest, limits: IntakeLimits): number {
  return request.kind === 'seal' ? limits.timeMs + (request.sealer.tsa?.kind === 'http' ? request.sealer.tsa.timeoutMs : 0) : limits.timeMs;
}

function overran(request: JobRequest, limits: IntakeLimits): Error {
  const limit = formatDuration(timeLimit(request, limits));
  if (request.kind === 'seal') return new PdfError('sign_failed', t('errors.pdf.sealing_took_longer', { limit }));
  return refuse(t('errors.pdf.took_longer_than_check', { limit }));
}

/** Why a thread died under a job: the heap limit, or a crash; a thread that never started is not the PDF's fault. */
function deathError(thread: Thread, code: number, limits: IntakeLimits): Error {
  const reason = thread.error?.message ?? `exit code ${code}`;
  if (!thread.ready) return new Error(`A PDF thread failed to start: ${reason}`);
  if ((thread.error as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return refuse(t('errors.pdf.needs_more_than_mb', { memoryMb: limits.memoryMb }));
  }
  return refuse(t('errors.pdf.could_not_checked_thread', { reason }));
}

function deserialiseError(error: SerialisedError): Error {
  if (error.pdfError) return new PdfError(error.reason ?? 'invalid_pdf', error.message);
  const copy = new Error(error.message);
  copy.name = error.name;
  if (error.stack) copy.stack = error.stack;
  return copy;
}
