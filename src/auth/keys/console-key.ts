// The web console's own key (POST /token with `console: true`): one per sign-in, deleted at sign-out
// (DELETE /me/key), and short-lived by idle time rather than by a fixed expiry: it stops working once
// unused for CONSOLE_KEY_IDLE_MS, so each request renews it, and the retention job deletes it then.
// Renewal by use leaves `expiresAt` alone, so nothing a request or stream was granted changes under it;
// `expiresAt` is the hard limit of a console session however busy.

/** A console key unused this long is refused (401 API_KEY_EXPIRED) and then pruned. */
export const CONSOLE_KEY_IDLE_MS = 30 * 60 * 1000;
/** The longest a console session lasts, however busy: sign in again after it. */
export const CONSOLE_KEY_MAX_AGE_SECONDS = 12 * 60 * 60;
/** The name a console key gets when the request gives none. */
export const CONSOLE_KEY_NAME = 'console';

/** When the console key stops working if it is not used before: its last use (or issue) plus the idle time. */
export function consoleKeyIdleUntil(key: { lastRequest: string | null; createdAt: string }): number {
  const lastUse = Math.max(Date.parse(key.createdAt), key.lastRequest === null ? 0 : Date.parse(key.lastRequest));
  return lastUse + CONSOLE_KEY_IDLE_MS;
}
