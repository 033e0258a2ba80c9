import net from 'node:net';

/** One request of the fuzzer, as it goes on the wire. */
export interface FuzzRequest {
  /** The route it aims at (`POST /v1/documents/:id/send`), for grouping failures. */
  group: string;
  method: string;
  /** The request target exactly as sent (already encoded, or deliberately not). */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /**
   * Sent over a plain socket, byte for byte: for what fetch refuses or normalizes (dot segments,
   * raw bytes in the target, header values that are not Latin-1, a body on GET, odd methods) and for
   * a Content-Length that lies (`contentLength`), chunked framing.
   */
  raw?: { contentLength?: string };
  /** The framing promises more than the body: a client that gave up, which the server may answer or just close. */
  cutShort?: boolean;
}

export interface FuzzOutcome {
  status?: number;
  text: string;
  /** `timeout`, `reset`, `no response` … when no status came back. */
  error?: string;
  /** Sent again on a fresh connection after a reset on a pooled one. */
  retried?: boolean;
}

const FETCH_REFUSES_METHOD = new Set(['CONNECT', 'TRACE', 'TRACK']);
// undici manages these itself and refuses them as request headers.
const FETCH_REFUSES_HEADER = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'content-length', 'host']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Whether fetch would send this request unchanged; else it goes over a raw socket. */
export function fetchable(request: FuzzRequest): boolean {
  // fetch upper-cases the standard methods: `get` must go as written.
  if (
    request.raw ||
    FETCH_REFUSES_METHOD.has(request.method.toUpperCase()) ||
    !TOKEN.test(request.method) ||
    request.method !== request.method.toUpperCase()
  )
    return false;
  if (request.body && (request.method === 'GET' || request.method === 'HEAD')) return false;
  // `//host/…` would be read as another host.
  if (request.path.startsWith('//')) return false;
  // The URL parser would resolve dot segments, re-encode or drop characters: the route would not get what we meant.
  if (!/^\/[\x21-\x7e]*$/.test(request.path) || /(^|\/)(\.|%2e){1,2}(\/|\?|#|$)/i.test(request.path) || /[\\#]/.test(request.path))
    return false;
  return Object.entries(request.headers).every(
    ([name, value]) =>
      TOKEN.test(name) &&
      !FETCH_REFUSES_HEADER.has(name.toLowerCase()) &&
      /^[\x20-\x7e\x80-\xff\t]*$/.test(value) &&
      value === value.trim(),
  );
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = Number.parseInt(body.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** The first response on a raw connection: status and body text. */
function parseRaw(bytes: Buffer): FuzzOutcome | undefined {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(bytes.subarray(0, 16).toString('latin1'));
  if (!match) return undefined;
  const end = bytes.indexOf('\r\n\r\n');
  const head = bytes.subarray(0, end < 0 ? bytes.length : end).toString('latin1');
  let body = end < 0 ? Buffer.alloc(0) : bytes.subarray(end + 4);
  if (/^transfer-encoding:\s*chunked/im.test(head)) body = dechunk(body);
  else {
    const length = /^content-length:\s*(\d+)/im.exec(head);
    if (length) body = body.subarray(0, Number(length[1]));
  }
  return { status: Number(match[1]), text: body.toString('utf8') };
}

function sendRaw(base: URL, request: FuzzRequest, timeoutMs: number): Promise<FuzzOutcome> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(base.port), base.hostname);
    const received: Buffer[] = [];
    let done = false;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseRaw(Buffer.concat(received));
      // A response that arrived before the connection broke still counts as the answer.
      resolve(parsed ?? { text: Buffer.concat(received).toString('latin1').slice(0, 300), error: error ?? 'no response' });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(error.code === 'ECONNRESET' || error.code === 'EPIPE' ? 'reset' : error.message),
    );
    socket.on('connect', () => {
      const body = request.body ?? Buffer.alloc(0);
      const headers = { host: base.host, connection: 'close', ...request.headers };
      const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
      const length = request.raw?.contentLength ?? (body.length > 0 || request.method !== 'GET' ? String(body.length) : undefined);
      const framed = Object.keys(request.headers).some((name) => /^(content-length|transfer-encoding)$/i.test(name));
      if (length !== undefined && !framed) lines.push(`content-length: ${length}`);
      socket.write(
        Buffer.concat([Buffer.from(`${request.method} ${request.path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`, 'utf8'), body]),
      );
      // A Content-Length that promises more than is sent: say there is no more, as a client that gave up would.
      if (request.cutShort) socket.end();
    });
  });
}

