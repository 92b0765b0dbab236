// Checks real answers against the OpenAPI document the app itself serves: the status must be declared for
// the operation, the body must match the schema declared for that status and media type, and an error's
// code must be named in that response's description.
import assert from 'node:assert/strict';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { LightMyRequestResponse } from 'fastify';
import { strictAjv } from './openapi-fixtures.ts';

type Json = Record<string, unknown>;

const DOCUMENT_ID = 'urn:svc:openapi';

export class ResponseConformance {
  readonly #paths: Record<string, Record<string, Json>>;
  readonly #ajv = strictAjv();
  readonly #validators = new Map<string, ValidateFunction>();
  /** `METHOD template status` of every answer checked, to prove each operation was exercised. */
  readonly seen = new Set<string>();

  constructor(document: Json) {
    this.#paths = document.paths as Record<string, Record<string, Json>>;
    // The `$ref`s point at `#/components/schemas/…` of the document: adding its components under an id
    // lets Ajv resolve them there. `components` itself is only a container, not a keyword to check.
    this.#ajv.addKeyword({ keyword: 'components' });
    this.#ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: (document.components as Json).schemas } });
  }

  #validator(ref: string): ValidateFunction {
    let validate = this.#validators.get(ref);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `${DOCUMENT_ID}${ref}` });
      this.#validators.set(ref, validate);
    }
    return validate;
  }

  /** Asserts that `response` is one the document declares for `METHOD template`; returns its JSON body. */
  check(method: string, template: string, response: LightMyRequestResponse): unknown {
    const where = `${method} ${template} → ${response.statusCode}`;
    const operation = this.#paths[template]?.[method.toLowerCase()] as Json | undefined;
    assert.ok(operation, `${method} ${template} is not in the document`);
    const declared = (operation.responses as Record<string, Json>)[String(response.statusCode)];
    assert.ok(declared, `${where}: status not declared (${response.body})`);
    this.seen.add(`${method} ${template} ${response.statusCode}`);
    const content = declared.content as Record<string, Json> | undefined;
    if (!content) {
      assert.equal(response.body, '', `${where}: declared without a body`);
      return undefined;
    }
    const mediaType = String(response.headers['content-type']).split(';')[0]!.trim();
    const described = content[mediaType];
    assert.ok(described, `${where}: ${mediaType} not declared (declared: ${Object.keys(content).join(', ')})`);
    const ref = (described.schema as Json).$ref as string;
    const body: unknown = response.json();
    const validate = this.#validator(ref);
    assert.ok(
      validate(body),
      `${where}: body does not match ${ref}: ${JSON.stringify(validate.errors)}\n${response.body}`,
    );
    if (response.statusCode >= 400) {
      // The response's description names the codes this status can carry, in either error form.
      const document = body as Json;
      const codes = Array.isArray(document.errors) ? (document.errors as Json[]).map((e) => e.code) : [document.code];
      for (const code of codes.filter((c) => c !== undefined)) {
        assert.ok(
          String(declared.description).includes(`\`${code as string}\``),
          `${where}: ${code as string} not declared`,
        );
      }
    }
    return body;
  }
}
