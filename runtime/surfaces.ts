import type { IncomingMessage } from 'node:http';
import { loopbackHeaders } from '../api/http/mcp-caller';
import type { MountedSurface } from '../api/koa-app';
import { handleMcpRequest } from '../clients/mcp/src/http';
import type { Config } from '../lib/config/config';

/** The REST API as this listener serves it, on the address the request came in on (the MCP tools call it). */
function selfUrl(request: IncomingMessage): string {
  const { localAddress, localPort } = request.socket;
  const host = !localAddress || localAddress === '::' || localAddress === '0.0.0.0' ? '127.0.0.1' : localAddress.replace(/^::ffff:/, '');
  return `http://${host.includes(':') ? `[${host}]` : host}:${localPort}`;
}

/**
 * The surfaces mounted beside the REST API and the app: the MCP server over streamable HTTP at /mcp,
 * for a valid API key or an access token issued for /mcp (its tools' loopback calls carry the
 * per-process mark that lets the REST API take that token, and the caller's address and User-Agent,
 * so they count and are audited as the caller's); its refusals point at the error documentation.
 */
export function serviceSurfaces(config: Pick<Config, 'docsUrl' | 'appUrl'>): MountedSurface[] {
  return [
    {
      path: '/mcp',
      requiresKey: true,
      // Browser-based MCP clients: the preflight, the 401's challenge and the session headers readable.
      cors: {
        methods: ['GET', 'POST', 'DELETE'],
        requestHeaders: ['authorization', 'content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'],
        exposedHeaders: ['WWW-Authenticate', 'Mcp-Session-Id', 'Mcp-Protocol-Version'],
      },
      handle: (request, response, body, caller) =>
        handleMcpRequest(request, response, body, {
          selfUrl,
          docsUrl: config.docsUrl,
          appUrl: config.appUrl,
          selfHeaders: loopbackHeaders(caller),
        }),
    },
  ];
}
