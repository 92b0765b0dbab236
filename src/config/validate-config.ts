// Validates a parsed config once: the JSON Schema (every error, not the first), then the rules the
// schema cannot say (the settings' own here, the resource definitions' handed in); fills defaults on a
// copy and returns it deep-frozen.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { SvcConfig } from './config-types.ts';
import { CONFIG_SCHEMA } from './config-schema.ts';
import type { DefinitionChecks } from './definition-checks.ts';
import { checkRoles } from './check-roles.ts';
import { checkSettings } from './check-settings.ts';
import { joinPath, pointerToDotted, sortProblemsByDocument, type ConfigProblem } from './config-problem.ts';
import { deepFreeze } from '../tools/deep-freeze.ts';
import { isRecord } from '../tools/is-record.ts';

export type { ConfigProblem } from './config-problem.ts';

export interface ValidateConfigOptions {
  /**
   * JSON pointers of strings that came from `${…}` interpolation or an environment override.
   * Where the schema wants a number or a boolean, their text is read as one ("3000" → 3000);
   * an empty one counts as absent, so the default applies. Strings written in the file stay strings.
   */
  coercible?: ReadonlySet<string>;
}

export interface ValidatedConfig {
  config?: SvcConfig;
  problems: ConfigProblem[];
}

/**
 * The schema's compiled validator is 1.6 MB of generated code and schema that a running service needs
 * only when it loads definitions (at start, on a reload, when another node changed them). It is kept
 * for a while after its last use, since a start validates more than once, then left to the collector;
 * compiling it again takes 100-200 ms.
 */
export const KEEP_CONFIG_VALIDATOR_MS = 60_000;
let kept: { validate: ValidateFunction; release: NodeJS.Timeout } | undefined;

/** The config schema's validator: the one kept, or a new one. */
export function configSchemaValidator(): ValidateFunction {
  if (kept) clearTimeout(kept.release);
  const validate = kept?.validate ?? compileConfigSchema();
  const release = setTimeout(() => {
    kept = undefined;
  }, KEEP_CONFIG_VALIDATOR_MS);
  release.unref();
  kept = { validate, release };
  return validate;
}

function compileConfigSchema(): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true, verbose: true, strict: true, allowUnionTypes: true });
  return ajv.compile(CONFIG_SCHEMA);
}

export function validateConfigWith(
  definitions: DefinitionChecks,
  raw: unknown,
  options: ValidateConfigOptions = {},
): ValidatedConfig {
  // Defaults are filled in place: work on a copy so the caller's object is left as it was.
  const data: unknown = structuredClone(raw);
  const validateSchema = configSchemaValidator();
  let valid = validateSchema(data);
  for (let round = 0; !valid && options.coercible?.size && round < 3; round++) {
    if (!coerceInterpolated(data, validateSchema.errors ?? [], options.coercible)) break;
    valid = validateSchema(data);
  }

  const problems = valid ? [] : schemaProblems(validateSchema.errors ?? []);
  if (isRecord(data)) {
    definitions.prepare(data.resources);
    problems.push(...checkSettings(data), ...definitions.check(data.resources), ...checkRoles(data));
  }
  const unique = sortProblemsByDocument(dedupe(problems), data);
  if (unique.length > 0 || !isRecord(data)) return { problems: unique };

  delete data.$schema; // an editor hint, not configuration
  return { config: deepFreeze(data as unknown as SvcConfig), problems: [] };
}

