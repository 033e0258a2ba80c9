import fs from 'node:fs/promises';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { type SvcClient, SvcError, VERSION } from '@svc-agents/sdk';
import { z } from 'zod';

/** Where the tools run: over stdio on the agent's machine (local files), or mounted on the service (no file system). */
export interface McpOptions {
  /** Tools may read and write local files (paths): only the stdio server, never the HTTP mount. */
  localFiles: boolean;
  /**
   * The service's error documentation (SVC_DOCS_URL), for the refusals this server makes itself: each
   * carries `docs_url` like the API's. Default: `<baseUrl>/docs/errors`, the service's own page.
   */
  docsUrl?: string;
}

const NOT_INTENT = 'An API key is never intent to sign: possession of this tool does not let you sign for anyone.';

/**
 * How long sign_as_principal and accept_offer wait for a signature the service still applies after
 * its own wait (202): under the 60 s that MCP clients commonly give a tool call. Past it the tool
 * answers `processing`, and get_document shows the outcome.
 */
const MCP_APPLY_WAIT_MS = 40_000;
const Id = (what: string) => z.string().min(1).max(100).describe(what);
const Reason = z.string().min(1).max(2000).describe('Why the principal signs, in words they will read (shown on the certificate trail)');
const Page = {
  limit: z.number().int().min(1).max(100).optional().describe('Items per page (1–100, default 20)'),
  cursor: z.string().optional().describe('The next_cursor of the previous page'),
};
const Person = z.object({ name: z.string().min(1).max(200), email: z.string().email() });

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
const IRREVERSIBLE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

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

/** Reads the bytes of an upload: base64 content (any transport) or a local path (stdio only). */
async function uploadBytes(
  input: { path?: string; content_base64?: string },
  options: McpOptions,
): Promise<{ bytes: Buffer; name?: string }> {
  if (input.content_base64 !== undefined) return { bytes: Buffer.from(input.content_base64, 'base64') };
  if (input.path !== undefined) {
    if (!options.localFiles)
      throw new SvcError('invalid_request', 'This server runs on the service, not on your machine: send the file as content_base64.', 400);
    const bytes = await fs.readFile(input.path).catch((error: NodeJS.ErrnoException) => {
      throw new SvcError('invalid_request', `Cannot read ${input.path}: ${error.code ?? error.message}.`, 400, undefined, [
        { path: 'path', message: error.code ?? error.message },
      ]);
    });
    return { bytes, name: path.basename(input.path) };
  }
  throw new SvcError('invalid_request', 'Give the file as path or content_base64.', 400);
}

/**
 * The MCP server of the Agents API (0.3.0): tools over the SDK, so every call goes through the
 * REST API and its one authorization gate. There is no sign_document tool: signing is L2
 * (sign_as_principal, within a mandate the principal granted) or L1 (request_sign: the principal
 * confirms in the app).
 */
