import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { trace } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import { NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { Template } from '../db/models';
import { SignerSession, seedSamples } from '../test/documents';
import type { Account } from '../test/factories';
import { call } from '../test/http';
import { dataUrl, signaturePng } from '../test/images';
import { mandatedAccount, principalOf } from '../test/principal';
import { currentWorkflowBundle, describeFailures, loadHistories, replayHistories } from '../test/replay';
import { type Stack, startStack } from '../test/stack';
import { waitFor } from '../test/wait';
import { bundleWorkflows } from '../worker/worker';
import { documentWorkflowId } from '../workflows/document/shared';
import { loadConfig } from './config/config';

interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
}

const otlpValue = (value: OtlpValue) => value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue);
const attributesOf = (list: Array<{ key: string; value: OtlpValue }> = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, otlpValue(value)]));

/** An OTLP/HTTP endpoint: keeps each JSON export body posted to /v1/traces. */
async function startCollector() {
  const bodies: string[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        contentTypes.push(String(request.headers['content-type']));
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    contentTypes,
    spans(): ExportedSpan[] {
      return bodies.flatMap((body) =>
        JSON.parse(body).resourceSpans.flatMap((resourceSpans: any) => {
          const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
          return resourceSpans.scopeSpans.flatMap((scope: any) =>
            scope.spans.map(
              (span: any): ExportedSpan => ({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
                links: span.links ?? [],
              }),
            ),
          );
        }),
      );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Collector = Awaited<ReturnType<typeof startCollector>>;

/** A recording span from the global provider: only when a tracer provider is registered in this process. */
const providerRegistered = () => trace.getTracer('probe').startSpan('probe').isRecording();

/** The two-signer NDA the account's principal signs first (L2), sent at once, with extra request headers. */
async function sendNda(stack: Stack, owner: Account, nda: Template, other: { name: string; email: string }, headers = {}) {
  const principal = await principalOf(stack, owner);
  const created = await call(stack.url, 'POST', '/v1/documents', {
    key: owner.key,
    headers,
    body: { template_id: nda.id, name: 'Traced NDA', send: true, signers: [{ name: principal.name, email: principal.email }, other] },
  });
  assert.equal(created.status, 201, created.text);
  return created;
}

describe('tracing configuration', () => {
  it('is off by default, on with SVC_TRACING=otlp or an OTLP endpoint, off again with SVC_TRACING=off or OTEL_SDK_DISABLED', () => {
    const tracing = (env: Record<string, string>) => loadConfig({ SVC_ENV: 'test', ...env }).tracing;
    assert.deepEqual(tracing({}), { enabled: false, tracesUrl: 'http://localhost:4318/v1/traces', serviceName: undefined });
    assert.equal(tracing({ SVC_TRACING: 'otlp' }).enabled, true);
    assert.deepEqual(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_SERVICE_NAME: 'edge-api' }), {
      enabled: true,
      tracesUrl: 'http://collector:4318/v1/traces',
      serviceName: 'edge-api',
    });
    assert.equal(
      tracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel.example/api/traces' }).tracesUrl,
      'https://otel.example/api/traces',
    );
    assert.equal(tracing({ SVC_TRACING: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).enabled, false);
    assert.equal(tracing({ SVC_TRACING: 'otlp', OTEL_SDK_DISABLED: 'TRUE' }).enabled, false);
    assert.throws(() => tracing({ SVC_TRACING: 'jaeger' }), /SVC_TRACING/);
  });
});

// Off runs first: the traced stack below registers the process-wide provider until it closes.
describe('tracing off', () => {
  let collector: Collector;
  let stack: Stack;

  before(async () => {
    collector = await startCollector();
    stack = await startStack({ env: { SVC_TRACING: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
  });
  after(async () => {
    await stack?.close();
    await collector?.close();
  });

  it('registers no tracer provider, adds no interceptor and exports nothing while a workflow runs its activities', async () => {
    assert.equal(stack.deps.tracing, undefined);
    assert.equal(providerRegistered(), false);
    assert.equal((stack.deps.temporal.client.options.interceptors.workflow as unknown[]).length, 1, 'only the start counter');
    const { account } = await mandatedAccount(stack, { name: 'Una Untraced' });
    const { nda } = await seedSamples(stack, account);
    const created = await sendNda(stack, account, nda, { name: 'Carl', email: `carl-${Date.now()}@example.test` });
    // The workflow's first activity has run once the invitation is queued.
    await waitFor('the invitation', () => stack.smtp!.latest(created.body.signers[1].email, 'sign-invite'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(collector.bodies.length, 0);
  });
});

describe('tracing on: one trace from an HTTP request through Temporal into the activities', { timeout: 180_000 }, () => {
  let collector: Collector;
  let stack: Stack;
  let owner: Account;
  let nda: Template;

  before(async () => {
    collector = await startCollector();
    stack = await startStack({
      env: {
        SVC_TRACING: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'svc-tracing-test',
        // A traced worker bundles its own workflows (with the tracing interceptors).
        SVC_WORKFLOW_BUNDLE: undefined,
        SVC_APPLY_WAIT_MS: '60000',
      },
    });
    ({ account: owner } = await mandatedAccount(stack, { name: 'Tess Traced' }));
    ({ nda } = await seedSamples(stack, owner));
  });
  after(async () => {
    await stack?.close();
    await collector?.close();
    // The stack's close shut the provider down and unregistered it.
    assert.equal(providerRegistered(), false);
  });

  /** Flushes the process's spans until `ready` holds on what the collector has. */
  const spansWhen = (what: string, ready: (spans: ExportedSpan[]) => boolean) =>
    waitFor(
      what,
      async () => {
        await stack.deps.tracing!.flush();
        const spans = collector.spans();
        return ready(spans) && spans;
      },
      30_000,
    );

  it('sends a document, signs it (L2 and on the page) and exports the HTTP, client, workflow and activity spans in one trace', async () => {
    assert.equal(providerRegistered(), true);
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const other = { name: 'Tom Traced', email: `tom-${Date.now()}@example.test` };
    const created = await sendNda(stack, owner, nda, other, { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` });
    const documentId = created.body.document_id as string;
    const signed = await call(stack.url, 'POST', `/v1/documents/${documentId}/sign`, { key: owner.key, body: { reason: 'agreed' } });
    assert.equal(signed.status, 200, signed.text);
    const signUrl = created.body.signers[1].sign_url as string;
    const session = await new SignerSession(stack, signUrl, other.email).verify();
    const onPage = await session.request('POST', '/sign', {
      consent: true,
      signature: { method: 'drawn', image: dataUrl(signaturePng()) },
      values: { 'receiving-title': 'CFO' },
    });
    assert.equal(onPage.status, 200, onPage.text);
    // The workflow's own span is exported when it ends: when the document completes.
    const handle = stack.deps.temporal.client.workflow.getHandle(documentWorkflowId(documentId));
    await handle.result();

    const spans = await spansWhen('the document workflow span', (all) => all.some((span) => span.name === 'RunWorkflow:documentWorkflow'));
    assert.ok(
      collector.contentTypes.every((type) => type.startsWith('application/json')),
      collector.contentTypes.join(),
    );
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const named = (name: string) => spans.filter((span) => span.name === name);

    // The request's span: named by its route template, the root of its trace; the caller's trace only linked.
    const [send] = named('HTTP POST /v1/documents');
    assert.ok(send, spans.map((span) => span.name).join('\n'));
    assert.equal(send.kind, 2, 'SPAN_KIND_SERVER');
    assert.equal(send.parentSpanId, undefined);
    assert.notEqual(send.traceId, callerTrace);
    assert.deepEqual(
      send.links.map((link) => link.traceId),
      [callerTrace],
    );
    assert.deepEqual(
      { ...send.attributes },
      {
        'http.method': 'POST',
        'http.route': '/v1/documents',
        'http.status_code': 201,
        'svc.request_id': created.headers.get('x-request-id'),
      },
    );

    // Everything the send caused is in its trace: the start, the workflow, its activities.
    const inSend = new Set(spans.filter((span) => span.traceId === send.traceId).map((span) => span.name));
    for (const name of [
      'StartWorkflow:documentWorkflow',
      'RunWorkflow:documentWorkflow',
      'StartActivity:documentSent',
      'RunActivity:documentSent',
      'RunActivity:inviteSigners',
      'RunActivity:applySignature',
    ]) {
      assert.ok(inSend.has(name), `${name} in the send's trace: ${[...inSend].join(', ')}`);
    }
    const ancestry = (span: ExportedSpan): string[] => {
      const names = [span.name];
      for (let parent = byId.get(span.parentSpanId ?? ''); parent; parent = byId.get(parent.parentSpanId ?? '')) names.push(parent.name);
      return names;
    };
    const [activity] = named('RunActivity:documentSent');
    assert.deepEqual(ancestry(activity), [
      'RunActivity:documentSent',
      'StartActivity:documentSent',
      'RunWorkflow:documentWorkflow',
      'StartWorkflow:documentWorkflow',
      'HTTP POST /v1/documents',
    ]);
    assert.equal(activity.attributes.temporalWorkflowId, documentWorkflowId(documentId));

    // The L2 sign is a trace of its own: its request and the update-with-start that carries its apply to the workflow.
    const [sign] = named('HTTP POST /v1/documents/:id/sign');
    assert.ok(sign, spans.map((span) => span.name).join('\n'));
    assert.notEqual(sign.traceId, send.traceId);
    const inSign = spans.filter((span) => span.traceId === sign.traceId).map((span) => span.name);
    assert.ok(inSign.includes('UpdateWithStartWorkflow:applySettled') && inSign.includes('HandleUpdate:applySettled'), inSign.join(', '));

    // Every span names this service, the workflow's own (exported through the worker's sink) too.
    assert.deepEqual([...new Set(spans.map((span) => span.service))], ['svc-tracing-test']);
    // Sign-page requests are named by their template; the link's token is nowhere in what was exported.
    const token = new URL(signUrl).pathname.split('/').at(-1)!;
    assert.ok(token.length > 10);
    assert.ok(
      spans.some((span) => span.name === 'HTTP POST /app/sign/:token/sign'),
      spans.map((span) => span.name).join('\n'),
    );
    assert.equal(collector.bodies.filter((body) => body.includes(token)).length, 0, 'the sign token was exported');

    // Turning tracing off again: the traced execution replays against the bundle without the interceptors.
    const traced = { name: 'traced/document', workflowType: 'documentWorkflow', file: '(this test)', history: await handle.fetchHistory() };
    const failures = await replayHistories(await currentWorkflowBundle(), [traced]);
    assert.equal(failures.length, 0, describeFailures(failures));
  });
});

describe('tracing and running workflows', () => {
  it('every recorded history (run without tracing) replays against the bundle with the tracing interceptors', {
    timeout: 120_000,
  }, async () => {
    const sinks = { exporter: makeWorkflowExporter(new NoopSpanProcessor(), Resource.empty()) };
    const failures = await replayHistories(await bundleWorkflows({ tracing: true }), loadHistories(), { sinks });
    assert.equal(failures.length, 0, describeFailures(failures));
  });
});
