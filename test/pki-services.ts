// The test PKI's HTTP services on loopback: the OCSP responder, the RFC 3161 timestamp authority and
// the repository of CA certificates and CRLs, each answering with what `openssl` writes.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { openssl } from './pki-openssl';

/** One HTTP service of the PKI, on a fixed loopback port that survives stop() and start(). */
export interface PkiService {
  /** Requests received since the PKI started. */
  readonly requests: number;
  /** Closes the port (clients then get ECONNREFUSED) and drops open connections. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

function body(request: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) request.destroy(new Error('request too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

type Handler = (request: http.IncomingMessage) => Promise<{ status: number; type?: string; body?: Buffer }>;

/** A loopback HTTP server on a port of its own; a handler that throws answers 500 with the reason. */
async function loopbackService(handler: Handler): Promise<PkiService & { port: number }> {
  let requests = 0;
  const server = http.createServer((request, response) => {
    requests += 1;
    handler(request).then(
      (answer) => {
        response.writeHead(answer.status, answer.type ? { 'Content-Type': answer.type } : {});
        response.end(answer.body);
      },
      (error: Error) => {
        response.writeHead(500, { 'Content-Type': 'text/plain' });
        response.end(error.message);
      },
    );
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const port = await listen(0);
  return {
    port,
    get requests() {
      return requests;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    start: async () => {
      if (!server.listening) await listen(port);
    },
  };
}

/** Serialises the jobs given to it (openssl ts keeps its serial number in a file it rewrites). */
function queue(): <T>(job: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (job) => {
    const result = tail.then(job);
    tail = result.catch(() => undefined);
    return result;
  };
}

/** The repository's files, as the certificates' AIA and CDP extensions name them. */
export const PUBLISHED = new Set(['ca.cer', 'ca.crl', 'root.cer', 'root.crl']);

/**
 * Starts the services over the PKI built in `dir`, whose leaves the CA in `issuerDir` issued: the
 * files they answer with may be written after they listen.
 */
export async function startPkiServices(dir: string, issuerDir: string) {
  const file = (name: string) => path.join(dir, name);
  /** Runs openssl on the request body in a file of its own and answers the file it writes. */
  const answer = async (der: Buffer, args: (input: string, output: string) => string[]) => {
    const base = file(`work/${randomBytes(8).toString('hex')}`);
    await fs.writeFile(`${base}.in`, der);
    try {
      await openssl(args(`${base}.in`, `${base}.out`), { cwd: dir });
      return await fs.readFile(`${base}.out`);
    } finally {
      await Promise.all([fs.rm(`${base}.in`, { force: true }), fs.rm(`${base}.out`, { force: true })]);
    }
  };

  const responder = ['-index', path.join(issuerDir, 'index.txt'), '-CA', path.join(issuerDir, 'ca.pem')];
  const ocsp = await loopbackService(async (request) => {
    // RFC 6960 appendix A: POST carries the DER request, GET its base64 in the path.
    const der = request.method === 'POST' ? await body(request) : Buffer.from(decodeURIComponent((request.url ?? '/').slice(1)), 'base64');
    if (der.length === 0) return { status: 400 };
    // The index is read per request, so a revoke() is answered at once.
    const signer = ['-rsigner', file('ocsp.pem'), '-rkey', file('ocsp.key'), '-ndays', '1'];
    const reply = await answer(der, (input, output) => ['ocsp', ...responder, ...signer, '-reqin', input, '-respout', output]);
    return { status: 200, type: 'application/ocsp-response', body: reply };
  });
  const stamp = queue();
  const tsa = await loopbackService(async (request) => {
    if (request.method !== 'POST') return { status: 405 };
    if (request.headers['content-type'] !== 'application/timestamp-query') return { status: 415 };
    const query = await body(request);
    const signer = ['-inkey', file('tsa.key'), '-signer', file('tsa.pem'), '-chain', file('chain.pem')];
    const reply = await stamp(() =>
      answer(query, (input, output) => ['ts', '-reply', '-config', file('openssl.cnf'), ...signer, '-queryfile', input, '-out', output]),
    );
    return { status: 200, type: 'application/timestamp-reply', body: reply };
  });
  const repository = await loopbackService(async (request) => {
    const name = (request.url ?? '').slice(1);
    if (request.method !== 'GET' || !PUBLISHED.has(name)) return { status: 404 };
    const type = name.endsWith('.crl') ? 'application/pkix-crl' : 'application/pkix-cert';
    return { status: 200, type, body: await fs.readFile(file(`public/${name}`)) };
  });
  return { ocsp, tsa, repository };
}
