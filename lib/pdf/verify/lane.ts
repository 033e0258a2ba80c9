// Verifying is open to anyone, so it runs in a lane of its own: its own PDF thread (below the
// tenants' threads in CPU priority), a small fixed number of places, and a per-address share of them.
// A request that finds no place is refused at once, before its body is read, so a stranger's uploads
// never queue in front of a tenant's document, template or apply, nor pile up in memory.
import { errors, retryAfter } from '../../errors';
import { t } from '../../i18n';
import type { IntakeLimits } from '../intake/limits';
import { createPdfThreads, type PdfThreads } from '../intake/pool';
import type { VerificationReport } from './report';

export interface VerifyLaneOptions {
  /** Threads of the lane. */
  threads: number;
  /** Verifies that may wait for a thread; with the threads, how many are admitted at once. */
  queue: number;
  /** Verifies one client address may have admitted at once. */
  perAddress: number;
  limits?: Partial<IntakeLimits>;
  /** The trust anchors (DER), read once. */
  anchors: () => Promise<Uint8Array[]>;
}

export interface VerifyLane {
  /**
   * A place for one verify from `address`; throws 429 `rate_limited` past the address's share and 503
   * `service_unavailable` when every place is taken, each with Retry-After. Release it when done.
   */
  admit(address: string): () => void;
  verify(bytes: Uint8Array): Promise<VerificationReport>;
  /** Loads the trust anchors (start-up fails on an unreadable SVC_VERIFY_TRUST_ANCHORS). */
  ready(): Promise<void>;
  readonly admitted: number;
  close(): Promise<void>;
}

// How soon a refused caller may try again: a verify takes well under a second; the lane drains in a few.
const RETRY_ADDRESS_MS = 2_000;
const RETRY_FULL_MS = 5_000;

export function createVerifyLane(options: VerifyLaneOptions): VerifyLane {
  const threads: PdfThreads = createPdfThreads({ size: options.threads, limits: options.limits, nice: 10 });
  const capacity = options.threads + options.queue;
  const perAddress = new Map<string, number>();
  let admitted = 0;
  let anchors: Promise<Uint8Array[]> | undefined;
  const loadAnchors = () =>
    (anchors ??= options.anchors().catch((error: unknown) => {
      anchors = undefined;
      throw error;
    }));
  return {
    admit(address) {
      const mine = perAddress.get(address) ?? 0;
      if (mine >= options.perAddress)
        throw errors.rateLimited(
          t('errors.verify.address_busy', { count: mine }),
          [{ path: 'verifications_per_address', message: `at most ${options.perAddress} at once` }],
          retryAfter(RETRY_ADDRESS_MS),
        );
      if (admitted >= capacity)
        throw errors.serviceUnavailable(t('errors.verify.verifier_busy_other_files_retry'), undefined, retryAfter(RETRY_FULL_MS));
      admitted++;
      perAddress.set(address, mine + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        admitted--;
        const left = (perAddress.get(address) ?? 1) - 1;
        if (left > 0) perAddress.set(address, left);
        else perAddress.delete(address);
      };
    },
    async verify(bytes) {
      return threads.verify(bytes, await loadAnchors());
    },
    async ready() {
      await loadAnchors();
    },
    get admitted() {
      return admitted;
    },
    close: () => threads.close(),
  };
}
