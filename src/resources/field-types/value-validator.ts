// The one Ajv that checks field values against their type's schema: request bodies (compile-resource)
// and config defaults (check-field-default) use the same keywords, formats and regex engine, so a
// default can never fail its own create.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ajvLinearRegExp } from '../../tools/linear-regex.ts';
import type { JsonSchema } from './field-type.ts';

// ajv-formats is CommonJS: under NodeNext its default import is the module, whose `default` is the plugin.
const addFormats = addFormatsModule.default;
// Field `pattern`s run on values callers choose: a linear-time engine, so none can hang the process.
const ajv = new Ajv2020({ allErrors: true, strict: false, code: { regExp: ajvLinearRegExp } });
addFormats(ajv);

/** A validator of one field's values; throws when the schema itself is malformed (e.g. bounds of the wrong type). */
export function compileValueSchema(schema: JsonSchema): ValidateFunction {
  return ajv.compile(schema);
}
