/** JSON schemas of the trigger model's values, from the constants its codecs check with. */
import type { Schema } from '../../kernel/openapi';
import { NON_BLANK } from '../../kernel/closed';
import { MAX_CONTENT_TYPE_PART, TRIGGER_ID } from './codecs';

export const CONTENT_TYPE_PART: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_CONTENT_TYPE_PART,
  pattern: NON_BLANK,
  description: 'Not blank; matched case-insensitively',
};
export const TRIGGER_ID_SCHEMA: Schema = { type: 'string', format: 'uuid', pattern: TRIGGER_ID };
