// What an apply needs, apart from the rules: its dependencies and the progress callback (apply.ts,
// apply-record.ts and complete.ts share them, so none of them imports another for a type).
import type { Db } from '../../db/connect';
import type { BlobStore } from '../../lib/blobs';
import type { Faults } from '../../lib/config/config';
import type { Logger } from '../../lib/log';
import type { Sealer } from '../../lib/pdf/seal';
import type { ReceiptIssuer } from '../../lib/receipts';

export interface ApplyDeps {
  db: Db;
  blobs: BlobStore;
  sealer(): Promise<Sealer>;
  /** Signs the dual-attestation receipt of a document the apply completes. */
  receipts: ReceiptIssuer;
  faults?: Faults;
  /** Where the apply's stage timings go (debug: `apply timings`, in milliseconds). */
  log?: Logger;
}

/** Called between the slow steps of an apply (a Temporal heartbeat when run as an activity). */
/** Called as the work goes on, with what it does now: the heartbeat's detail, read when a heartbeat times out. */
export type Progress = (doing: string) => void;
