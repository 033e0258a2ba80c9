// What every group of the SDK's calls stands on: the HTTP client (retries, Idempotency-Keys), GET and
// POST with JSON, and the iteration of a paged list.
import { type ClientOptions, Http, type RequestOptions } from './http';
import type { Page } from './types';

/** The encoding of an id in a path. */
export const enc = encodeURIComponent;

/** The base of SvcClient (client.ts): its HTTP client and the helpers each call is written with. */
export class SvcCalls {
  readonly http: Http;

  constructor(options: ClientOptions) {
    this.http = new Http(options);
  }

  protected get<T>(path: string, query?: RequestOptions['query']): Promise<T> {
    return this.http.request<T>('GET', path, { query });
  }

  protected post<T>(path: string, body?: unknown, options: Omit<RequestOptions, 'body'> = {}): Promise<T> {
    return this.http.request<T>('POST', path, { ...options, body: body ?? {} });
  }

  /** Every item of a list, page after page (`limit` per page), as an async iterator. */
  async *iterate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
    let cursor: string | undefined;
    do {
      const page = await fetchPage(cursor);
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }
}
