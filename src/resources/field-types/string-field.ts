import { LENGTH_ATTRIBUTES, stringBounds, textualType } from './field-type.ts';

export const DEFAULT_STRING_MAX_LENGTH = 255;

export const stringField = textualType(
  'string',
  (field) => ({
    type: 'string',
    ...stringBounds(field),
    maxLength: field.maxLength ?? DEFAULT_STRING_MAX_LENGTH,
  }),
  undefined,
  LENGTH_ATTRIBUTES,
);
