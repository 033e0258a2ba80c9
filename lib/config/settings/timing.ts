import net from 'node:net';
import { z } from 'zod';
import { int, type Setting } from './kinds';

/** Name servers, comma-separated: each an IP address with an optional port (`10.0.0.2`, `[::1]:5353`, `127.0.0.1:53`). */
const nameServers = z.string().transform((raw, ctx) => {
  const servers = raw
    .split(',')
    .map((server) => server.trim())
    .filter(Boolean);
  for (const server of servers) {
    const host = server.replace(/^\[([^\]]+)\](:\d+)?$/, '$1').replace(/^([^:]+):\d+$/, '$1');
    if (!net.isIP(host)) ctx.addIssue({ code: 'custom', message: `${server} is not an IP address with an optional port` });
  }
  return servers;
});

/** Waits, lifetimes, limits and retries (durations in milliseconds, so tests run them short). */
export const TIMING_SETTINGS = {
  SVC_TRANSFER_RECHECK_MS: {
    schema: int(100, 60 * 60_000),
    doc: "how often an offered package's unlock wait looks again without a wake-up (a safety net)",
  },
  SVC_IDEMPOTENCY_WAIT_MS: {
    schema: int(0, 30_000),
    doc: "how long a retry with an Idempotency-Key waits for the first request's answer (then 409 `idempotency_in_progress`)",
  },
  SVC_IDEMPOTENCY_STALE_MS: {
    schema: int(1000, 5 * 60_000),
    doc: 'a request with an Idempotency-Key still running after this long is taken as dead: a retry runs it',
  },
  SVC_DOWNLOAD_URL_TTL_MS: {
    schema: int(1000, 5 * 60_000),
    doc: 'lifetime of a signed download URL',
  },
  SVC_COMPLETION_LINK_TTL_MS: {
    schema: int(1000, 7 * 24 * 3_600_000),
    doc: 'lifetime of the link to the completed PDF in the completion mail',
  },
  SVC_COMPLETED_COPY_TTL_MS: {
    schema: int(1000, 30 * 24 * 3_600_000),
    doc: 'how long after completion a signer can still download the completed copy from their sign link',
  },
  SVC_APPLY_WAIT_MS: {
    schema: int(0, 20_000),
    doc: 'how long a sign request waits for its signature to be applied before answering `202` (the page then polls)',
  },
  SVC_KEY_USAGE_FLUSH_MS: {
    schema: int(10, 10_000),
    doc: "how often the API keys' `last_used_at` marks are written (one batched statement; nothing is written on a request)",
  },
  SVC_KEY_CACHE_TTL_MS: {
    schema: int(0, 5_000, 60_000),
    doc: "how long an API process answers from an API key it looked up (with its principal and tenant) without reading it again; a revocation, plan or scope change reaches every process at once through PostgreSQL's notices, this bounds it should a notice be lost; `0` reads the key on every request",
  },
  SVC_OAUTH_ACCESS_TOKEN_TTL_MS: {
    schema: int(60_000, 600_000, 3_600_000),
    doc: 'lifetime of an OAuth access token (for /mcp or the REST API; a connected app refreshes it with its rotated refresh token)',
  },
  SVC_OAUTH_FETCH_CONCURRENCY: {
    schema: int(1, 4, 64),
    doc: "client metadata documents (OAuth `client_id` URLs) one process fetches at once, only for a signed-in principal's authorization request; up to 32 more wait, past that the request is refused (503), and a URL that failed is not tried again for a minute",
  },
  SVC_OAUTH_DNS_SERVERS: {
    schema: nameServers.optional(),
    shown: '(unset: the system’s, from `/etc/resolv.conf`)',
    doc: 'comma-separated name servers (`10.0.0.2`, `[::1]:5353`) for the hosts of client metadata documents, asked with c-ares (3 s, one try), never through `getaddrinfo` and its four shared threads; `/etc/hosts` is not read for them',
  },
  SVC_OAUTH_UNUSED_CLIENT_TTL_MS: {
    schema: int(60_000, 7 * 24 * 3600_000),
    doc: 'a client metadata document no connected app uses is removed from the database this long after its last fetch (default 7 days)',
  },
  SVC_ONE_TIME_CODE_TTL_MS: {
    schema: int(1000, 10 * 60_000),
    doc: 'lifetime of an e-mailed code (10 digits for sign-in and mandate grants, 6 on sign links; 5 tries) and of the one-use link beside it',
  },
  SVC_SIGN_SESSION_TTL_MS: {
    schema: int(1000, 60 * 60_000),
    doc: 'how long a signer stays verified on their sign page',
  },
  SVC_SIGN_REQUEST_TTL_MS: {
    schema: int(1000, 24 * 60 * 60_000),
    doc: 'lifetime of an L1 sign request (SPEC: 24 hours)',
  },
  SVC_OFFER_TTL_MS: {
    schema: int(1000, 7 * 24 * 60 * 60_000),
    doc: 'lifetime of an offer (7 days): its `expires_at`',
  },
  SVC_REMINDER_MIN_MS: {
    schema: int(1000, 60 * 60_000),
    doc: "the shortest `first_after` and `every` a document's `reminders` may ask for (shorter: `400 invalid_request`)",
  },
  SVC_EXPIRY_MIN_MS: {
    schema: int(1000, 60 * 60_000),
    doc: "how far ahead a document's `expires_at` must at least be when it is created (nearer: `400 invalid_request`)",
  },
  SVC_DOCUMENT_WAIT_MAX_MS: {
    schema: int(1000, 365 * 24 * 60 * 60_000),
    doc: "the longest a document's `expires_at` may lie ahead, and the longest reminder `first_after` or `every`",
  },
  SVC_REMIND_INTERVAL_MS: {
    schema: int(0, 60 * 60_000),
    doc: 'how long after a signer was reminded (on schedule or by `POST /v1/documents/:id/remind`) another remind of them answers `429 rate_limited` with `Retry-After`',
  },
  SVC_APP_SESSION_TTL_MS: {
    schema: int(1000, 12 * 60 * 60_000),
    doc: "lifetime of a principal's app session",
  },
  SVC_CODE_WRONG_LIMIT: {
    schema: int(1, 10),
    doc: "wrong e-mailed codes from one client (address, IPv6 /64) for one sign-in, sign link or mandate grant within `SVC_CODE_LOCK_MS` after which the owner is e-mailed; from the 4th that client waits 1 s, 2 s … up to 15 min between tries (never anyone else: the owner's fresh code always works)",
  },
  SVC_CODE_LOCK_MS: {
    schema: int(1000, 24 * 60 * 60_000),
    doc: "the window a client's wrong codes are counted in",
  },
  SVC_CODE_IP_LIMIT: {
    schema: int(1, 30),
    doc: 'code requests and checks per client address within `SVC_CODE_IP_WINDOW_MS`; more get `429 rate_limited`',
  },
  SVC_CODE_IP_WINDOW_MS: {
    schema: int(1000, 10 * 60_000),
    doc: 'the window of `SVC_CODE_IP_LIMIT`',
  },
  SVC_CODE_SUBJECT_LIMIT: {
    schema: int(1, 10, 1000),
    doc: "wrong sign-in codes for one e-mail address, or wrong mandate-grant codes of one principal, within `SVC_CODE_SUBJECT_WINDOW_MS`, from all addresses together; past it such codes are not checked (`429` with `Retry-After`) and the one-use link in the code's e-mail still works. With 10-digit codes the default bounds a month's guessing below one in a million (docs/security.md)",
  },
  SVC_CODE_SUBJECT_WINDOW_MS: {
    schema: int(1000, 3600_000, 31 * 24 * 3600_000),
    doc: 'the window of `SVC_CODE_SUBJECT_LIMIT`',
  },
  SVC_RATE_LIMIT_PER_KEY: {
    schema: int(0, 600),
    doc: 'requests per window with one API key (every request with a valid key, `/mcp` included); more get `429 rate_limited`; `0` turns it off',
  },
  SVC_RATE_LIMIT_PER_IP: {
    schema: int(0, 300),
    doc: 'requests per window from one client address without a valid key (IPv6: per /64); `0` turns it off',
  },
  SVC_RATE_LIMIT_WINDOW_MS: {
    schema: int(1000, 60_000),
    doc: "the window of those two (fixed, from a counter's first request)",
  },
  SVC_RATE_LIMIT_SYNC_MS: {
    schema: int(50, 1_000, 10_000),
    doc: "how often an API process writes the requests it counted in memory to the shared counters and reads the other processes' counts: across processes a limit holds to within what they admit in one such interval (the last tenth of a limit is counted on the shared row, request by request)",
  },
  SVC_HEALTH_LIMIT_PER_IP: {
    schema: int(0, 600),
    doc: '`GET /v1/health` per client address per minute, counted in each API process (`0`: off); more get `429 rate_limited` with `Retry-After`',
  },
  SVC_ACTIVITY_TIMEOUT_MS: {
    schema: int(1000, 2 * 60_000),
    doc: "start-to-close timeout of the workflows' activities",
  },
  SVC_ACTIVITY_HEARTBEAT_MS: {
    schema: int(500, 30_000),
    doc: 'heartbeat timeout of long activities (an apply on a killed worker is retried after it)',
  },
  SVC_RETRY_INITIAL_MS: {
    schema: int(10, 1000),
    doc: 'activity retry backoff: the first wait (doubling up to `SVC_RETRY_MAX_MS`)',
  },
  SVC_RETRY_MAX_MS: {
    schema: int(10, 60_000),
    doc: 'activity retry backoff: the longest wait; also how often an offer kept open past its expiry, or an L1 confirmation whose apply is in flight, is looked at again without a wake-up',
  },
  SVC_APPLY_ATTEMPTS: {
    schema: int(1, 5, 100),
    doc: 'attempts of one apply (stamp, seal, certificate) before it ends rejected with `502 sign_failed`',
  },
  SVC_ACTIVITY_ATTEMPTS: {
    schema: int(1, 10, 1000),
    doc: 'attempts of every other workflow activity',
  },
  SVC_MAIL_ATTEMPTS: {
    schema: int(1, 8, 100),
    doc: 'attempts to deliver a queued mail (invitation, notice, confirm link) before it is recorded as failed; a recipient the relay refuses fails at once',
  },
  SVC_TEMPORAL_CALL_TIMEOUT_MS: {
    schema: int(100, 10_000),
    doc: 'how long a call to Temporal waits: a request handing work to a workflow answers `503 service_unavailable` after it; a workflow start not made by then is left to the sweep',
  },
  SVC_WEBHOOK_RETRY_INITIAL_MS: {
    schema: int(10, 10_000),
    doc: 'webhook retry: the first wait (doubling up to `SVC_WEBHOOK_RETRY_MAX_MS`)',
  },
  SVC_WEBHOOK_RETRY_MAX_MS: {
    schema: int(10, 60 * 60_000),
    doc: 'webhook retry: the longest wait',
  },
  SVC_WEBHOOK_GIVE_UP_MS: {
    schema: int(100, 24 * 60 * 60_000),
    doc: 'a delivery stops being retried this long after its first attempt',
  },
  SVC_WEBHOOK_TIMEOUT_MS: {
    schema: int(100, 10_000),
    doc: "one delivery attempt's timeout",
  },
  SVC_WEBHOOK_SECRET_OVERLAP_MS: {
    schema: int(0, 24 * 60 * 60_000),
    doc: 'default overlap of the old secret after a rotation',
  },
  SVC_OUTBOX_POLL_MS: {
    schema: int(10, 60_000),
    doc: 'how often the outbox relay looks for new events when idle and no notice of a commit woke it (a notice lost costs this much)',
  },
  SVC_WEBHOOK_ALLOWED_HOSTS: {
    schema: z.string().optional(),
    shown: '(empty)',
    doc: 'development/tests only: hosts (as written in URLs) that may resolve to loopback or private addresses',
  },
  SVC_WEBHOOK_CA_FILE: {
    schema: z.string().min(1).optional(),
    doc: 'development/tests only: a PEM certificate trusted for deliveries besides the public roots',
  },
  SVC_WEBHOOK_CONCURRENCY: {
    schema: int(1, 16, 256),
    doc: 'first webhook attempts in flight at once to one endpoint (over that many keep-alive connections)',
  },
  SVC_BULK_CONCURRENCY: {
    schema: int(1, 8, 64),
    doc: 'documents of one bulk send (POST /v1/documents/bulk) made and sent at once',
  },
  SVC_BULK_TENANT_RUNNING: {
    schema: int(1, 2, 100),
    doc: 'bulk sends one tenant may have running at once (so at most this × `SVC_BULK_CONCURRENCY` of its items in the making); one more is refused 429 `rate_limited` with `Retry-After`',
  },
  SVC_BULK_WORKER_SLOTS: {
    schema: int(1, 4, 256),
    doc: 'bulk items and bulk-sent invitation mails one worker process runs at once, on the task queue `<TEMPORAL_TASK_QUEUE>-bulk` beside the interactive queue (whose slots they never take)',
  },
} satisfies Record<string, Setting>;
