import type { ConnectionLike } from '@temporalio/client';
type OperatorService = temporal.api.operatorservice.v1.OperatorService;
import { temporal } from '@temporalio/proto';
import { ContentType, FailedTriggerIds, SignalName, TriggerIds } from '../dispatch/search-attributes';

const KEYWORD = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
const KEYWORD_LIST = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST;

/** The custom search attributes of src/dispatch/search-attributes.ts, as the server registers them. */
export const SEARCH_ATTRIBUTES = {
  [TriggerIds.name]: KEYWORD_LIST,
  [SignalName.name]: KEYWORD,
  [ContentType.name]: KEYWORD,
  [FailedTriggerIds.name]: KEYWORD_LIST,
};

/** Registers them on the namespace; already registered is fine. */
export const ensureSearchAttributes = async (connection: ConnectionLike & { operatorService: OperatorService }, namespace: string) => {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.fromEntries(Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !(name in (existing.customAttributes ?? {}))));
  if (Object.keys(missing).length === 0) return;
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (e) {
    if (!/already exists/i.test(String((e as Error).message))) throw e;
  }
};
