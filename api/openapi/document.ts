import { z } from 'zod';
import { AuditLineSchema } from '../../activities/audit/payloads';
import { EVENT_DATA, EVENT_NAMES, type EventName } from '../../activities/events/payloads';
import { ERROR_CATALOGUE, type ErrorCode } from '../../lib/errors';
import type { StreamSpec } from '../http/body';
import { exemptFromRateLimits } from '../http/rate-limit';
import type { RegisteredRoute } from '../http/route';
import { declaredErrors } from '../http/route-errors';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  return out;
}

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'docs_url'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
        message: { type: 'string' },
        docs_url: { type: 'string', format: 'uri' },
        details: {
          type: 'array',
          items: {
            type: 'object',
            required: ['path', 'message'],
            properties: { path: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
};

/** The general request limits' headers (api/http/rate-limit.ts), on every answer but health's, and Retry-After. */
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed in the current window: per API key, or per client address without a valid key.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the current window ends, in Unix seconds.', schema: { type: 'integer' } },
  'Retry-After': { description: 'On a 429 or a 503: seconds to wait before trying again.', schema: { type: 'integer' } },
};

const COUNTED = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

/**
 * The headers an answer with this status may carry: the counters on every answer of a route the
 * general limits count (while they are on), Retry-After on a 429 and a 503. What is sent is checked
 * against this in api/openapi/headers.test.ts.
 */
export function declaredHeaders(counted: boolean, status: number): string[] {
  return [...(counted ? COUNTED : []), ...(status === 429 || status === 503 ? ['Retry-After'] : [])];
}

function headerRefs(names: string[]) {
  return names.length ? { headers: Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }])) } : {};
}

function errorResponse(codes: ErrorCode[], status: number, counted: boolean) {
  return {
    description: codes.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].description}`).join('\n\n'),
    ...headerRefs(declaredHeaders(counted, status)),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

function parameters(route: RegisteredRoute) {
  const out: JsonSchema[] = [];
  const place = (schema: z.ZodType | undefined, where: 'path' | 'query') => {
    if (!schema) return;
    const converted = jsonSchema(schema, 'input');
    const properties = (converted.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((converted.required ?? []) as string[]);
    for (const [name, property] of Object.entries(properties)) {
      out.push({ name, in: where, required: where === 'path' || required.has(name), schema: property });
    }
  };
  place(route.spec.params, 'path');
  place(route.spec.query, 'query');
  return out;
}

/**
 * The body of a streaming route: each media type it takes, a file field for multipart/form-data and
 * the raw bytes otherwise (OpenAPI 3.1 describes binary with contentMediaType, not format: binary).
 */
function streamedBody(stream: StreamSpec) {
  const field = stream.field ?? 'file';
  const binary = { type: 'string', contentMediaType: 'application/octet-stream' };
  const content = Object.fromEntries(
    stream.types.map((type) => [
      type,
      type === 'multipart/form-data'
        ? { schema: { type: 'object', required: [field], properties: { [field]: binary } } }
        : { schema: type.includes('*') ? binary : { ...binary, contentMediaType: type } },
    ]),
  );
  return { required: true, description: `At most ${stream.limit} bytes (413 \`payload_too_large\` past it).`, content };
}

function requestBody(spec: RegisteredRoute['spec']) {
  if (spec.stream) return { requestBody: streamedBody(spec.stream) };
  if (spec.body) return { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(spec.body, 'input') } } } };
  return {};
}

