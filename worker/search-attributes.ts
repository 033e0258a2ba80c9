import type { Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import type { Logger } from '../lib/log';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes';

/** `Keyword`, `KeywordList`, `Datetime` …: the type names the Temporal CLI takes (`--search-attribute Name=Type`, `--type`). */
export function searchAttributeTypeName(key: (typeof SEARCH_ATTRIBUTES)[number]): string {
  return TypedSearchAttributes.toMetadataType(key.type);
}

/** Registers the attributes the namespace lacks, answering their names; throws when the cluster refuses. */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTES.filter((key) => !customAttributes?.[key.name]);
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((key) => [key.name, encodeSearchAttributeIndexedValueType(key.type)!])),
  });
  return missing.map((key) => key.name);
}

/** `temporal operator search-attribute create …` for every attribute the service sets (docs/operations.md). */
export function searchAttributeCommand(namespace: string): string {
  const flags = SEARCH_ATTRIBUTES.map((key) => `--name ${key.name} --type ${searchAttributeTypeName(key)}`);
  return `temporal operator search-attribute create --namespace ${namespace} ${flags.join(' ')}`;
}

/**
 * Registers the service's search attributes on the namespace where they are missing (a dev server's
 * kept database, a self-hosted cluster): what the worker does at boot. Answers the names it added.
 * Where the cluster does not let the service register them (Temporal Cloud, a restricted role), it
 * logs the command to run and goes on: workflows then start without them (workflows/labels.ts).
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string, log?: Logger): Promise<string[]> {
  try {
    const added = await registerSearchAttributes(connection, namespace);
    if (added.length > 0) log?.info('registered the service search attributes', { added });
    return added;
  } catch (error) {
    log?.warn(`could not register the service search attributes; run: ${searchAttributeCommand(namespace)}`, {
      error: (error as Error).message,
    });
    return [];
  }
}
