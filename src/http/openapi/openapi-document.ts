// The OpenAPI 3.1 description of the public API (`/openapi.json`, `/openapi.yaml`, `svc openapi`):
// every enabled resource's endpoints, `/token` and the identity endpoints users call, `/me`, the description
// itself, the health probes and the admin endpoints (resource definitions, webhooks, users, API keys, reload).
// The parts live in ./openapi/; this module assembles them.
import type { SvcConfig } from '../../config/config-types.ts';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import { ERROR_DOCUMENT_SCHEMA, errorDocumentSchema } from './error-responses.ts';
import { allocateOpenApiNames } from './openapi-names.ts';
import type { OpenApiObject } from './openapi-refs.ts';
import { NEGOTIATED, resourcePaths } from './resource-paths.ts';
import { RECORD_HISTORY_SCHEMAS, recordHistoryPath, recordHistorySchemas } from './record-history-path.ts';
import { relatedPaths } from './related-paths.ts';
import { filePaths } from './file-paths.ts';
import { resourceSchemas } from './resource-schemas.ts';
import {
  AUTH_TAG,
  META_TAG,
  SERVICE_OPERATIONS,
  SERVICE_SCHEMAS,
  servicePaths,
  serviceSchemas,
} from './service-paths.ts';
import { callerSecurity, securitySchemes, sharedHeaders, sharedParameters } from './shared-components.ts';
import {
  ADMIN_OPERATIONS,
  ADMIN_SCHEMAS,
  ADMIN_TAG,
  adminResourcePaths,
  adminSchemas,
  adminSecuritySchemes,
} from './admin-resource-paths.ts';
import {
  ADMIN_WEBHOOK_OPERATIONS,
  ADMIN_WEBHOOK_SCHEMAS,
  adminWebhookPaths,
  adminWebhookSchemas,
} from './admin-webhook-paths.ts';
import {
  ADMIN_ACCOUNT_OPERATIONS,
  ADMIN_ACCOUNT_SCHEMAS,
  adminAccountPaths,
  adminAccountSchemas,
} from './admin-account-paths.ts';
import { TOKEN_OPERATIONS, TOKEN_SCHEMAS, tokenPath, tokenSchemas } from './token-path.ts';
import { IDENTITY_OPERATIONS, IDENTITY_TAG, identityPaths, identitySecuritySchemes } from './identity-paths.ts';
import { IDENTITY_SCHEMAS, identitySchemas } from './identity-schemas.ts';
import { ACCOUNT_OPERATIONS, ACCOUNT_SCHEMAS, accountPaths, accountSchemas } from './account-paths.ts';
import {
  SIGN_IN_PLUGIN_OPERATIONS,
  SIGN_IN_PLUGIN_SCHEMAS,
  signInPluginPaths,
  signInPluginSchemas,
} from './sign-in-plugin-paths.ts';
import { ADMIN_ROLE_OPERATIONS, ADMIN_ROLE_SCHEMAS, adminRolePaths, adminRoleSchemas } from './admin-role-paths.ts';
import { OWN_KEY_OPERATIONS, ownKeyPaths } from './own-key-paths.ts';
import { METRICS_OPERATIONS, metricsPaths } from './metrics-path.ts';
import {
  ADMIN_DELETED_RECORD_OPERATIONS,
  ADMIN_DELETED_RECORD_SCHEMAS,
  adminDeletedRecordPaths,
  adminDeletedRecordSchemas,
} from './admin-deleted-record-paths.ts';
import {
  IDENTITY_AND_RELOAD_OPERATIONS,
  IDENTITY_AND_RELOAD_SCHEMAS,
  identityAndReloadPaths,
  identityAndReloadSchemas,
} from './identity-and-reload-paths.ts';
import {
  OPERATIONS_OPERATIONS,
  OPERATIONS_SCHEMAS,
  OPERATIONS_TAG,
  operationsPaths,
  operationsSchemas,
} from './operations-path.ts';
import { JSON_API_DOCUMENT_NAME, JSON_API_DOCUMENT_SCHEMA } from '../bodies/json-api-document-body.ts';
import { MULTI_STREAM_OPERATIONS, MULTI_STREAM_TAG, multiStreamPaths } from './multi-stream-path.ts';

export const OPENAPI_VERSION = '3.1.0';