function operation(route: RegisteredRoute) {
  const { spec } = route;
  const keyed = (spec.auth ?? 'key') === 'key';
  const codes = declaredErrors(route);
  const counted = !exemptFromRateLimits(`/v1${spec.path}`);

  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const success = spec.status ?? 200;
  const responses: Record<string, unknown> = {
    [String(success)]: {
      description: route.implemented ? 'Success' : 'Success (once implemented)',
      ...headerRefs(declaredHeaders(counted, success)),
      ...(spec.response ? { content: { 'application/json': { schema: jsonSchema(spec.response, 'output') } } } : {}),
    },
  };
  if (spec.accepted) {
    responses['202'] = {
      description: spec.accepted,
      ...headerRefs(declaredHeaders(counted, 202)),
      ...(spec.response ? { content: { 'application/json': { schema: jsonSchema(spec.response, 'output') } } } : {}),
    };
  }
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b))
    responses[String(status)] = errorResponse(statusCodes, status, counted);

  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description || !route.implemented
      ? {
          description: [spec.description, route.implemented ? '' : 'Not implemented yet: answers 501 `not_implemented`.']
            .filter(Boolean)
            .join('\n\n'),
        }
      : {}),
    tags: [spec.tag],
    security: keyed ? [{ bearerAuth: [] }] : [],
    parameters: parameters(route),
    ...requestBody(spec),
    responses,
    ...(route.implemented ? {} : { 'x-implemented': false }),
  };
}

/** `document.signed` → `DocumentSignedEvent`: the component schema of one event as receivers get it. */
export function eventSchemaName(event: EventName): string {
  return `${event
    .split(/[._]/)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('')}Event`;
}

/** Each event's body (`{id, event, created_at, data}`), from the schema emitEvent checks its data against. */
function eventSchemas(): Record<string, JsonSchema> {
  return Object.fromEntries(
    EVENT_NAMES.map((event) => [
      eventSchemaName(event),
      jsonSchema(
        z.object({
          id: z.string().describe('the event id (evt_…), the same on every delivery of it'),
          event: z.literal(event),
          created_at: z.iso.datetime({ offset: true }),
          data: EVENT_DATA[event],
        }),
        'output',
      ),
    ]),
  );
}

/**
 * How a webhook receiver knows a delivery is the service's (activities/webhooks/signature.ts). OpenAPI
 * has no scheme for a signature, so it is the header a receiver checks, with what it holds spelled out.
 */
const WEBHOOK_SIGNATURE = {
  type: 'apiKey',
  in: 'header',
  name: 'webhook-signature',
  description:
    'Not a fixed key: each delivery is signed per Standard Webhooks (standardwebhooks.com). ' +
    '`webhook-signature` is `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>`, ' +
    "the key being the base64 after `whsec_` in the webhook's secret, one `v1,…` per secret in use during a " +
    'rotation, separated by spaces; reject a `webhook-timestamp` more than 5 minutes away. Every delivery also carries ' +
    '`X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (docs/webhooks.md).',
};

/** OpenAPI 3.1 `webhooks`: what the service POSTs to a webhook (and, for contact and offer events, an inbox_url). */
function webhooks(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_NAMES.map((event) => [
      event,
      {
        post: {
          summary: `The ${event} event`,
          description:
            'Signed as docs/webhooks.md describes (X-Webhook-Signature, and Standard Webhooks webhook-id/webhook-timestamp/webhook-signature); answer 2xx to acknowledge, anything else is retried with backoff.',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${eventSchemaName(event)}` } } },
          },
          security: [{ webhookSignature: [] }],
          responses: { '200': { description: 'received' } },
        },
      },
    ]),
  );
}

/** OpenAPI 3.1 for every registered route, from the same zod schemas that validate requests. */
export function buildOpenApi(routes: RegisteredRoute[], options: { serverUrl: string; version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = `/v1${route.spec.path}`.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][route.spec.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agents API',
      version: options.version,
      description:
        'Electronic signatures and file transfers for software agents acting for a registered principal. ' +
        'An API key is never intent to sign; the agent is never a party. ' +
        'Requests are limited per API key, and per client address without a valid key: every answer but ' +
        "health's carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset, and past the limit " +
        'it is 429 `rate_limited` with Retry-After.',
    },
    servers: [{ url: options.serverUrl }],
    tags: [...new Set(routes.map((route) => route.spec.tag))].map((name) => ({ name })),
    paths,
    webhooks: webhooks(),
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: svc_ followed by 32 characters.' },
        webhookSignature: WEBHOOK_SIGNATURE,
      },
      schemas: {
        Error: ERROR_SCHEMA,
        ...eventSchemas(),
        // One line of a document's audit trail (the trail attached to a completed PDF), by action.
        AuditLine: jsonSchema(AuditLineSchema, 'output'),
      },
      headers: RATE_LIMIT_HEADERS,
    },
  };
}
