// The package's public API: `import { createSvc, defineHooks, ApiError } from 'svc'` (docs/hooks.md).
// Everything a hooks file or an embedding application may use is exported here and nowhere else;
// the rest of src/ is internal and may change in any release.
export { createSvc } from './create-svc.ts';
export type { CreateSvcOptions, Svc } from './create-svc.ts';
export { defineHooks } from './hooks/define-hooks.ts';
export { Refusal as ApiError } from './errors/refusal.ts';
export type { RefusalSource as ApiErrorSource } from './errors/refusal.ts';
export type {
  AfterContext,
  BeforeCreateContext,
  BeforeDeleteContext,
  BeforeUpdateContext,
  Caller,
  HookApp,
  HookRequest,
  HooksDefinition,
  ListQueryInput,
  RecordAccessor,
  Records,
  RecordsOptions,
  RequestSvc,
  ResourceHooks,
  RouteAuth,
  RouteHandler,
  RouteOptions,
  RoutesFunction,
} from './hooks/hook-types.ts';
export type { RecordEvent, EventKind } from './model/record-event.ts';
export type { RecordValues } from './model/record-values.ts';
export type { SvcConfig } from './config/config-types.ts';