function dedupe(problems: ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\n${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Reads interpolated strings as the numbers or booleans the schema asks for; true when any changed. */
function coerceInterpolated(data: unknown, errors: ErrorObject[], coercible: ReadonlySet<string>): boolean {
  let changed = false;
  for (const error of errors) {
    if (error.keyword !== 'type' || !coercible.has(error.instancePath)) continue;
    const slot = locate(data, error.instancePath);
    if (!slot || typeof slot.value !== 'string') continue;
    const wanted = String(error.params.type).split(',');
    const text = slot.value.trim();
    if (text === '' && !Array.isArray(slot.parent)) {
      delete slot.parent[slot.key];
      changed = true;
      continue;
    }
    const value = readAs(text, wanted);
    if (value !== undefined) {
      slot.parent[slot.key] = value;
      changed = true;
    }
  }
  return changed;
}

function readAs(text: string, types: string[]): number | boolean | undefined {
  if (types.includes('integer') && /^[+-]?\d+$/.test(text)) return Number(text);
  if (types.includes('number') && /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return undefined;
}

function locate(
  root: unknown,
  pointer: string,
): { parent: Record<string, unknown>; key: string; value: unknown } | undefined {
  const keys =
    pointer === ''
      ? []
      : pointer
          .slice(1)
          .split('/')
          .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = keys.pop();
  if (last === undefined) return undefined;
  let node = root;
  for (const key of keys) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  if (node === null || typeof node !== 'object') return undefined;
  const parent = node as Record<string, unknown>;
  return { parent, key: last, value: parent[last] };
}

/** ajv errors as problems at dotted paths, in words a config author reads. */
function schemaProblems(errors: ErrorObject[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const typed = new Set<string>();
  for (const error of errors) {
    // `if` only says a then/else branch failed (that branch's own error is listed); names are
    // checked by checkResources with clearer messages than propertyNames gives.
    if (error.keyword === 'if' || error.keyword === 'propertyNames' || error.propertyName !== undefined) continue;
    const path = pointerToDotted(error.instancePath);
    const problem = describe(error, path);
    if (error.keyword === 'type') {
      // A union type (true or a rule, "*" or a list) fails once at the top and again in its branch.
      if (typed.has(problem.path)) continue;
      typed.add(problem.path);
    }
    problems.push(problem);
  }
  return problems;
}

const TRUE_OR_RULE = 'must be true or an object (leave the action out to forbid it)';
const STAR_OR_LIST = 'must be "*" or a list of field names';

function describe(error: ErrorObject, path: string): ConfigProblem {
  const params = error.params as Record<string, unknown>;
  const parentSchema = (error.parentSchema ?? {}) as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: joinPath(path, String(params.missingProperty)), message: 'is required' };
    case 'additionalProperties': {
      const known = Object.keys(isRecord(parentSchema.properties) ? parentSchema.properties : {}).filter(
        (k) => k !== '$schema',
      );
      const isOperator = known.includes('eq');
      const what = isOperator ? 'unknown operator' : 'unknown key';
      return {
        path: joinPath(path, String(params.additionalProperty)),
        message: known.length > 0 ? `${what} (expected one of: ${known.join(', ')})` : what,
      };
    }
    case 'type': {
      const types = String(params.type); // a string, or a list for union types
      if (path === '') return { path, message: 'the config must be an object (a YAML mapping)' };
      if (types === 'boolean,object') return { path, message: TRUE_OR_RULE };
      if (types === 'string,array') return { path, message: STAR_OR_LIST };
      return { path, message: `must be ${types.split(',').join(' or ')}` };
    }
    case 'enum':
      return { path, message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}` };
    case 'const':
      if (params.allowedValue === true) return { path, message: TRUE_OR_RULE };
      if (params.allowedValue === '*') return { path, message: STAR_OR_LIST };
      return { path, message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'minLength':
      return { path, message: params.limit === 1 ? 'must not be empty' : (error.message ?? 'is too short') };
    case 'minProperties':
      if (isRecord(parentSchema.properties) && 'eq' in parentSchema.properties) {
        return { path, message: `needs an operator (${Object.keys(parentSchema.properties).join(', ')})` };
      }
      return { path, message: error.message ?? 'is invalid' };
    case 'pattern':
      return { path, message: params.pattern === '^/' ? 'must start with /' : `must match ${String(params.pattern)}` };
    default:
      return { path, message: error.message ?? 'is invalid' };
  }
}
