import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type SvcClient, SvcError, VERSION } from '@svc-agents/sdk';
import { ConfirmationTasks, type PrincipalStep, showPrincipal } from './confirmations';
import { bulkTools } from './tools/bulk';
import { documentTools } from './tools/documents';
import type { Confirmation, McpOptions, PrincipalTool, Tool } from './tools/kit';
import { offerTools } from './tools/offers';
import { readingTools } from './tools/reading';
import { signingTools } from './tools/signing';
import { templateTools } from './tools/templates';
import { transferTools } from './tools/transfers';
import { verifyTools } from './tools/verify';

export type { McpOptions } from './tools/kit';

function ok(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value ?? null, null, 2) }] };
}

/** A refusal as a tool error carrying SPEC's code and its `docs_url` (never a crash of the server). */
function failure(error: unknown, docsUrl: string): CallToolResult {
  const refusal = error instanceof SvcError ? error : new SvcError('internal_error', (error as Error).message, 500);
  const body = {
    error: {
      code: refusal.code,
      message: refusal.message,
      status: refusal.status,
      docs_url: refusal.docsUrl ?? `${docsUrl}#${refusal.code}`,
      details: refusal.details,
    },
  };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body, null, 2) }] };
}

/**
 * What the MCP SDK refuses before a tool runs (an unknown tool, arguments that fail the input schema)
 * as the same tool error: SPEC's code and `docs_url`, not bare text. The SDK makes those results in
 * its (TypeScript-private) createToolError; this server's own refusals come through `failure`.
 */
function refuseLikeTheApi(server: McpServer, docsUrl: string): void {
  (server as unknown as { createToolError(message: string): CallToolResult }).createToolError = (raw: string) => {
    const message = raw.replace(/^MCP error -?\d+: /, '');
    const refusal = /^Tool \S+ (not found|disabled)$/.test(message)
      ? new SvcError('not_found', message, 404)
      : new SvcError('invalid_request', message, 400);
    return failure(refusal, docsUrl);
  };
}

/** The codes of a refusal the principal lifts by granting a mandate in the app. */
const MANDATE_MISSING = new Set(['mandate_required', 'mandate_inactive']);

/** A result that needs the principal: the API's answer as ever, then the sentence with the URL to open. */
function withUrl(result: CallToolResult, step: { url: string; message: string }): CallToolResult {
  return { ...result, content: [...result.content, { type: 'text', text: step.message }] };
}

type PlainHandler = (input: never) => Promise<CallToolResult>;

/**
 * For a tool that can answer with a task (taskSupport "optional"), a call without `task` runs as any
 * tool does: it answers at once. The SDK would otherwise create the task and wait for its end inside
 * the call (its automatic polling, TypeScript-private like createToolError), that is until the
 * principal decides in the app, hours perhaps.
 */
function answerPlainCallsAtOnce(server: McpServer, plain: Map<string, PlainHandler>): void {
  const internals = server as unknown as {
    validateToolInput(tool: unknown, args: unknown, name: string): Promise<unknown>;
    handleAutomaticTaskPolling(tool: unknown, request: CallToolRequest): Promise<CallToolResult>;
  };
  internals.handleAutomaticTaskPolling = async (tool, request) => {
    const input = await internals.validateToolInput(tool, request.params.arguments, request.params.name);
    return plain.get(request.params.name)!(input as never);
  };
}

/**
 * The MCP server of the Agents API (0.3.0): tools over the SDK, so every call goes through the
 * REST API and its one authorization gate. There is no sign_document tool: signing is L2
 * (sign_as_principal, within a mandate the principal granted) or L1 (request_sign: the principal
 * confirms in the app). Where the principal must act (an L1 request, an escalated offer, a missing
 * mandate) the result carries the app's URL and a sentence saying so; a client that declared URL
 * elicitation is also shown the URL, and one that asks for a task gets a task that ends with the
 * principal's decision (confirmations.ts).
 */
