// What every tool file shares: the options, the shapes of common inputs, the annotations and the tool registrar's type.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { type SvcClient, SvcError } from '@svc-agents/sdk';
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

export const NOT_INTENT = 'An API key is never intent to sign: possession of this tool does not let you sign for anyone.';

/**
 * How long sign_as_principal and accept_offer wait for a signature the service still applies after
 * its own wait (202): under the 60 s that MCP clients commonly give a tool call. Past it the tool
 * answers `processing`, and get_document shows the outcome.
 */
export const MCP_APPLY_WAIT_MS = 40_000;
export const Id = (what: string) => z.string().min(1).max(100).describe(what);
export const Reason = z
  .string()
  .min(1)
  .max(2000)
  .describe('Why the principal signs, in words they will read (shown on the certificate trail)');
export const Page = {
  limit: z.number().int().min(1).max(100).optional().describe('Items per page (1–100, default 20)'),
  cursor: z.string().optional().describe('The next_cursor of the previous page'),
};
export const Person = z.object({ name: z.string().min(1).max(200), email: z.string().email() });

export const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
export const IRREVERSIBLE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

/** Registers one tool: its name, the description a model reads, its input schema, annotations, and what it runs. */
export type Tool = <S extends z.ZodRawShape>(
  name: string,
  description: string,
  inputSchema: S,
  annotations: ToolAnnotations,
  run: (input: z.infer<z.ZodObject<S>>) => Promise<unknown>,
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
