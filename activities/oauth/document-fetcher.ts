import { Resolver } from 'node:dns/promises';
import type { Resolve } from '../webhooks/targets';
import { oauthError } from './errors';
import { type FetchRules, fetchClientDocument } from './fetch-document';

/** The one answer to any network failure: which one it was stays in the server's log (no port-scan oracle). */
export const UNREACHABLE = "The client's metadata document could not be fetched from its URL.";

export interface FetcherOptions {
  rules: FetchRules;
  /** Name servers (`host` or `host:port`) for the documents' hosts; unset: the system's (resolv.conf). */
  dnsServers?: readonly string[];
  /** Documents fetched at once, by the whole process; more wait in line, and past `maxWaiting` are refused. */
  concurrency: number;
  maxWaiting?: number;
  /** How long a failed URL is answered from memory before it is tried again. */
  negativeMs?: number;
  /** How long one name lookup may take. */
  dnsTimeoutMs?: number;
  /** Where the reason a fetch failed is written (never shown to the requester). */
  onFailure?: (url: string, reason: string) => void;
}

const MAX_REMEMBERED = 1000;

/**
 * Looks a host up with c-ares (`dns.Resolver`), which waits on a socket, not on one of libuv's four
 * threads as `getaddrinfo` does: a name server that never answers holds no thread that file reads,
 * WebCrypto or zlib need. Bounded by `timeoutMs`, one try; `localhost` is loopback without asking.
 */
export function aresLookup(servers: readonly string[] | undefined, timeoutMs: number): Resolve {
  return async (host) => {
    if (host.toLowerCase() === 'localhost')
      return [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
    const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    if (servers?.length) resolver.setServers([...servers]);
    const timer = setTimeout(() => resolver.cancel(), timeoutMs + 100);
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
      const addresses = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (addresses.length === 0) throw new Error(`${host} does not resolve`);
      return addresses;
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * Fetches Client ID Metadata Documents for the authorization endpoint, after sign-in only: at most
 * `concurrency` at once for the whole process, one fetch per URL however many ask for it at the same
 * time, a failed URL answered from memory for `negativeMs`, and every network failure (name, address,
 * connection, status, size, time) answered with the same words.
 */
export class DocumentFetcher {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly failed = new Map<string, number>();
  private readonly lookup: Resolve;

  private readonly lookups = new Map<string, Promise<Array<{ address: string; family: number }>>>();

  constructor(private readonly options: FetcherOptions) {
    const resolve = aresLookup(options.dnsServers, options.dnsTimeoutMs ?? 3000);
    // One lookup per host at a time; a host that did not resolve is not asked again for negativeMs.
    this.lookup = (host, lookupOptions) => {
      const key = `dns:${host.toLowerCase()}`;
      if ((this.failed.get(key) ?? 0) > Date.now()) return Promise.reject(new Error(`${host} did not resolve a moment ago`));
      let running = this.lookups.get(key);
      if (!running) {
        running = resolve(host, lookupOptions)
          .catch((error) => {
            this.remember(key);
            throw error;
          })
          .finally(() => this.lookups.delete(key));
        this.lookups.set(key, running);
      }
      return running;
    };
  }

  /** Fetches in progress or waiting (for tests and metrics). */
  get pending(): number {
    return this.active + this.waiting.length;
  }

  /** The document at `url`, parsed; `invalid_client` with UNREACHABLE for any network failure. */
  async fetch(url: string, now = Date.now()): Promise<unknown> {
    const text = await this.text(url, now);
    try {
      return JSON.parse(text);
    } catch {
      throw oauthError('invalid_client', "The client's metadata document is not JSON.");
    }
  }

  private text(url: string, now: number): Promise<string> {
    const until = this.failed.get(url);
    if (until !== undefined) {
      if (until > now) return Promise.reject(oauthError('invalid_client', UNREACHABLE));
      this.failed.delete(url);
    }
    let running = this.inFlight.get(url);
    if (!running) {
      running = this.run(url).finally(() => this.inFlight.delete(url));
      this.inFlight.set(url, running);
    }
    return running;
  }

  private async run(url: string): Promise<string> {
    if (this.active >= this.options.concurrency) {
      if (this.waiting.length >= (this.options.maxWaiting ?? 32))
        throw oauthError('temporarily_unavailable', 'Too many client metadata documents are being fetched; try again in a minute.', 503);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.active += 1;
    try {
      return await fetchClientDocument(url, this.options.rules, this.lookup);
    } catch (error) {
      const reason = (error as Error).message;
      this.remember(url);
      this.options.onFailure?.(url, reason);
      throw oauthError('invalid_client', UNREACHABLE);
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  private remember(url: string): void {
    if (this.failed.size >= MAX_REMEMBERED) this.failed.delete(this.failed.keys().next().value as string);
    this.failed.set(url, Date.now() + (this.options.negativeMs ?? 60_000));
  }
}
