// The field-type registry: one entry per field type (docs/configuration.md lists them).
import type { FieldTypeName } from '../../config/config-types.ts';
import type { FieldType } from './field-type.ts';
import { stringField } from './string-field.ts';
import { textField } from './text-field.ts';
import { integerField } from './integer-field.ts';
import { numberField } from './number-field.ts';
import { booleanField } from './boolean-field.ts';
import { datetimeField } from './datetime-field.ts';
import { dateField } from './date-field.ts';
import { uuidField } from './uuid-field.ts';
import { emailField } from './email-field.ts';
import { urlField } from './url-field.ts';
import { enumField } from './enum-field.ts';
import { jsonField } from './json-field.ts';
import { relationField } from './relation-field.ts';
import { fileField, filesField } from './file-field.ts';

export const FIELD_TYPES: Readonly<Record<FieldTypeName, FieldType>> = {
  string: stringField,
  text: textField,
  integer: integerField,
  number: numberField,
  boolean: booleanField,
  datetime: datetimeField,
  date: dateField,
  uuid: uuidField,
  email: emailField,
  url: urlField,
  enum: enumField,
  json: jsonField,
  relation: relationField,
  file: fileField,
  files: filesField,
};

export type { FieldType, JsonSchema } from './field-type.ts';
