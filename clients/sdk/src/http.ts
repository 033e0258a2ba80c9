import { randomUUID } from 'node:crypto';

export const VERSION = '0.3.0';
/** Names the package (@svc-agents/sdk) in a User-Agent token, which allows neither `@` nor `/`. */
export const USER_AGENT = `svc-agents-sdk/${VERSION}`;

/** An error the API answered (SPEC's `{error: {code, message, docs_url}}`), or a network failure (`code: network_error`, status 0). */
export class SvcError extends Error {
  override name = 'SvcError';

  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly docsUrl?: string,
    readonly details?: Array<{ path: string; message: string }>,
    /** Seconds the API asked to wait (Retry-After), when it did. */
    readonly retryAfter?: number,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

export interface RetryOptions {
  /** Retries after the first attempt (default 3): network failures, 429 and 5xx. */
  retries: number;
  /** First backoff (default 250 ms), doubled each time up to `maxDelayMs` (default 8 s); Retry-After wins when given. */
  initialDelayMs: number;
  maxDelayMs: number;
}

export interface ClientOptions {
  /** The service's base address, e.g. `https://api.example.com` (a trailing `/v1` is fine). */
  baseUrl: string;
  /** `svc_…`; the public transfer calls need none. */
  apiKey?: string;
  retry?: Partial<RetryOptions>;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Sent without the API key (public claim-link endpoints). */
  anonymous?: boolean;
  /** The Idempotency-Key of this logical call; one is made for every POST when not given. */
  idempotencyKey?: string;
  /** A body sent as is with its media type (a file), instead of `body` as JSON. */
  raw?: { bytes: Uint8Array; type: string };
  /** A POST that changes nothing (verify): retried like any call, with no Idempotency-Key. */
  readOnly?: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The service's origin and path prefix without `/v1`. */
export function normalizeBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

export function isRetryable(status: number): boolean {
  return status === 429 || status >= 500;
}

/** The longest Retry-After the SDK waits out; a refusal that asks for longer (a daily cap, a remind's interval) is thrown at once. */
const MAX_RETRY_AFTER_MS = 60_000;

/** How long to wait before retry `attempt` (0-based): Retry-After when the API gave one, else exponential with jitter. */
export function backoff(attempt: number, options: RetryOptions, retryAfterSeconds?: number): number {
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds)) return Math.min(retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS);
  const base = Math.min(options.initialDelayMs * 2 ** attempt, options.maxDelayMs);
  return base / 2 + Math.random() * (base / 2);
}

async function errorOf(response: Response): Promise<SvcError> {
  const text = await response.text();
  let body: { error?: { code?: string; message?: string; docs_url?: string; details?: SvcError['details'] } } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: a proxy's page
  }
  const retryAfter = response.headers.get('retry-after');
  return new SvcError(
    body.error?.code ?? `http_${response.status}`,
    body.error?.message ?? (text.slice(0, 200) || response.statusText),
    response.status,
    body.error?.docs_url,
    body.error?.details,
    retryAfter !== null && retryAfter !== '' ? Number(retryAfter) : undefined,
    response.headers.get('x-request-id') ?? undefined,
  );
}

/** The HTTP core of the SDK: JSON requests with the key, typed errors, retries with one Idempotency-Key per call. */
export class Http {
  readonly baseUrl: string;
  readonly retry: RetryOptions;
  private readonly fetcher: typeof fetch;

  constructor(readonly options: ClientOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.retry = { retries: 3, initialDelayMs: 250, maxDelayMs: 8000, ...options.retry };
    this.fetcher = options.fetch ?? fetch;
  }

  url(path: string, query?: RequestOptions['query']): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.toString();
  }

  headers(options: { anonymous?: boolean; json?: boolean; idempotencyKey?: string } = {}): Record<string, string> {
    return {
      'user-agent': USER_AGENT,
      accept: 'application/json',
      ...this.options.headers,
      ...(options.json ? { 'content-type': 'application/json' } : {}),
      ...(this.options.apiKey && !options.anonymous ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
      ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
    };
  }

  /**
   * Sends a request, retrying network failures, 429 (after Retry-After) and 5xx with backoff. A POST
   * carries one Idempotency-Key for all its attempts, so a retried POST never does its work twice.
   */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.send<T>(method, path, options)).body;
  }

  /** As request, with the success status too (a 202 says the work goes on). */
  async send<T>(method: string, path: string, options: RequestOptions = {}): Promise<{ status: number; body: T }> {
    const idempotencyKey = method === 'POST' && !options.readOnly ? (options.idempotencyKey ?? randomUUID()) : undefined;
    const json = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers = this.headers({ anonymous: options.anonymous, json: !options.raw && json !== undefined, idempotencyKey });
    if (options.raw) headers['content-type'] = options.raw.type;
    return this.withRetries(async () => {
      const response = await this.fetcher(this.url(path, options.query), {
        method,
        headers,
        body: options.raw ? options.raw.bytes : json,
      });
      if (!response.ok) throw await errorOf(response);
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
    });
  }

  /** Runs `attempt` until it succeeds, an error is final, or the retries are spent. */
  async withRetries<T>(attempt: () => Promise<T>, retryable = true): Promise<T> {
    for (let tries = 0; ; tries += 1) {
      try {
        return await attempt();
      } catch (error) {
        const failure = error instanceof SvcError ? error : new SvcError('network_error', (error as Error).message, 0);
        const waitsTooLong = failure.retryAfter !== undefined && failure.retryAfter * 1000 > MAX_RETRY_AFTER_MS;
        const again = retryable && !waitsTooLong && tries < this.retry.retries && (failure.status === 0 || isRetryable(failure.status));
        if (!again) throw failure;
        await sleep(backoff(tries, this.retry, failure.retryAfter));
      }
    }
  }

  /** A response of a GET to a URL the API gave out (a download), checked and retried like any request. */
  async fetchRaw(url: string, init: RequestInit = {}): Promise<Response> {
    const response = await this.fetcher(url, { ...init, headers: { 'user-agent': USER_AGENT, ...(init.headers ?? {}) } });
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  errorOf(response: Response): Promise<SvcError> {
    return errorOf(response);
  }
}
