import type { Context, Next } from 'koa';
import { constantTimeEqual } from '../../lib/ids';
import { LOOPBACK_HEADER, LOOPBACK_SECRET } from './auth';

/** Who called /mcp, as this service saw that request: `ctx.ip` (under SVC_TRUST_PROXY) and its User-Agent. */
export interface McpCaller {
  ip: string;
  userAgent: string;
}

/** The headers that carry the MCP caller to its tools' loopback calls; read only beside LOOPBACK_HEADER's secret. */
export const CALLER_ADDRESS_HEADER = 'x-svc-mcp-caller-address';
export const CALLER_AGENT_HEADER = 'x-svc-mcp-caller-agent';

/** Whether the request is a loopback call of this process's MCP tools: it carries LOOPBACK_SECRET (compared in constant time). */
export function fromMcpLoopback(ctx: Context): boolean {
  const loopback = ctx.get(LOOPBACK_HEADER);
  return loopback !== '' && constantTimeEqual(loopback, LOOPBACK_SECRET);
}

/** What the MCP tools send on their loopback calls for this caller: the process's mark and who the caller is. */
export function loopbackHeaders(caller: McpCaller): Record<string, string> {
  return { [LOOPBACK_HEADER]: LOOPBACK_SECRET, [CALLER_ADDRESS_HEADER]: caller.ip, [CALLER_AGENT_HEADER]: caller.userAgent };
}

/**
 * A loopback call of the MCP tools is its caller's request: its client address becomes the one the
 * /mcp request came from and its User-Agent that request's, so every per-address count (request and
 * code limits, the verifier's share) and every audit line reads the caller, not this process. Only a
 * request with the process's secret is read so; the same headers from anyone else change nothing.
 */
export function mcpLoopbackCaller() {
  // Not async: the request goes on in the same frame (one promise fewer on every request).
  return (ctx: Context, next: Next) => {
    if (fromMcpLoopback(ctx)) {
      const ip = ctx.get(CALLER_ADDRESS_HEADER);
      if (ip) ctx.request.ip = ip;
      const userAgent = ctx.get(CALLER_AGENT_HEADER);
      // The SDK's own User-Agent is this process's, never the caller's: a caller that sent none is recorded with none.
      if (userAgent) ctx.req.headers['user-agent'] = userAgent;
      else delete ctx.req.headers['user-agent'];
    }
    return next();
  };
}
