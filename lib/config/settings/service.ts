import { z } from 'zod';
import { bool, int, port, type Setting, url } from './kinds';

/** Where the service runs, what it stores and how it seals: the configuration table’s first part (docs/configuration.md), in its order. */
export const SERVICE_SETTINGS = {
  PORT: {
    schema: port.default(3000),
    doc: 'API port (`0` picks a free one); when it is taken, `npm start` and `npm run api` stop at once, naming it',
  },
  HOST: { schema: z.string().min(1).default('127.0.0.1'), doc: 'address the API binds (`0.0.0.0` in containers)' },
  SVC_ENV: {
    schema: z.enum(['development', 'test', 'production']).optional(),
    shown: '`production` when `NODE_ENV=production`, else `development`',
    doc: '`development`, `test` or `production`; in production `l2_signing` defaults off and `SVC_SECRET_KEY` is required (the Dockerfile sets it)',
  },
  SVC_PUBLIC_URL: { schema: url.optional(), shown: '`http://localhost:$PORT`', doc: "the API's public base address, used in links" },
  SVC_APP_URL: { schema: url.optional(), shown: '`$SVC_PUBLIC_URL/app`', doc: "the principal app's address (`{app_url}` of SPEC)" },
  SVC_DOCS_URL: {
    schema: url.optional(),
    shown: '`$SVC_PUBLIC_URL/docs/errors`',
    doc: "base of every error's `docs_url` (`#<code>` is appended)",
  },
  SVC_DATA_DIR: {
    schema: z.string().min(1).default('./.data'),
    doc: 'embedded state: PGlite (`pgdata/`), Temporal dev server (`temporal.sqlite`, `temporal.log`), blobs (`blobs/`) unless `SVC_BLOB_URL` names a bucket',
  },
  SVC_BLOB_URL: {
    schema: z.string().optional(),
    shown: '(unset: files under `$SVC_DATA_DIR/blobs`)',
    doc: "where PDFs, signature images and Drive files live: `s3://<bucket>[/<prefix>]?endpoint=http://host:9000&region=us-east-1&force_path_style=true` for an S3-compatible bucket (omit `endpoint` for AWS S3; prefix default `blobs`, keys `<prefix>/<ab>/<sha256>`), or `file:///dir`; credentials from `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY` (else the AWS SDK's default chain: profile, container or instance role), never from the URL; uploads are hashed in `$SVC_DATA_DIR/staging` first. A malformed value stops the process",
  },
  DATABASE_URL: {
    schema: z.string().min(1).optional(),
    shown: '(unset: embedded PGlite)',
    doc: 'PostgreSQL connection string; required by `npm run api` and `npm run worker`',
  },
  DATABASE_POOL_MAX: {
    schema: int(1, 10, 100),
    doc: 'PostgreSQL connections per process',
  },
  TEMPORAL_ADDRESS: {
    schema: z.string().min(1).optional(),
    shown: '(unset: `npm start` starts a dev server)',
    doc: 'Temporal frontend `host:port`; required by `npm run api` and `npm run worker`',
  },
  TEMPORAL_NAMESPACE: { schema: z.string().min(1).default('default'), doc: 'Temporal namespace' },
  TEMPORAL_TASK_QUEUE: { schema: z.string().min(1).default('svc'), doc: 'task queue of the worker' },
  TEMPORAL_CLI: {
    schema: z.string().min(1).optional(),
    doc: 'path of a `temporal` binary to use instead of `PATH` or the cached build',
  },
  TEMPORAL_DEV_PORT: {
    schema: port.default(7233),
    doc: 'gRPC port of the dev server `npm start` runs (`0` picks a free one); when it is taken (another dev server, another checkout), `npm start` stops before starting anything, naming it, and never uses a server it did not start',
  },
  TEMPORAL_UI_PORT: {
    schema: port.default(8233),
    doc: 'Web UI port of that dev server (`0` picks a free one); when it is taken, `npm start` stops before starting anything, naming it',
  },
  TEMPORAL_UI_URL: { schema: url.optional(), doc: 'where the UI of your own Temporal server is, printed by `npm start`' },
  SVC_WORKFLOW_BUNDLE: {
    schema: z.string().min(1).optional(),
    shown: '(unset: bundle at start)',
    doc: 'a prebuilt workflow bundle (`bundleWorkflowCode` output) for the worker',
  },
  SVC_JSON_LIMIT_BYTES: {
    schema: int(1024, 1024 * 1024),
    doc: 'largest JSON request body; larger ones get `413 payload_too_large`',
  },
  SVC_TRUST_PROXY: {
    schema: bool,
    doc: 'behind a TLS-terminating proxy: trust `X-Forwarded-For`/`-Proto` (client IPs in the audit trail and the per-address code and request limits; cookies are Secure anyway when `SVC_PUBLIC_URL` or `SVC_APP_URL` is https)',
  },
  SVC_PROXY_HOPS: {
    schema: int(1, 1, 10),
    doc: 'with `SVC_TRUST_PROXY`: how many proxies in front of the API add to `X-Forwarded-For`; the client is the address the outermost of them saw (entries a client wrote before it are ignored)',
  },
  SVC_SECRET_KEY: {
    schema: z.string().min(32, 'must be at least 32 characters').optional(),
    shown: '(unset: generated once in `$SVC_DATA_DIR/secret.key`)',
    doc: 'key of sign links, download links, cookies and queued mail (≥ 32 characters); **required in production**, the same for every API and worker process',
  },
  SVC_SECRET_KEY_PREVIOUS: {
    schema: z
      .string()
      .optional()
      .transform((value) =>
        (value ?? '')
          .split(',')
          .map((key) => key.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().min(32, 'each key must be at least 32 characters'))),
    shown: '(empty)',
    doc: 'keys `SVC_SECRET_KEY` replaced, comma-separated (each ≥ 32 characters): links, cookies and codes made with them still verify and secrets sealed with them still decrypt, while everything new uses `SVC_SECRET_KEY`; after `npm run -s admin -- reencrypt-secrets` only links made before the rotation still need it (docs/operations.md)',
  },
  SVC_SIGNING_P12: {
    schema: z.string().min(1).optional(),
    shown: '(unset: the development PKI made once in `$SVC_DATA_DIR/pki/`: a CA, `ca.pem`, and the seal it issued)',
    doc: 'PKCS#12 file of the certificate that seals PDFs (RSA key, with its chain); **required by `npm run api` and `npm run worker` in production**, the same file for every process (`runtime/seal-cert.ts <file>` writes one issued by a local CA)',
  },
  SVC_SIGNING_P12_PASSPHRASE: { schema: z.string().optional(), shown: '(empty)', doc: 'its passphrase' },
  SVC_TSA_URL: {
    schema: z
      .url()
      .regex(/^https?:\/\//, 'must be an http:// or https:// URL')
      .optional(),
    shown: '(unset: outside production, the development timestamp authority in process)',
    doc: 'RFC 3161 timestamp authority of every seal; **required in production** unless `SVC_ALLOW_UNTIMESTAMPED_SEALS=true`; an authority that does not answer fails the seal (retried within `SVC_APPLY_ATTEMPTS`, then `sign_failed`), never a seal without its time',
  },
  SVC_TSA_USERNAME: { schema: z.string().optional(), doc: 'HTTP basic user name for `SVC_TSA_URL`' },
  SVC_TSA_PASSWORD: { schema: z.string().optional(), doc: 'HTTP basic password for `SVC_TSA_URL`' },
  SVC_TSA_TIMEOUT_MS: {
    schema: int(100, 10_000),
    doc: "one timestamp request's timeout",
  },
  SVC_ALLOW_UNTIMESTAMPED_SEALS: {
    schema: bool,
    doc: "production only: `true` runs without `SVC_TSA_URL`, sealing PAdES B-B with no document timestamp (weaker: the time is the server's claim)",
  },
  SVC_REVOCATION_TIMEOUT_MS: {
    schema: int(100, 10_000),
    doc: 'how long the completion seal waits for an OCSP responder or CRL server of its certificates (what does not answer is left out of the DSS and logged)',
  },
  SVC_PDF_THREADS: {
    schema: int(1, 2, 32),
    doc: 'PDF threads per process for tenants: the safe intake of uploaded PDFs and sealing revision 0, off the event loop (verifies never run here: `SVC_VERIFY_THREADS`)',
  },
  SVC_PDF_TIME_LIMIT_MS: {
    schema: int(100, 10_000),
    doc: "one PDF job's wall-clock limit; past it the PDF is refused (422 `invalid_pdf`) and the thread replaced",
  },
  SVC_PDF_MEMORY_MB: {
    schema: int(128, 512),
    doc: "a PDF thread's heap (at least 128: a thread needs about 100 MB to start); past it the PDF is refused (422 `invalid_pdf`) and the thread replaced",
  },
  SVC_PDF_MAX_PAGES: { schema: int(1, 2000), doc: 'most pages a PDF taken in may have' },
  SVC_VERIFY_LIMIT_BYTES: {
    schema: int(1024, 25 * 1024 * 1024),
    doc: 'largest PDF `POST /v1/verify` takes (413 past it)',
  },
  SVC_VERIFY_TRUST_ANCHORS: {
    schema: z.string().min(1).optional(),
    shown: "(unset: only the service's own seal CA and timestamp CA)",
    doc: "PEM bundle of further trust anchors for `POST /v1/verify` and the app's `/verify` (AATL or EUTL roots, a partner's CA, and the root of `SVC_TSA_URL`'s authority): a signature whose chain ends at none of them, nor at the CA of the service's own seal, is at best `indeterminate`. Read when the API starts; an unreadable file stops it",
  },
  SVC_VERIFY_THREADS: {
    schema: int(1, 1, 8),
    doc: "PDF threads of the verify lane (verifies run there, at a lower CPU priority, never on the tenants' `SVC_PDF_THREADS`)",
  },
  SVC_VERIFY_QUEUE: {
    schema: int(0, 3, 64),
    doc: 'verifies that may wait for a verify thread; past threads + queue, a verify is refused at once (503 `service_unavailable`, Retry-After) before its body is read',
  },
  SVC_VERIFY_PER_ADDRESS: {
    schema: int(1, 2, 64),
    doc: 'verifies one client address may have under way at once; past it 429 `rate_limited` with Retry-After',
  },
  SMTP_URL: {
    schema: z
      .string()
      .regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://')
      .optional(),
    shown: '(unset: the embedded outbox)',
    doc: 'SMTP relay for mail, e.g. `smtps://user:pass@smtp.example.com:465`; **required in production**. Without it mail stays in the outbox with codes and link tokens masked (as with SMTP), `npm start` in development prints each mail in full on its console, and `/dev/mail` lists the outbox (only with `SVC_ENV=development` and a loopback `HOST`, to a request with a loopback Host header and the token `npm start` prints with the link; 404 otherwise)',
  },
  SVC_MAIL_FROM: {
    schema: z.string().min(3).default('Agents API <no-reply@localhost>'),
    doc: "sender of the service's mail",
  },
  SVC_UPLOAD_LIMIT_BYTES: {
    schema: int(1024, 100 * 1024 * 1024),
    doc: 'largest Drive upload (`POST /v1/assets`); larger ones get `413 payload_too_large`',
  },
} satisfies Record<string, Setting>;
