// The one Ajv every request body is checked with: each body's schema is compiled once, when its route
// is registered, with the formats the schemas name and the linear-time regex engine (a pattern never
// runs on a caller's text in more than linear time).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { ajvLinearRegExp } from '../../tools/linear-regex.ts';

// ajv-formats is CommonJS: under NodeNext its default import is the module, whose `default` is the plugin.
const addFormats = addFormatsModule.default;
// strictSchema off: the schemas carry OpenAPI's annotations (`examples`, `writeOnly`) and `components`.
// verbose: an error names the schema node it failed in, whose own words (`x-problem`) schema-issues.ts uses.
// strictTypes off: a rule beside a member's type applies, as JSON Schema says, only to values of its type
// (the Atomic Operations document leaves the type of a write's members to the write's own reading).
const ajv = new Ajv2020({
  allErrors: true,
  strictSchema: false,
  strictTypes: false,
  verbose: true,
  code: { regExp: ajvLinearRegExp },
});
addFormats(ajv);

/**
 * A validator of `schema`, whose `$ref`s name `#/components/schemas/<name>` as the OpenAPI document does:
 * the components it refers to are given beside it, so the same schema serves both.
 */
export function compileBodySchema(
  schema: JsonSchema,
  components: Readonly<Record<string, JsonSchema>>,
): ValidateFunction {
  return ajv.compile({ ...schema, components: { schemas: components } });
}
