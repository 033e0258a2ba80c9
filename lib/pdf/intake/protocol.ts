// What the pool (pool.ts) and its threads (thread.ts) say to each other: the thread's start data,
// the jobs and their answers. Both sides import it; neither imports the other.
import type { Locale } from '../../i18n';
import type { SealInfo } from '../seal';
import type { SealerConfig } from '../sealer';
import type { VerificationReport } from '../verify/report';
import type { Widget } from '../widgets';
import type { IntakeLimits } from './limits';

export interface ThreadData {
  limits: IntakeLimits;
  /** A nice value for the threads (a lane for strangers' work runs below the tenants'). */
  nice?: number;
  thread: string;
  tsx: string;
}

export type JobRequest =
  | { kind: 'intake'; pdf: ArrayBuffer }
  | { kind: 'verify'; pdf: ArrayBuffer; anchors: Uint8Array[] }
  | { kind: 'seal'; pdf: ArrayBuffer; info: SealInfo; sealer: SealerConfig }
  | { kind: 'prefill'; pdf: ArrayBuffer; widgets: Widget[] };
/** A job as sent to a thread, with the locale of the request that asked for it (its words, e.g. the verifier's, are in it). */
export type ThreadRequest = JobRequest & { id: number; locale: Locale };

export type JobResult =
  | { kind: 'intake'; pdf: ArrayBuffer; pages: Array<{ width: number; height: number }>; removed: string[] }
  | { kind: 'verify'; report: VerificationReport }
  | { kind: 'seal'; pdf: ArrayBuffer }
  | { kind: 'prefill'; pdf: ArrayBuffer };

export type ThreadReply =
  | { type: 'ready' }
  | { type: 'done'; id: number; result: JobResult }
  | { type: 'failed'; id: number; error: SerialisedError };
export type SerialisedError = { pdfError: boolean; reason?: string; name: string; message: string; stack?: string };
