import { LENGTH_ATTRIBUTES, stringBounds, textualType } from './field-type.ts';

export const emailField = textualType(
  'email',
  (field) => ({ type: 'string', format: 'email', maxLength: 320, ...stringBounds(field) }),
  undefined,
  LENGTH_ATTRIBUTES,
);
