// `defineHooks({...})`: the hooks file's default export, typed. It returns its argument unchanged: a
// plain object works as well.
import type { HooksDefinition } from './hook-types.ts';

export function defineHooks<T extends HooksDefinition>(hooks: T): T {
  return hooks;
}
