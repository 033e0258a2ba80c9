// Confirmations an agent's MCP client can show: the principal's URL in every result, a URL-mode
// elicitation where the connection carries one, and tasks whose state is the service's own.

import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { SignRequest, SvcClient } from '@svc-agents/sdk';

/** What the principal must do in the app, as a tool learnt it from the REST API's answer. */
export interface PrincipalStep {
  /** The app's page where the principal acts (signed in): a confirm link, or the mandate grant page. */
  url: string;
  /** The plain sentence an agent's user reads: open the URL, and what happens there. */
  message: string;
  /** Unique within this server: the sign request's id, or one made for a grant. */
  elicitationId: string;
  /** Whether the principal has acted (or the chance has passed): then the elicitation is complete. */
  ended(): Promise<boolean>;
}

/** How often a client should poll a task, and how often the stdio server looks for the end of an elicitation. */
export const CONFIRM_POLL_MS = 2_000;

const SIGN_REQUEST_ID = /^sr_[A-Za-z0-9_-]{1,64}$/;
const OFFER_ID = /^ofr_[A-Za-z0-9_-]{1,64}$/;

/** A task's id is the id of what the principal decides on: a sign request (sr_…) or an accepted offer (ofr_…). */
export const isConfirmationTaskId = (id: string) => SIGN_REQUEST_ID.test(id) || OFFER_ID.test(id);

const text = (value: unknown) => JSON.stringify(value ?? null, null, 2);

const ENDED: Record<string, string> = {
  declined: 'The principal declined: nothing was signed.',
  expired: 'The request expired before the principal confirmed: nothing was signed.',
  failed: 'The principal confirmed, but the signature could not be applied.',
};

interface Reading {
  status: Task['status'];
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** The final state, as the tool's result, once the task has ended. */
  result?: CallToolResult;
}

/** A sign request as a task: open → working, applied → completed, declined, expired or failed → failed. */
function readSignRequest(request: SignRequest): Reading {
  const times = { createdAt: request.created_at, lastUpdatedAt: request.decided_at ?? request.created_at };
  if (request.status === 'open')
    return {
      ...times,
      status: 'working',
      statusMessage: `Waiting for the principal to open ${request.confirm_url} and confirm, signed in to the app.`,
    };
  if (request.status === 'applied')
    return {
      ...times,
      status: 'completed',
      statusMessage: 'The principal confirmed: their signature was applied.',
      result: { content: [{ type: 'text', text: text(request) }] },
    };
  const why = `${ENDED[request.status] ?? `The request ended ${request.status}.`}${request.error ? ` ${request.error.message}` : ''}`;
  return {
    ...times,
    status: 'failed',
    statusMessage: why,
    result: {
      isError: true,
      content: [
        { type: 'text', text: text(request) },
        { type: 'text', text: why },
      ],
    },
  };
}

/**
 * The task store of the MCP server, stateless: a task is the sign request (or the accepted offer)
 * the principal decides on, read through the REST API with the caller's own key on each tasks/get
 * and tasks/result. Nothing is kept in the server, so any replica answers, a task of another key is
 * "not found" (the API answers 404), and the task lives as long as the request it follows.
 */
export class ConfirmationTasks implements TaskStore {
  constructor(private readonly client: SvcClient) {}

  /** Tasks are made only by the confirmation tools (taskOf), from what the service already holds. */
  async createTask(): Promise<Task> {
    throw new McpError(-32602, 'Only request_sign and accept_offer answer with a task.');
  }

  /** The task following a sign request or an offer, or null when this key cannot see it. */
  async taskOf(taskId: string): Promise<Task | null> {
    const reading = await this.read(taskId);
    if (!reading) return null;
    const { status, statusMessage, createdAt, lastUpdatedAt } = reading;
    return { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttl: null, pollInterval: CONFIRM_POLL_MS };
  }

  getTask(taskId: string): Promise<Task | null> {
    return this.taskOf(taskId);
  }

  async getTaskResult(taskId: string): Promise<CallToolResult> {
    const reading = await this.read(taskId);
    if (!reading) throw new McpError(-32602, `Task not found: ${taskId}`);
    if (!reading.result) throw new McpError(-32602, `Task ${taskId} has not ended: ${reading.statusMessage}`);
    return reading.result;
  }

