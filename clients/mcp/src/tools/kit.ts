// What every tool file shares: the options, the shapes of common inputs, the annotations and the tool registrar's type.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { type Body, OPERATION_INPUTS, type OperationId, type Query, type SvcClient, SvcError } from '@svc-agents/sdk';
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
  /**
   * The service's app (SVC_APP_URL), for the page where the principal grants a missing mandate.
   * Default: `<baseUrl>/app`.
   */
  appUrl?: string;
}

/** What every signing tool's description teaches; a confirm link the agent holds does not let it confirm either. */
export const NOT_INTENT =
  'An API key or an access token is never intent to sign: possession of this tool (or of a confirm link) does not let you sign for anyone; only the principal, signed in to the app, confirms.';

/**
 * How long sign_as_principal and accept_offer wait for a signature the service still applies after
 * its own wait (202): under the 60 s that MCP clients commonly give a tool call. Past it the tool
 * answers `processing`, and get_document shows the outcome.
 */
export const MCP_APPLY_WAIT_MS = 40_000;
/** The words a model reads for a signing reason (the API's schema gives its bounds). */
export const REASON = 'Why the principal signs, in words they will read (shown on the certificate trail)';

type Json = Record<string, unknown>;
type OrNothing<T> = [T] extends [never] ? object : T;
/** What an operation takes as one flat input: its JSON body, its query, and its path parameters under the tool's names. */
export type InputOf<K extends OperationId, P extends string = never> = OrNothing<Body<K>> & OrNothing<Query<K>> & { [name in P]: string };

/**
 * A tool's input schema, made from what the REST operation takes (the OpenAPI document, itself the
 * routes' zod schemas; generated into the SDK as OPERATION_INPUTS): its JSON body's fields, its query
 * parameters, and its path parameters under the names the tool gives them (`{ id: 'document_id' }`).
 * Nothing is declared twice: a field, bound or enum changed in the API changes the tool. Rules that
 * span fields (one of template_id or drive_file_id …) stay the API's, which answers them as it does on
 * REST. `describe` adds words for a model where the API's schema has none (the id's prefix …).
 */
export function inputOf<K extends OperationId, P extends string = never, O extends string = never>(
  operation: K,
  options: {
    /** The tool's names for the path parameters (`{ id: 'document_id' }`). */
    path?: Record<string, P>;
    /** Fields the tool fills itself (a `confirm: true` it always sends). */
    omit?: O[];
    /** Words for a model where the API's schema has none. */
    describe?: Partial<Record<string, string>>;
  } = {},
): { [F in Exclude<keyof InputOf<K, P>, O>]-?: z.ZodType<InputOf<K, P>[F]> } {
  const input = (OPERATION_INPUTS as Record<string, { path: Record<string, Json>; query: Record<string, Json>; body?: Json }>)[operation];
  const body = (input.body ?? {}) as { properties?: Record<string, Json>; required?: string[] };
  const fields: Array<[name: string, schema: Json, required: boolean]> = [
    ...Object.entries(input.path).map(([name, schema]): [string, Json, boolean] => [options.path?.[name] ?? name, schema, true]),
    ...Object.entries(input.query).map(([name, { required, ...schema }]): [string, Json, boolean] => [name, schema, required === true]),
    ...Object.entries(body.properties ?? {}).map(([name, schema]): [string, Json, boolean] => [
      name,
      schema,
      (body.required ?? []).includes(name),
    ]),
  ];
  const shape: Record<string, z.ZodType> = {};
  for (const [name, schema, required] of fields) {
    if ((options.omit as string[] | undefined)?.includes(name)) continue;
    let field: z.ZodType = z.fromJSONSchema(schema as never);
    const words = options.describe?.[name];
    if (words) field = field.describe(words);
    shape[name] = required ? field : field.optional();
  }
  return shape as never;
}

export const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
export const IRREVERSIBLE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

/** What the principal must do in the app after a tool's call, read from the REST API's answer. */
export interface Confirmation {
  /** The page where the principal decides (the confirm_url). */
  url: string;
  /** The sentence for the agent's user: open the URL and confirm. */
  message: string;
  /** The sign request the principal decides on (ends the elicitation when it ends). */
  signRequestId: string;
}

/**
 * A tool that may need the principal: `confirm` reads from its answer whether the principal must act
 * (the URL then goes in the result, and in an elicitation where the client takes one); `task` names
 * the task that follows the principal's decision, for a client that asks for one (tools/call with
 * `task`).
 */
export interface PrincipalTool {
  confirm(value: unknown): Confirmation | undefined;
  task(value: unknown): string;
}

/** Registers one tool: its name, the description a model reads, its input schema, annotations, and what it runs. */
export type Tool = <S extends z.ZodRawShape>(
  name: string,
  description: string,
  inputSchema: S,
  annotations: ToolAnnotations,
  run: (input: z.infer<z.ZodObject<S>>) => Promise<unknown>,
  principal?: PrincipalTool,
) => void;

/** What a tool file registers its tools with. */
export interface ToolKit {
  tool: Tool;
  client: SvcClient;
  options: McpOptions;
}

/** Reads the bytes of an upload: base64 content (any transport) or a local path (stdio only). */
export async function uploadBytes(
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
