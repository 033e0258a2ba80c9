import https from 'node:https';
import net from 'node:net';
import { pinnedLookup, secureContextFor } from '../webhooks/delivery';
import { type Resolve, resolveTarget } from '../webhooks/targets';
import { oauthError } from './errors';

/** A Client ID Metadata Document is small: a larger answer is refused before it is read whole. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 5000;

export interface FetchRules {
  allowedHosts: readonly string[];
  caFile?: string;
  timeoutMs?: number;
}

/**
 * GETs a client's metadata document under the webhook URL rules: https only, the host resolved and
 * every address public (unless allow-listed for development), the socket pinned to the checked
 * address, no redirects, at most MAX_DOCUMENT_BYTES within the timeout; answers its text. Any failure is
 * `invalid_client` naming what went wrong (for the server's log: DocumentFetcher shows one answer for all).
 */
export async function fetchClientDocument(url: string, rules: FetchRules, resolve?: Resolve): Promise<string> {
  let target: Awaited<ReturnType<typeof resolveTarget>>;
  try {
    target = await resolveTarget(url, rules.allowedHosts, resolve);
  } catch (error) {
    throw oauthError('invalid_client', `The client_id URL cannot be fetched: ${(error as Error).message}`);
  }
  const timeoutMs = rules.timeoutMs ?? FETCH_TIMEOUT_MS;
  const pinned = pinnedLookup(target);
  const secureContext = secureContextFor(rules.caFile);
  const text = await new Promise<string>((resolve, reject) => {
    const fail = (message: string) => reject(oauthError('invalid_client', `The client's metadata document ${message}.`));
    const request = https.request(
      target.url,
      {
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'AgentsAPI-OAuth/1' },
        lookup: pinned,
        ...(net.isIP(target.url.hostname.replace(/^\[|\]$/g, '')) ? {} : { servername: target.url.hostname }),
        agent: false,
        ...(secureContext ? { secureContext } : {}),
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          return fail(`answered ${response.statusCode}`);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_DOCUMENT_BYTES) {
            request.destroy();
            fail(`is larger than ${MAX_DOCUMENT_BYTES} bytes`);
          } else chunks.push(chunk);
        });
        response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        response.on('error', () => fail('could not be read'));
      },
    );
    const timer = setTimeout(() => request.destroy(new Error('timeout')), timeoutMs);
    request.on('close', () => clearTimeout(timer));
    request.on('error', (error) => fail(error.message === 'timeout' ? `did not arrive within ${timeoutMs} ms` : 'could not be fetched'));
    request.end();
  });
  return text;
}
