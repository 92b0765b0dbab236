// `url` fields hold absolute http(s) URLs: a scheme such as `javascript:` or `data:` would be live in any
// client that renders the value as a link.
import type { FieldDefinition } from '../../config/config-types.ts';
import { LENGTH_ATTRIBUTES, stringBounds, textualType, type JsonSchema } from './field-type.ts';

/** The scheme (either case) and the start of a host: what `format: uri` alone does not require. */
export const HTTP_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]';

export const HTTP_URL_MESSAGE = 'must be an absolute http or https URL';

/** The value schema of a url: its own pattern, and the definition's `pattern` (if any) beside it. */
export function urlSchema(field: FieldDefinition, maxLength?: number): JsonSchema {
  const { pattern, ...bounds } = stringBounds(field);
  return {
    type: 'string',
    format: 'uri',
    pattern: HTTP_URL_PATTERN,
    ...(maxLength !== undefined ? { maxLength } : {}),
    ...bounds,
    ...(pattern !== undefined ? { allOf: [{ pattern }] } : {}),
  };
}

export const urlField = textualType('url', (field) => urlSchema(field, 2048), undefined, LENGTH_ATTRIBUTES);
