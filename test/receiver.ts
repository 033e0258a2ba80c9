import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import forge from 'node-forge';

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  at: number;
}

/** A self-signed certificate for 127.0.0.1 and localhost, and the PEM file a client trusts it by. */
export function selfSignedCertificate(): { key: string; cert: string; caFile: string } {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = `0${Date.now().toString(16)}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  const subject = [{ name: 'commonName', value: 'localhost' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
      ],
    },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const pem = forge.pki.certificateToPem(cert);
  const caFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ca-')), 'receiver.pem');
  fs.writeFileSync(caFile, pem);
  return { key: forge.pki.privateKeyToPem(keys.privateKey), cert: pem, caFile };
}

/**
 * An HTTPS webhook receiver on loopback. `respond` decides each answer's status (default 200);
 * `stop()` closes it (connections are then refused) and `start()` opens it again on the same port.
 */
export class Receiver {
  readonly received: Received[] = [];
  respond: (request: Received) => number = () => 200;
  /** Where a 3xx answer points (another receiver, to prove it is not followed). */
  redirectTo?: string;
  /** Holds each answer this long (to exceed the sender's timeout). */
  delayMs = 0;
  /** TLS connections opened to it, and how many of them resumed an earlier TLS session. */
  connections = 0;
  resumed = 0;
  /** Requests being answered right now, and the most there ever were at once. */
  inFlight = 0;
  maxInFlight = 0;
  private server?: https.Server;
  port = 0;

  constructor(private readonly tls: { key: string; cert: string }) {}

  get url(): string {
    return `https://127.0.0.1:${this.port}/hooks`;
  }

  async start(): Promise<this> {
    const server = https.createServer(this.tls, (request, response) => {
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      response.on('close', () => {
        this.inFlight -= 1;
      });
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const entry = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        const status = this.respond(entry);
        const answer = () => {
          if (response.destroyed) return;
          if (status >= 200 && status < 300) this.received.push(entry);
          const location = status >= 300 && status < 400 && this.redirectTo ? { location: this.redirectTo } : {};
          response.writeHead(status, { 'content-type': 'text/plain', ...location }).end(status >= 300 && status < 400 ? '' : 'ok');
        };
        if (this.delayMs > 0) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    server.on('secureConnection', (socket) => {
      this.connections += 1;
      if (socket.isSessionReused()) this.resumed += 1;
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Closes every open connection (as a receiver's idle timeout would) and stays up: the sender must connect again. */
  dropConnections(): void {
    this.server?.closeAllConnections();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Accepted deliveries of one event id. */
  ofEvent(eventId: string): Received[] {
    return this.received.filter((entry) => entry.headers['x-webhook-id'] === eventId);
  }
}

export type Verify = (secret: string, header: string, rawBody: string, toleranceSeconds?: number, nowSeconds?: number) => boolean;

/** The verifier a receiver would copy from docs/webhooks.md: tests run the documented snippet itself. */
export async function documentedVerifier(): Promise<Verify> {
  const doc = fs.readFileSync(path.resolve(path.dirname(new URL(import.meta.url).pathname), '../docs/webhooks.md'), 'utf8');
  const snippet = /<!-- verify-snippet:start -->\s*```ts\n([\s\S]*?)```\s*<!-- verify-snippet:end -->/.exec(doc)?.[1];
  assert.ok(snippet, 'docs/webhooks.md has the verification snippet');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-verify-')), 'verify.ts');
  fs.writeFileSync(file, snippet);
  return ((await import(file)) as { verifyWebhook: Verify }).verifyWebhook;
}