export function buildOpenApiDocument(registry: ResourceRegistry, config: SvcConfig): Record<string, unknown> {
  const resources = registry.enabled();
  const names = allocateOpenApiNames(
    resources,
    [
      ERROR_DOCUMENT_SCHEMA,
      ...SERVICE_SCHEMAS,
      ...ADMIN_SCHEMAS,
      ...ADMIN_WEBHOOK_SCHEMAS,
      ...ADMIN_ACCOUNT_SCHEMAS,
      ...IDENTITY_AND_RELOAD_SCHEMAS,
      ...TOKEN_SCHEMAS,
      ...IDENTITY_SCHEMAS,
      ...ACCOUNT_SCHEMAS,
      ...SIGN_IN_PLUGIN_SCHEMAS,
      ...ADMIN_ROLE_SCHEMAS,
      ...ADMIN_DELETED_RECORD_SCHEMAS,
      ...RECORD_HISTORY_SCHEMAS,
      ...OPERATIONS_SCHEMAS,
      JSON_API_DOCUMENT_NAME,
    ],
    [
      ...SERVICE_OPERATIONS,
      ...ADMIN_OPERATIONS,
      ...ADMIN_WEBHOOK_OPERATIONS,
      ...ADMIN_ACCOUNT_OPERATIONS,
      ...IDENTITY_AND_RELOAD_OPERATIONS,
      ...TOKEN_OPERATIONS,
      ...IDENTITY_OPERATIONS,
      ...ACCOUNT_OPERATIONS,
      ...SIGN_IN_PLUGIN_OPERATIONS,
      ...ADMIN_ROLE_OPERATIONS,
      ...OWN_KEY_OPERATIONS,
      ...ADMIN_DELETED_RECORD_OPERATIONS,
      ...METRICS_OPERATIONS,
      ...OPERATIONS_OPERATIONS,
      ...MULTI_STREAM_OPERATIONS,
    ],
  );

  const paths: Record<string, OpenApiObject> = {};
  const schemas: Record<string, unknown> = {
    [ERROR_DOCUMENT_SCHEMA]: errorDocumentSchema(),
    ...serviceSchemas(),
    ...tokenSchemas(config),
    ...identitySchemas(config),
    ...adminSchemas(),
  };
  Object.assign(schemas, accountSchemas(), signInPluginSchemas(config));
  Object.assign(
    schemas,
    adminWebhookSchemas(),
    adminAccountSchemas(),
    identityAndReloadSchemas(),
    adminRoleSchemas(),
    adminDeletedRecordSchemas(),
    recordHistorySchemas(),
  );
  const tags: OpenApiObject[] = [];
  for (const resource of resources) {
    const resourceNames = names.get(resource.name);
    // allocateOpenApiNames names every resource it is given; a miss would be a bug in it.
    if (!resourceNames) throw new Error(`no OpenAPI names allocated for resource '${resource.name}'`);
    Object.assign(paths, resourcePaths(resource, resourceNames, config));
    Object.assign(paths, recordHistoryPath(resource.name, resourceNames, config, NEGOTIATED));
    Object.assign(paths, relatedPaths(resource, resourceNames, new Set(resources.map((r) => r.name)), config));
    Object.assign(paths, filePaths(resource, resourceNames, config));
    Object.assign(schemas, resourceSchemas(resource, resourceNames));
    const tag: OpenApiObject = { name: resource.name };
    if (resource.definition.description !== undefined) tag.description = resource.definition.description;
    tags.push(tag);
  }
  Object.assign(
    paths,
    tokenPath(config),
    identityPaths(config),
    servicePaths(config),
    identityAndReloadPaths(config),
    adminResourcePaths(),
    adminWebhookPaths(),
    adminAccountPaths(),
  );
  Object.assign(paths, accountPaths(config), signInPluginPaths(config));
  Object.assign(
    paths,
    ownKeyPaths(),
    adminRolePaths(),
    adminDeletedRecordPaths(),
    metricsPaths(config),
    operationsPaths(config),
    multiStreamPaths(
      config,
      resources.map((resource) => resource.name),
    ),
  );
  Object.assign(
    schemas,
    operationsSchemas(
      config,
      resources.map((resource) => resource.name),
    ),
    { [JSON_API_DOCUMENT_NAME]: JSON_API_DOCUMENT_SCHEMA },
  );
  tags.push(
    { name: OPERATIONS_TAG, description: 'Several writes as one transaction (JSON:API Atomic Operations)' },
    { name: MULTI_STREAM_TAG, description: 'The events of several resources on one connection' },
    { name: AUTH_TAG, description: 'Issuing API keys, and who holds one' },
    {
      name: IDENTITY_TAG,
      description:
        'Signing up, signing in and sessions, through the identity component under `' + config.auth.basePath + '`',
    },
    { name: META_TAG, description: 'This description and health probes' },
    { name: ADMIN_TAG, description: 'Administration with the admin token' },
  );

  const document: Record<string, unknown> = {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'svc',
      version: '1.0.0',
      description:
        'Generated REST API in JSON:API form. Resource endpoints live under `/v1` and need `Authorization: Bearer <API_KEY>`; ' +
        'keys are issued by `POST /token`. Errors are JSON:API error documents (`application/vnd.api+json`), except those ' +
        `the identity component under \`${config.auth.basePath}\` answers itself, which are \`{ code, message }\` objects.`,
      // svc serves many APIs; who answers for this one is whoever runs it.
      contact: { name: 'The operators of this service' },
    },
  };
  // `/` resolves against the address the document was fetched from, which is right unless the API is
  // published under another public URL (auth.baseUrl).
  const publicUrl = config.auth.baseUrl?.trim().replace(/\/+$/, '');
  document.servers = [
    publicUrl
      ? { url: publicUrl, description: 'The public URL of this service' }
      : { url: '/', description: 'This server' },
  ];
  document.security = callerSecurity(config);
  document.tags = tags;
  document.paths = paths;
  document.components = {
    securitySchemes: { ...securitySchemes(config), ...identitySecuritySchemes(config), ...adminSecuritySchemes() },
    schemas,
    parameters: sharedParameters(config),
    headers: sharedHeaders(config),
  };
  return document;
}