  /** The state is the service's: a client cannot store a result or move a task (only the principal decides). */
  async storeTaskResult(): Promise<void> {
    throw new McpError(-32602, 'The result of a confirmation is the principal’s decision in the app.');
  }

  async updateTaskStatus(taskId: string): Promise<void> {
    throw new McpError(
      -32602,
      `Task ${taskId} follows the principal’s decision in the app; it cannot be cancelled here (the principal can decline).`,
    );
  }

  /** Tasks are not listed (list_sign_requests does that per document). */
  async listTasks(): Promise<{ tasks: Task[] }> {
    return { tasks: [] };
  }

  private async read(taskId: string): Promise<Reading | null> {
    if (!isConfirmationTaskId(taskId)) return null;
    try {
      if (SIGN_REQUEST_ID.test(taskId)) return readSignRequest(await this.client.getSignRequest(taskId));
      return await this.readOffer(taskId);
    } catch (error) {
      if ((error as { status?: number }).status === 404) return null;
      throw error;
    }
  }

  /** An accepted offer as a task: accepted → completed; escalated → its sign request's state; declined or expired → failed. */
  private async readOffer(offerId: string): Promise<Reading> {
    const offer = await this.client.getOffer(offerId);
    const createdAt = offer.created_at;
    const lastUpdatedAt = offer.escalated_at ?? offer.acknowledged_at ?? createdAt;
    if (offer.status === 'accepted')
      return {
        createdAt,
        lastUpdatedAt,
        status: 'completed',
        statusMessage: 'The offer was accepted: the principal’s signature was applied.',
        result: { content: [{ type: 'text', text: text(offer) }] },
      };
    if (offer.status === 'escalated' && offer.sign_request_id) {
      const request = readSignRequest(await this.client.getSignRequest(offer.sign_request_id));
      // The offer turns accepted just after its request is applied: until then it still works.
      if (request.status === 'completed') return { ...request, status: 'working', result: undefined };
      if (request.result)
        request.result = { ...request.result, content: [{ type: 'text', text: text(offer) }, ...request.result.content.slice(1)] };
      return request;
    }
    if (offer.status === 'declined' || offer.status === 'expired') {
      const why = `The offer was ${offer.status}: nothing was signed.`;
      return {
        createdAt,
        lastUpdatedAt,
        status: 'failed',
        statusMessage: why,
        result: {
          isError: true,
          content: [
            { type: 'text', text: text(offer) },
            { type: 'text', text: why },
          ],
        },
      };
    }
    return { createdAt, lastUpdatedAt, status: 'working', statusMessage: `The offer is ${offer.status}.` };
  }
}

/** How long the stdio server looks for the end of an elicitation at most: a sign request's lifetime. */
const WATCH_MS = 24 * 60 * 60 * 1000;

/**
 * Shows the principal's URL through the client where the connection can carry a server→client
 * request and the client declared URL-mode elicitation (stdio; not the stateless HTTP mount, where no
 * request sees the client's capabilities): `elicitation/create` with mode "url", not waited for (the
 * tool's result carries the same URL), then `notifications/elicitation/complete` once the service
 * shows the step ended, while the connection lives.
 */
export function showPrincipal(server: McpServer, step: PrincipalStep, pollMs = CONFIRM_POLL_MS): boolean {
  const inner = server.server;
  if (!inner.getClientCapabilities()?.elicitation?.url || !inner.transport) return false;
  inner.elicitInput({ mode: 'url', message: step.message, url: step.url, elicitationId: step.elicitationId }).catch(() => {
    // Declined, cancelled or unanswered: the URL is in the tool's result all the same.
  });
  const complete = inner.createElicitationCompletionNotifier(step.elicitationId);
  const until = Date.now() + WATCH_MS;
  const watch = async () => {
    if (!inner.transport || Date.now() > until) return;
    const ended = await step.ended().catch(() => false);
    if (ended) await complete().catch(() => {});
    else setTimeout(watch, pollMs).unref();
  };
  setTimeout(watch, pollMs).unref();
  return true;
}
