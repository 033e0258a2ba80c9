import type { Db, DbDriver } from '../db/connect';
import type { Notices } from '../db/notices';
import type { BlobStore } from '../lib/blobs';
import type { CodeLimits } from '../lib/code-limits';
import type { Config, Faults } from '../lib/config/config';
import type { KeyCache } from '../lib/key-cache';
import type { KeyUsage } from '../lib/key-usage';
import type { Logger } from '../lib/log';
import type { Mailer } from '../lib/mail';
import type { PdfThreads } from '../lib/pdf/intake';
import type { Sealer } from '../lib/pdf/seal';
import type { SealerConfig } from '../lib/pdf/sealer';
import type { VerifyLane } from '../lib/pdf/verify/lane';
import type { ReceiptIssuer } from '../lib/receipts';
import type { TemporalDeps } from '../lib/temporal';
import type { Tracing } from '../lib/tracing';
import type { Caller } from './accounts/accounts';
import type { SettledApplies } from './apply/settled-notices';
import type { Workflows } from './workflows';

/** What the API, the worker and the admin commands run on; built once per process (runtime/services.ts). */
export interface Services {
  config: Config;
  db: Db;
  dbDriver: DbDriver;
  log: Logger;
  /** The Temporal connection itself: health checks and the worker. Rules reach workflows through `workflows`. */
  temporal: TemporalDeps;
  /** The long-running work, as the rules see it (workflows/client.ts implements it). */
  workflows: Workflows;
  blobs: BlobStore;
  /** Key of signed links, tokens and cookies. */
  secret: Buffer;
  mailer: Mailer;
  /** Wrong-code budgets and per-address limits of e-mailed codes, kept in the database. */
  codeLimits: CodeLimits;
  /** The PDF seal, loaded (or created) on first use. */
  sealer(): Promise<Sealer>;
  /** What the seal is made of, for sealing on a PDF thread (the API seals off its event loop). */
  sealerConfig(): Promise<SealerConfig>;
  /** Threads for PDF work off the event loop: the intake of untrusted PDFs, reading signatures, sealing. */
  pdf: PdfThreads;
  /** The verify lane: anonymous verifies on a thread of their own, bounded per address and in all. */
  verifier: VerifyLane;
  /** Signs verifiable receipts (accepted offers, completed documents) and publishes their keys. */
  receipts: ReceiptIssuer;
  /** API keys' last_used_at, written in batches off the request path. */
  keyUsage: KeyUsage;
  /** PostgreSQL's notices on one listening connection of this process (db/notices.ts). */
  notices: Notices;
  /** The applies this process's requests wait for, answered by the commit's notice (activities/apply/settled-notices.ts). */
  settledApplies: SettledApplies;
  /** Callers found by their key's hash, kept until a change to them is announced (lib/key-cache.ts). */
  keyCache: KeyCache<Caller>;
  /** Fault injection for tests of crash recovery (zero unless SVC_ENV=test). */
  faults: Faults;
  /** OpenTelemetry tracing of this process (lib/tracing.ts startTracing); undefined when off, the default. */
  tracing?: Tracing;
}
