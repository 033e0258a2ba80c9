import { SettledApplies } from '../activities/apply/settled-notices';
import type { Services } from '../activities/services';
import { connectDb, type Db, dbDriver } from '../db/connect';
import { Notices } from '../db/notices';
import { createCodeLimits } from '../lib/code-limits';
import type { Config } from '../lib/config/config';
import { KeyCache } from '../lib/key-cache';
import { KeyUsage } from '../lib/key-usage';
import { createLogger, type Logger } from '../lib/log';
import { createMailer } from '../lib/mail';
import { trackPool } from '../lib/metrics';
import { createPdfThreads } from '../lib/pdf/intake';
import type { Sealer } from '../lib/pdf/seal';
import { loadSealerConfig, type SealerConfig, sealerFromConfig } from '../lib/pdf/sealer';
import { loadTrustAnchors } from '../lib/pdf/verify/anchors';
import { createVerifyLane } from '../lib/pdf/verify/lane';
import { createReceiptIssuer } from '../lib/receipts';
import { loadSecretKey } from '../lib/secrets/secret-key';
import { connectTemporal } from '../lib/temporal';
import { startTracing, type Tracing } from '../lib/tracing';
import { temporalWorkflows } from '../workflows/client';
import { createBlobStore } from './blob-store';

export interface ServicesOptions {
  temporalAddress?: string;
  log?: Logger;
  tracing?: Tracing;
  /**
   * A database connection to share instead of opening one (tests: a second API in the process of an
   * embedded PGlite, which one process alone may open); closeServices then leaves it open.
   */
  sharedDb?: Db;
}

export function createServices(config: Config, options: ServicesOptions = {}): Services {
  const address = options.temporalAddress ?? config.temporal.address;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set (npm start starts a dev server when it is absent)');
  const log = options.log ?? processLogger(config);
  const db =
    options.sharedDb ?? connectDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: config.databasePoolMax, log });
  if (!options.sharedDb) trackPool(db);
  let sealer: Promise<Sealer> | undefined;
  const secret = loadSecretKey({ secretKey: config.secretKey, previous: config.secretKeyPrevious, dataDir: config.dataDir });
  // A seal certificate that failed to load is tried again on the next apply, not cached as failed.
  let sealerConfig: Promise<SealerConfig> | undefined;
  const loadConfigOnce = () =>
    (sealerConfig ??= loadSealerConfig(config, log).catch((error: unknown) => {
      sealerConfig = undefined;
      throw error;
    }));
  const makeSealer = () =>
    loadConfigOnce()
      .then((loaded) => sealerFromConfig(loaded, (message) => log.warn(`seal validation data: ${message}`)))
      .catch((error: unknown) => {
        sealer = undefined;
        throw error;
      });
  const temporal = connectTemporal(config, address, options.tracing, log);
  const notices = new Notices(db, { databaseUrl: config.databaseUrl, log });
  const services: Services = {
    config,
    db,
    dbDriver: dbDriver(config),
    log,
    temporal,
    workflows: temporalWorkflows(temporal, config),
    blobs: createBlobStore(config),
    secret,
    mailer: createMailer({
      db,
      log,
      smtpUrl: config.smtpUrl,
      from: config.mailFrom,
      secret,
      print: config.env === 'development' ? (text) => process.stdout.write(text) : undefined,
    }),
    codeLimits: createCodeLimits(db, config.codeLimits),
    sealer: () => (sealer ??= makeSealer()),
    sealerConfig: loadConfigOnce,
    pdf: createPdfThreads({
      size: config.pdf.threads,
      limits: { timeMs: config.pdf.timeMs, memoryMb: config.pdf.memoryMb, maxPages: config.pdf.maxPages },
    }),
    verifier: createVerifyLane({
      threads: config.verify.threads,
      queue: config.verify.queue,
      perAddress: config.verify.perAddress,
      limits: { timeMs: config.pdf.timeMs, memoryMb: config.pdf.memoryMb, maxPages: config.pdf.maxPages },
      anchors: async () => {
        const own = await loadConfigOnce();
        const certificates = [own.seal, ...(own.tsa?.kind === 'development' ? [own.tsa.certificate] : [])];
        // An external authority's root is known only from the bundle: without it, the service's own timestamps verify as indeterminate.
        if (own.tsa?.kind === 'http' && !config.verify.trustAnchors)
          log.warn(
            'SVC_TSA_URL is set but SVC_VERIFY_TRUST_ANCHORS is not: POST /v1/verify trusts no timestamp authority but the seal CA; put the authority root in the bundle',
          );
        return loadTrustAnchors({ own: certificates, bundle: config.verify.trustAnchors });
      },
    }),
    receipts: createReceiptIssuer({ db, secret, issuer: config.publicUrl }),
    keyUsage: new KeyUsage(db, config.durations.keyUsageFlushMs, log),
    notices,
    settledApplies: new SettledApplies(notices),
    keyCache: new KeyCache(db, notices, { ttlMs: config.durations.keyCacheTtlMs }),
    faults: config.faults,
    tracing: options.tracing,
  };
  if (options.sharedDb) borrowingDb.add(services);
  return services;
}

/**
 * createServices for a process that traces when configured: its tracing starts first, so the
 * Temporal client carries it. `serviceName` names the process in traces unless OTEL_SERVICE_NAME does.
 */
export async function startServices(
  config: Config,
  serviceName: string,
  options: Omit<ServicesOptions, 'tracing'> = {},
): Promise<Services> {
  const log = options.log ?? processLogger(config);
  return createServices(config, { ...options, log, tracing: await startTracing(config.tracing, serviceName, log) });
}

/** Services made on a shared database connection: its owner closes it, not closeServices. */
const borrowingDb = new WeakSet<Services>();

function processLogger(config: Config): Logger {
  return createLogger(config.logLevel, {}, undefined, { redact: config.logRedact });
}

/** Files under the data dir, or the bucket SVC_BLOB_URL names (API, worker and admin commands alike). */
export async function closeServices(deps: Services): Promise<void> {
  // Hand-overs of applies already answered (from the commit's notice) end before the connection they use closes.
  await deps.settledApplies.drain(deps.config.durations.temporalCallMs);
  await deps.keyUsage.close().catch((error) => deps.log.warn('writing API key usage on close failed', { error }));
  await deps.keyCache.close();
  await deps.notices.close();
  deps.mailer.close();
  await deps.pdf.close();
  await deps.verifier.close();
  await deps.temporal.connection.close().catch(() => undefined);
  await deps.temporal.probe.close().catch(() => undefined);
  if (!borrowingDb.has(deps)) await deps.db.destroy();
  // Last: the spans of everything above are exported before the process ends.
  await deps.tracing?.shutdown();
}
