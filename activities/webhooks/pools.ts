import https from 'node:https';
import type { Target } from './targets';

/** An endpoint's keep-alive pool is closed after this long without a request to it. */
export const POOL_IDLE_MS = 30_000;
const pools = new Map<string, { agent: https.Agent; usedAt: number }>();
let sweptAt = 0;

/**
 * The keep-alive pool of an endpoint at the address it was checked at, sized from the endpoint's
 * concurrency (that many connections, all kept open between requests) and kept from round to round
 * and run to run, so its connections, and the TLS sessions of any it must open again, carry over.
 * A new address gets a new pool; pools idle for POOL_IDLE_MS are closed.
 */
export function agentFor(target: Target, concurrency: number): https.Agent {
  const now = Date.now();
  if (now - sweptAt > 1000) {
    sweptAt = now;
    for (const [key, entry] of pools) {
      if (now - entry.usedAt > POOL_IDLE_MS) {
        entry.agent.destroy();
        pools.delete(key);
      }
    }
  }
  const key = `${target.url.origin} ${target.address} ${concurrency}`;
  let entry = pools.get(key);
  if (!entry) {
    entry = {
      agent: new https.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency, timeout: POOL_IDLE_MS }),
      usedAt: now,
    };
    pools.set(key, entry);
  }
  entry.usedAt = now;
  return entry.agent;
}
