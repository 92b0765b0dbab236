import { stringBounds, textualType } from './field-type.ts';

export const urlField = textualType('url', (field) => ({ type: 'string', format: 'uri', maxLength: 2048, ...stringBounds(field) }));
