import type { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import protos from '@temporalio/proto';
import type { Logger } from '../lib/log';
import { SEARCH_ATTRIBUTE_TYPE_NAMES, SEARCH_ATTRIBUTES } from '../workflows/search-attributes';

const { IndexedValueType } = protos.temporal.api.enums.v1;

const INDEXED: Record<SearchAttributeType, protos.temporal.api.enums.v1.IndexedValueType> = {
  [SearchAttributeType.TEXT]: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  [SearchAttributeType.KEYWORD]: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  [SearchAttributeType.INT]: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  [SearchAttributeType.DOUBLE]: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  [SearchAttributeType.BOOL]: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  [SearchAttributeType.DATETIME]: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  [SearchAttributeType.KEYWORD_LIST]: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** Registers the attributes the namespace lacks, answering their names; throws when the cluster refuses. */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTES.filter((key) => !customAttributes?.[key.name]);
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((key) => [key.name, INDEXED[key.type]])),
  });
  return missing.map((key) => key.name);
}

/** `temporal operator search-attribute create …` for every attribute the service sets (docs/operations.md). */
export function searchAttributeCommand(namespace: string): string {
  const flags = SEARCH_ATTRIBUTES.map((key) => `--name ${key.name} --type ${SEARCH_ATTRIBUTE_TYPE_NAMES[key.type]}`);
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
