import { textualType } from './field-type.ts';

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const uuidField = textualType(
  'uuid',
  () => ({ type: 'string', format: 'uuid' }),
  (raw) => (UUID_PATTERN.test(raw) ? undefined : 'expected a UUID'),
);
