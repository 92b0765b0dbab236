// Mounts Scalar's API reference on the service's own OpenAPI document. Everything stays on this
// origin: no web fonts, no proxy, no telemetry, no AI agent; "try it" calls this server directly.
window.Scalar.createApiReference('#reference', {
  url: '/openapi.json',
  baseServerURL: window.location.origin,
  servers: [{ url: window.location.origin, description: 'This server' }],
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  authentication: { preferredSecurityScheme: 'bearer' },
  persistAuth: false,
});
