// What every story shares: the short durations it runs with, the service and fixtures it runs against,
// and waiting for a workflow (or a mail) to end.
import { MailMessage, type Template } from '../../db/models';
import type { Account } from '../factories';
import type { Receiver, selfSignedCertificate } from '../receiver';
import type { Stack } from '../stack';
import { waitFor } from '../wait';

/** Short durations (inputs of the workflows), so every path runs in seconds. */
export const DURATIONS = {
  SVC_APPLY_WAIT_MS: '30000',
  SVC_APPLY_ATTEMPTS: '3',
  SVC_MAIL_ATTEMPTS: '3',
  SVC_RETRY_INITIAL_MS: '100',
  SVC_RETRY_MAX_MS: '200',
  SVC_WEBHOOK_RETRY_INITIAL_MS: '200',
  SVC_WEBHOOK_RETRY_MAX_MS: '800',
  SVC_WEBHOOK_GIVE_UP_MS: '3000',
  SVC_WEBHOOK_TIMEOUT_MS: '2000',
  SVC_OUTBOX_POLL_MS: '100',
  SVC_REMINDER_MIN_MS: '1000',
  SVC_EXPIRY_MIN_MS: '1000',
};

export interface Context {
  stack: Stack;
  owner: Account;
  nda: Template;
  tls: ReturnType<typeof selfSignedCertificate>;
  receivers: Receiver[];
}

/** One story against the service; it answers the workflow id of each history it recorded, by history name. */
export interface Story {
  histories: string[];
  run(context: Context): Promise<Record<string, string>>;
}

/** The workflow's result once it ended; a story that leaves one waiting fails instead of hanging the run. */
export async function workflowResult(stack: Stack, workflowId: string, timeoutMs = 60_000): Promise<any> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${workflowId} did not end within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([stack.deps.temporal.client.workflow.getHandle(workflowId).result(), late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function mailId(stack: Stack, to: string, purpose: string): Promise<string> {
  const mail = await waitFor(`the ${purpose} mail to ${to}`, async () =>
    MailMessage.query(stack.deps.db).where({ to_address: to.toLowerCase(), purpose }).first(),
  );
  return mail.id;
}
