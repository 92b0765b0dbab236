// The signed-in credential, kept only in sessionStorage (gone when the tab closes; never in a URL or a log).
import type { Session } from './api.ts';

export type { Session };

const STORAGE_KEY = 'svc.console.session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (raw === null) return null;
    const parsed = JSON.parse(raw) as Partial<Session>;
    if ((parsed.kind === 'admin' || parsed.kind === 'user') && typeof parsed.token === 'string')
      return parsed as Session;
  } catch {
    // Storage unavailable or corrupt: start signed out.
  }
  return null;
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

export function forgetSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
