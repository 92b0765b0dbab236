// Every configured resource, compiled once; lookups by name on the request path. The set can be replaced
// as a whole while the service runs (a config reload here or on another node): requests look resources up
// per request, and everything compiled from a resource is cached by the Resource object, so a replaced
// resource takes its cached queries and grants with it.
import { createHash } from 'node:crypto';
import type { ResourceDefinition, SvcConfig } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import { compileResource } from './compile-resource.ts';
import type { Resource } from './resource.ts';

export type ResourceDefinitions = SvcConfig['resources'];

/** The same definitions give the same hash whatever the order of their keys. */
export function definitionsHash(definitions: ResourceDefinitions): string {
  return createHash('sha256').update(canonicalJson(definitions)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function compileAll(definitions: ResourceDefinitions): Map<string, Resource> {
  return new Map(
    Object.entries(definitions).map(([name, def]: [string, ResourceDefinition]) => [name, compileResource(name, def)]),
  );
}

export class ResourceRegistry {
  #resources: ReadonlyMap<string, Resource>;
  #definitions: ResourceDefinitions;
  #hash: string;
  #withFiles: boolean;
  readonly #listeners: Array<() => void> = [];

  constructor(config: Pick<SvcConfig, 'resources'>) {
    this.#resources = compileAll(config.resources);
    this.#withFiles = anyFileFields(this.#resources);
    this.#definitions = config.resources;
    this.#hash = definitionsHash(config.resources);
  }

  /** The definitions in force (validated, defaults filled). */
  get definitions(): ResourceDefinitions {
    return this.#definitions;
  }

  get hash(): string {
    return this.#hash;
  }

  /** Swaps every resource at once; compiles first, so a definition that fails to compile changes nothing. */
  replace(definitions: ResourceDefinitions): void {
    const compiled = compileAll(definitions);
    this.#resources = compiled;
    this.#withFiles = anyFileFields(compiled);
    this.#definitions = definitions;
    this.#hash = definitionsHash(definitions);
    for (const listener of [...this.#listeners]) listener();
  }

  /** Called after every replace (documents built from the definitions are rebuilt); answers how to stop. */
  onReplaced(listener: () => void): () => void {
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners.indexOf(listener);
      if (at >= 0) this.#listeners.splice(at, 1);
    };
  }

  /** Whether any resource has a file field: every /v1 answer asks, and most deployments have none. */
  get hasFileFields(): boolean {
    return this.#withFiles;
  }

  all(): Resource[] {
    return [...this.#resources.values()];
  }

  enabled(): Resource[] {
    return this.all().filter((r) => r.enabled);
  }

  find(name: string): Resource | undefined {
    return this.#resources.get(name);
  }

  /** The resource a request names, or the spec's 404 for an unknown or disabled one. */
  require(name: string): Resource {
    const resource = this.#resources.get(name);
    if (!resource) throw new ApiError('RESOURCE_NOT_FOUND', `Resource '${name}' does not exist`);
    if (!resource.enabled) throw new ApiError('RESOURCE_DISABLED', `Resource '${name}' is disabled`);
    return resource;
  }
}

function anyFileFields(resources: ReadonlyMap<string, Resource>): boolean {
  for (const resource of resources.values()) if (resource.fileFields.length > 0) return true;
  return false;
}