export function createMcpServer(client: SvcClient, options: McpOptions): McpServer {
  const server = new McpServer({ name: 'svc', version: VERSION, title: 'Agents API' });
  const docsUrl = options.docsUrl ?? `${client.http.baseUrl}/docs/errors`;
  refuseLikeTheApi(server, docsUrl);
  const tool = <S extends z.ZodRawShape>(
    name: string,
    description: string,
    inputSchema: S,
    annotations: ToolAnnotations,
    run: (input: z.infer<z.ZodObject<S>>) => Promise<unknown>,
  ) =>
    server.registerTool(name, { description, inputSchema, annotations }, (async (input: z.infer<z.ZodObject<S>>) => {
      try {
        return ok(await run(input));
      } catch (error) {
        return failure(error, docsUrl);
      }
    }) as never);

  // Reading
  tool('me', 'The calling key: its principal, plan, scopes, feature flags, mandate and the confirmation levels it may use.', {}, READ, () =>
    client.me(),
  );
  tool('list_templates', 'Document templates of the account (their roles and widgets).', Page, READ, (input) =>
    client.listTemplates(input),
  );
  tool(
    'list_documents',
    'Documents of the account (outbound) or documents where this key’s principal is a signer (inbound), newest first.',
    { ...Page, direction: z.enum(['outbound', 'inbound']).optional() },
    READ,
    (input) => client.listDocuments(input),
  );
  tool(
    'get_document',
    'One document: its status, signers, who has signed, sign links (outbound) and hashes.',
    { document_id: Id('doc_…') },
    READ,
    (input) => client.getDocument(input.document_id),
  );
  tool('list_contacts', 'Agent contacts of this principal (invitations both ways, active, revoked).', Page, READ, (input) =>
    client.listContacts(input),
  );
  tool(
    'list_offers',
    'Offers made to (inbound) or by (outbound) this principal.',
    {
      ...Page,
      direction: z.enum(['inbound', 'outbound']).optional(),
      status: z.enum(['pending', 'acknowledged', 'declined', 'accepted', 'escalated', 'expired']).optional(),
    },
    READ,
    (input) => client.listOffers(input),
  );
  tool(
    'get_offer',
    'One offer (either party), with its receipt once accepted and its confirm_url while escalated.',
    { offer_id: Id('ofr_…') },
    READ,
    (input) => client.getOffer(input.offer_id),
  );
  tool('list_drive', 'Files in this principal’s Drive (name, kind, size, SHA-256).', Page, READ, (input) => client.listDrive(input));
  tool(
    'list_transfers',
    'File packages this principal sent or received.',
    { ...Page, direction: z.enum(['sent', 'received']).optional() },
    READ,
    (input) => client.listTransfers(input),
  );
  tool(
    'get_transfer',
    'One package: mode, state, can_release, files, recipients (never claim tokens).',
    { transfer_id: Id('xfr_…') },
    READ,
    (input) => client.getTransfer(input.transfer_id),
  );
  tool(
    'list_sign_requests',
    'This key’s L1 sign requests on a document, newest first, with their status (open, applied, declined, expired, failed).',
    { document_id: Id('doc_…'), ...Page },
    READ,
    ({ document_id, ...page }) => client.listSignRequests(document_id, page),
  );

  // Documents
  tool(
    'create_document',
    'Create a document from a template (template_id) or from a PDF in the Drive (drive_file_id with widgets), with its signers in signing order; send: true also sends it. Creating or sending signs nothing.',
    {
      name: z.string().min(1).max(200),
      template_id: z.string().optional().describe('tpl_… (or drive_file_id)'),
      drive_file_id: z.string().optional().describe('A PDF uploaded with upload_file (drv_…), with widgets'),
      widgets: z
        .array(z.record(z.string(), z.unknown()))
        .optional()
        .describe('With drive_file_id: the fields per signer role, as a template’s'),
      signers: z.array(Person).min(1).describe('In signing order; signer n takes role n'),
      send: z.boolean().optional(),
    },
    WRITE,
    (input) => client.createDocument(input as never),
  );
  tool(
    'send_document',
    'Send a draft document to its signers (each is e-mailed a sign link). Sending signs nothing.',
    { document_id: Id('doc_…') },
    WRITE,
    (input) => client.sendDocument(input.document_id),
  );
  tool(
    'upload_file',
    'Upload a PDF to the Drive for a signing envelope (then create_document with its drive_file_id and widgets). PDF only: anything else is refused.',
    {
      content_base64: z.string().optional().describe('The PDF, base64-encoded'),
      ...(options.localFiles ? { path: z.string().optional().describe('A PDF on this machine') } : {}),
      filename: z.string().max(255).optional(),
    },
    WRITE,
    async (input) => {
      const { bytes, name } = await uploadBytes(input as { path?: string; content_base64?: string }, options);
      if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
        throw new SvcError('unsupported_media_type', 'upload_file takes a PDF only.', 415);
      const file = await client.uploadAsset({ bytes, filename: input.filename ?? name ?? 'document.pdf' });
      if (file.kind !== 'pdf') {
        await client.deleteDriveFile(file.drive_file_id);
        throw new SvcError('unsupported_media_type', `upload_file takes a PDF only; this file is a ${file.kind}.`, 415);
      }
      return file;
    },
  );

  // Signing
  tool(
    'request_sign',
    `L1: ask this key's principal to confirm applying their signature to a sent document where they are a signer. Answers a confirm_url that is also e-mailed to the principal; only the principal, signed in to the app, can confirm or decline. You must wait for them (poll list_sign_requests or get_document): nothing is signed until they confirm. ${NOT_INTENT}`,
    { document_id: Id('doc_…'), reason: Reason },
    WRITE,
    (input) => client.requestSign(input.document_id, input.reason),
  );
  tool(
    'sign_as_principal',
    `L2: apply the principal's stored signature to a sent document now. Works only inside an L2 mandate the principal granted to this key in the app (else refused: mandate_required, confirmation_required for an L1 mandate, mandate_scope …), at most 25 a day. It is a legally meaningful signature by the principal and cannot be undone: use it only when the principal's mandate covers exactly this. Never assume a mandate: check me first. Answers status applied; status processing means the signature is still being applied (call get_document: the signer's apply turns applied, or rejected with why). ${NOT_INTENT}`,
    { document_id: Id('doc_…'), reason: Reason },
    IRREVERSIBLE,
    (input) => client.signAsPrincipal(input.document_id, input.reason, { waitMs: MCP_APPLY_WAIT_MS }),
  );

  // Contacts and offers
  tool(
    'invite_contact',
    'Invite another principal by e-mail to become agent contacts (they accept in the app or through their agent). Accepting signs nothing.',
    {
      email: z.string().email(),
      name: z.string().min(1).max(200),
      inbox_url: z.string().url().optional().describe('https URL for this relationship’s events'),
    },
    WRITE,
    (input) => client.inviteContact(input),
  );
  tool(
    'propose_contract',
    'Offer a sent document of this account to an active contact’s principal (a signer of it), bound to the SHA-256 of its current PDF. Proposing signs nothing.',
    {
      document_id: Id('doc_…'),
      contact_id: Id('ct_…, your side of the contact'),
      terms: z.string().min(1).max(10_000),
      human_signature_required: z.boolean().optional().describe('Require the counterparty principal’s own confirmation'),
    },
    WRITE,
    ({ document_id, ...body }) => client.proposeContract(document_id, body),
  );
  tool(
    'accept_offer',
    `Accept an offer made to this principal. With an L2 mandate covering the document (in policy, no human signature required) the principal's stored signature is applied now (irreversible); otherwise the offer is escalated: the principal is e-mailed a confirm_url and you must wait for their decision in the app (poll get_offer). ${NOT_INTENT}`,
    { offer_id: Id('ofr_…') },
    IRREVERSIBLE,
    (input) => client.acceptOffer(input.offer_id, { waitMs: MCP_APPLY_WAIT_MS }),
  );
  tool(
    'decline_offer',
    'Decline an offer made to this principal; nothing is signed, and the offer cannot be accepted afterwards.',
    { offer_id: Id('ofr_…') },
    {
      ...WRITE,
      destructiveHint: true,
    },
    (input) => client.declineOffer(input.offer_id),
  );

  // Drive and transfers
  tool(
    'upload_asset',
    'Upload a file to the Drive (zip, office documents, images, PDF; its kind is read from its bytes). Answers drive_file_id, kind, size, SHA-256.',
    {
      content_base64: z.string().optional().describe('The file, base64-encoded'),
      ...(options.localFiles ? { path: z.string().optional().describe('A file on this machine') } : {}),
      filename: z.string().max(255).optional(),
    },
    WRITE,
    async (input) => {
      const { bytes, name } = await uploadBytes(input as { path?: string; content_base64?: string }, options);
      return client.uploadAsset({ bytes, filename: input.filename ?? name });
    },
  );
  tool(
    'create_transfer',
    'Make a package of Drive files for recipients: shared at offer, or unlocking when a document completes (document_id: sign-to-unlock) or when every recipient accepts (requires_acceptance: accept-to-unlock). Then offer_transfer.',
    {
      name: z.string().min(1).max(200),
      drive_file_ids: z.array(z.string()).min(1),
      recipients: z.array(Person).min(1),
      document_id: z.string().optional(),
      requires_acceptance: z.boolean().optional(),
    },
    WRITE,
    (input) => client.createTransfer(input),
  );
  tool(
    'offer_transfer',
    'Offer a created package: each recipient is e-mailed a claim link; the raw claim tokens are answered only this once.',
    { transfer_id: Id('xfr_…') },
    WRITE,
    (input) => client.offerTransfer(input.transfer_id, true),
  );
  tool(
    'claim_transfer',
    'Claim a package by its token: bound to this principal when it was sent to their e-mail, else a guest capability (download after release).',
    { token: z.string().describe('svcxfer_…') },
    WRITE,
    (input) => client.claimTransfer(input.token),
  );
  tool(
    'accept_transfer',
    'Accept a package (accept-to-unlock): it unlocks once every recipient accepted.',
    { token: z.string().describe('svcxfer_…') },
    WRITE,
    (input) => client.acceptTransfer(input.token),
  );
  tool(
    'download_transfer',
    options.localFiles
      ? 'Download every file of a released package (by claim token, or transfer_id for its sender or a bound recipient) into a folder on this machine, each checked by its SHA-256.'
      : 'Short-lived download URLs of every file of a released package (by claim token, or transfer_id for its sender or a bound recipient), each with its SHA-256.',
    {
      token: z.string().optional().describe('svcxfer_…'),
      transfer_id: z.string().optional().describe('xfr_…'),
      ...(options.localFiles ? { directory: z.string().optional().describe('Folder to write into (default: ./downloads)') } : {}),
    },
    WRITE,
    async (input) => {
      const target = input.token ?? (input.transfer_id ? { transfer_id: input.transfer_id } : undefined);
      if (!target) throw new SvcError('invalid_request', 'Give token or transfer_id.', 400);
      if (!options.localFiles)
        return typeof target === 'string' ? client.mintPublicTransferDownloads(target) : client.mintTransferDownloads(target.transfer_id);
      const directory = (input as { directory?: string }).directory ?? path.resolve('downloads');
      return { files: await client.downloadTransfer(target, directory) };
    },
  );
  tool(
    'cancel_transfer',
    'Cancel a created or offered package: every claim link stops working. Cannot be undone.',
    { transfer_id: Id('xfr_…') },
    {
      ...WRITE,
      destructiveHint: true,
    },
    (input) => client.cancelTransfer(input.transfer_id),
  );

  // Verify
  tool(
    'verify_pdf',
    'Check any PDF: whether each signature and timestamp verifies cryptographically, whether bytes were added after the last one, and whether this service issued it byte for byte (then its document, revision, and who signed it and how: browser, l1, l2 or offer, with the mandate). Answers the report; valid: false comes with the problems in words. Needs no mandate; verifying signs, sends and stores nothing.',
    {
      content_base64: z.string().optional().describe('The PDF, base64-encoded'),
      ...(options.localFiles ? { path: z.string().optional().describe('A PDF on this machine') } : {}),
    },
    READ,
    async (input) => client.verifyPdf((await uploadBytes(input as { path?: string; content_base64?: string }, options)).bytes),
  );

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
  'create_document',
  'send_document',
  'upload_file',
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