async function sendFetch(base: URL, request: FuzzRequest, timeoutMs: number): Promise<FuzzOutcome> {
  try {
    const response = await fetch(new URL(request.path, base), {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if ((error as Error).name === 'TimeoutError') return { text: '', error: 'timeout' };
    const reset = cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET';
    return {
      text: cause ? `${cause.code}: ${cause.message}` : '',
      error: reset ? 'reset' : `${(error as Error).message}${cause ? `: ${cause.code ?? cause.message}` : ''}`,
    };
  }
}

export async function send(baseUrl: string, request: FuzzRequest, timeoutMs: number): Promise<FuzzOutcome> {
  const base = new URL(baseUrl);
  let outcome = await (fetchable(request) ? sendFetch(base, request, timeoutMs) : sendRaw(base, request, timeoutMs));
  // A pooled keep-alive connection the server closed as it went idle resets the next request sent on it (a race
  // of every keep-alive client: nodejs/undici#3141). Once more on a fresh connection; a second reset is the answer.
  if (outcome.error === 'reset' && fetchable(request)) outcome = { ...(await sendRaw(base, request, timeoutMs)), retried: true };
  // A HEAD answer has no body to show its code: the same request as GET tells whether the 501 is not_implemented.
  if (outcome.status === 501 && request.method.toUpperCase() === 'HEAD') {
    const get = await send(baseUrl, { ...request, method: 'GET', body: undefined, raw: undefined }, timeoutMs);
    return get.status === 501 ? { status: 501, text: get.text } : outcome;
  }
  return outcome;
}

/** Sends every request, `concurrency` at a time, and answers each outcome beside its request. */
export async function sendAll(
  baseUrl: string,
  requests: FuzzRequest[],
  options: { concurrency: number; timeoutMs: number },
): Promise<Array<{ request: FuzzRequest; outcome: FuzzOutcome }>> {
  const results: Array<{ request: FuzzRequest; outcome: FuzzOutcome }> = new Array(requests.length);
  let next = 0;
  const lane = async () => {
    while (next < requests.length) {
      const index = next++;
      results[index] = { request: requests[index], outcome: await send(baseUrl, requests[index], options.timeoutMs) };
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  return results;
}

/** The one 5xx the service may answer by design: a route of the contract whose issue has not landed. */
export function isNotImplemented(outcome: FuzzOutcome): boolean {
  if (outcome.status !== 501) return false;
  try {
    return JSON.parse(outcome.text)?.error?.code === 'not_implemented';
  } catch {
    return false;
  }
}

export function isFailure(request: FuzzRequest, outcome: FuzzOutcome): boolean {
  // A request whose body never fully came may be closed unanswered: there is no request to answer.
  if (request.cutShort && (outcome.error === 'no response' || outcome.error === 'reset')) return false;
  return outcome.error !== undefined || (outcome.status !== undefined && outcome.status >= 500 && !isNotImplemented(outcome));
}

const NOTABLE = /^(authorization|cookie|content-type|content-length|origin|host|transfer-encoding)$/i;

function shown(value: string | Buffer | undefined, max = 300): string {
  if (value === undefined) return '';
  const text = Buffer.isBuffer(value) ? value.subarray(0, max * 2).toString('utf8') : value;
  // JSON escapes make NUL, lone surrogates and control characters visible.
  return JSON.stringify(text.slice(0, max)).slice(1, -1) + (text.length > max ? '…' : '');
}

/** Failures grouped by route and outcome, one example each (at most `max` groups), to reproduce them. */
export function describeFailures(
  failures: Array<{ request: FuzzRequest; outcome: FuzzOutcome }>,
  max = Number(process.env.FUZZ_GROUPS ?? 20),
): string {
  const groups = new Map<string, Array<{ request: FuzzRequest; outcome: FuzzOutcome }>>();
  for (const failure of failures) {
    const key = `${failure.request.group} → ${failure.outcome.status ?? failure.outcome.error}`;
    groups.set(key, [...(groups.get(key) ?? []), failure]);
  }
  const lines = [...groups.entries()].slice(0, max).map(([key, members]) => {
    const { request, outcome } = members[0];
    const headers = Object.entries(request.headers)
      .filter(([name]) => NOTABLE.test(name))
      .map(([name, value]) => `${name}: ${shown(value, 120)}`);
    if (request.raw?.contentLength !== undefined) headers.push(`content-length (lying): ${request.raw.contentLength}`);
    return [
      `● ${key} (${members.length}×)`,
      `  ${request.method} ${shown(request.path)}${fetchable(request) ? '' : ' [raw socket]'}`,
      ...(headers.length ? [`  headers: ${headers.join(' | ')}`] : []),
      ...(request.body?.length ? [`  body (${request.body.length} bytes): ${shown(request.body)}`] : []),
      `  → ${outcome.status ?? outcome.error}: ${shown(outcome.text)}`,
    ].join('\n');
  });
  if (groups.size > max) lines.push(`… and ${groups.size - max} more groups`);
  return lines.join('\n');
}
