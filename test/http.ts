import assert from 'node:assert/strict';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as is, with no JSON encoding. */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
}

/** A request to the service, answering status, headers and the parsed JSON body. */
export async function call(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | Uint8Array | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** An error answer with this status and SPEC's body carrying this code. */
export function assertErrorCode(reply: Reply, status: number, code: string): void {
  assert.equal(reply.status, status, reply.text);
  assert.equal(reply.body?.error?.code, code, reply.text);
}
