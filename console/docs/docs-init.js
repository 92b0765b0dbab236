// Mounts Scalar's API reference on the service's own OpenAPI document. Everything stays on this
// origin: no web fonts, no proxy, no telemetry, no AI agent; "try it" calls this server directly.
window.Scalar.createApiReference('#reference', {
  url: '/openapi.json',
  baseServerURL: window.location.origin,
  servers: [{ url: window.location.origin, description: 'This server' }],
  withDefaultFonts: false,
  telemetry: false,
  // "Open API Client" opens Scalar's hosted client with this server's URL: hidden, nothing leaves the origin.
  hideClientButton: true,
  // Light mode only, with the muted text colours darkened until they meet WCAG AA contrast (4.5:1).
  forceDarkModeState: 'light',
  hideDarkModeToggle: true,
  customCss: [
    '.light-mode { --scalar-color-2: #4b5563; --scalar-color-3: #4b5563; --scalar-color-disabled: #4b5563; --scalar-color-accent: #1d4ed8; }',
    // The HTTP method badges: the same hues, dark enough on a light background.
    '.light-mode { --scalar-color-green: #166534; --scalar-color-orange: #9a3412; --scalar-color-yellow: #854d0e; --scalar-color-blue: #1d4ed8; --scalar-color-red: #b91c1c; --scalar-color-purple: #6b21a8; }',
    // Links to the vendor's site ("Powered by Scalar") lead away from this origin.
    'a[href*="scalar.com"] { display: none !important; }',
  ].join('\n'),
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  authentication: { preferredSecurityScheme: 'bearer' },
  persistAuth: false,
});
