/** JSON schemas of the signal model's values, from the constants its codecs check with. */
import { JSON_OBJECT, type Schema } from '../../kernel/openapi';
import { SIGNAL_ID } from './codecs';

export const SIGNAL_ID_SCHEMA: Schema = { type: 'string', pattern: SIGNAL_ID.source };

export const INSTANCE_SCHEMA: Schema = { ...JSON_OBJECT, description: "The instance's attributes, read by {{ instance.… }}" };

export const PREVIOUS_SCHEMA: Schema = {
  ...JSON_OBJECT,
  description:
    "The instance's attributes before the change (optional): what a condition's previous. paths and $changed compare with, read by {{ previous.… }}",
};
