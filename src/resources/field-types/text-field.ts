import { LENGTH_ATTRIBUTES, stringBounds, textualType } from './field-type.ts';

export const textField = textualType(
  'text',
  (field) => ({ type: 'string', ...stringBounds(field) }),
  undefined,
  LENGTH_ATTRIBUTES,
);
