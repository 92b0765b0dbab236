// The rules on resource definitions that JSON Schema cannot say live with the field types
// (src/resources/checks/); the config validator is handed them, so config/ knows settings only.
import type { ConfigProblem } from './config-problem.ts';

export interface DefinitionChecks {
  /** Fills in defaults that depend on a field's type, on the defaulted copy, before any check runs. */
  prepare(resources: unknown): void;
  /** Problems of `resources`, each at its dotted path. */
  check(resources: unknown): ConfigProblem[];
}