export function createMcpServer(client: SvcClient, options: McpOptions): McpServer {
  const tasks = new ConfirmationTasks(client);
  const server = new McpServer(
    { name: 'svc', version: VERSION, title: 'Agents API' },
    { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore: tasks },
  );
  const docsUrl = options.docsUrl ?? `${client.http.baseUrl}/docs/errors`;
  const appUrl = options.appUrl ?? `${client.http.baseUrl}/app`;
  refuseLikeTheApi(server, docsUrl);

  /** The principal confirms in the app: the URL in the result, and shown by the client where it can. */
  const confirmation = (value: unknown, step: Confirmation): CallToolResult => {
    showPrincipal(server, {
      ...step,
      elicitationId: step.signRequestId,
      ended: async () => (await client.getSignRequest(step.signRequestId)).status !== 'open',
    });
    return withUrl(ok(value), step);
  };

  /** A refusal; when a mandate is missing, with the app's page where the principal grants one to this key. */
  const refusal = async (error: unknown): Promise<CallToolResult> => {
    const result = failure(error, docsUrl);
    if (!(error instanceof SvcError) || !MANDATE_MISSING.has(error.code)) return result;
    const me = await client.me().catch(() => undefined);
    if (!me) return result;
    const url = `${appUrl}/mandates/new?key=${encodeURIComponent(me.key.id)}`;
    const step: PrincipalStep = {
      url,
      message: `No mandate in force lets this key sign for its principal. Ask the principal to open ${url} and grant one to the key “${me.key.label}”, signed in to the app; then try again.`,
      elicitationId: `grant_${me.key.id}_${randomUUID()}`,
      ended: async () => (await client.me()).signing_mandate !== undefined,
    };
    showPrincipal(server, step);
    return withUrl(result, step);
  };

  const plain = new Map<string, PlainHandler>();
  const tool: Tool = (name, description, inputSchema, annotations, run, principal?: PrincipalTool) => {
    const answer = (async (input: never) => {
      try {
        const value = await run(input);
        const step = principal?.confirm(value);
        return step ? confirmation(value, step) : ok(value);
      } catch (error) {
        return refusal(error);
      }
    }) as PlainHandler;
    if (!principal) {
      server.registerTool(name, { description, inputSchema, annotations }, answer as never);
      return;
    }
    plain.set(name, answer);
    server.experimental.tasks.registerToolTask(
      name,
      { description, inputSchema, annotations, execution: { taskSupport: 'optional' } },
      {
        // Asked for a task: the call is made, and the task is what the principal decides on. A refusal
        // answers as the tool's error at once (no task was created).
        createTask: (async (input: never) => {
          let value: unknown;
          try {
            value = await run(input);
          } catch (error) {
            return refusal(error);
          }
          const step = principal.confirm(value);
          if (step) confirmation(value, step);
          const task = await tasks.taskOf(principal.task(value));
          if (!task) return ok(value);
          return { task };
        }) as never,
        getTask: (async (_input: never, extra: { taskId: string }) => tasks.getTask(extra.taskId)) as never,
        getTaskResult: (async (_input: never, extra: { taskId: string }) => tasks.getTaskResult(extra.taskId)) as never,
      },
    );
  };
  answerPlainCallsAtOnce(server, plain);

  const kit = { tool, client, options };
  for (const tools of [readingTools, documentTools, templateTools, bulkTools, signingTools, offerTools, transferTools, verifyTools])
    tools(kit);
  return server;
}

/** The names of the tools, for documentation and tests. */
export const TOOL_NAMES = [
  'me',
  'list_templates',
  'list_documents',
  'get_document',
  'list_contacts',
  'list_offers',
  'get_offer',
  'list_drive',
  'list_transfers',
  'get_transfer',
  'list_sign_requests',
  'get_document_audit',
  'create_document',
  'send_document',
  'bulk_send',
  'get_bulk',
  'void_document',
  'remind_signers',
  'upload_file',
  'create_template',
  'get_template',
  'update_template',
  'delete_template',
  'request_sign',
  'sign_as_principal',
  'invite_contact',
  'propose_contract',
  'accept_offer',
  'decline_offer',
  'upload_asset',
  'create_transfer',
  'offer_transfer',
  'claim_transfer',
  'accept_transfer',
  'download_transfer',
  'cancel_transfer',
  'verify_pdf',
] as const;
