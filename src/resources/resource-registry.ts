// Every configured resource, compiled once at start; lookups by name on the request path.
import type { SvcConfig } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import { compileResource } from './compile-resource.ts';
import type { Resource } from './resource.ts';

export class ResourceRegistry {
  readonly #resources: ReadonlyMap<string, Resource>;

  constructor(config: Pick<SvcConfig, 'resources'>) {
    this.#resources = new Map(Object.entries(config.resources).map(([name, def]) => [name, compileResource(name, def)]));
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
