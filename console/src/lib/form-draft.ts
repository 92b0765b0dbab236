// A form in progress when the session ends (the console's key expired or was revoked): its typed values
// are kept in sessionStorage with the view's address, and put back once the same person signs in again.
// The values are read from the page by element id, so every form (record, webhook, user) is covered
// without each view saving its own state. Passwords and files are never kept.

const STORAGE_KEY = 'svc.console.draft';
/** How long after signing in the restored form may take to appear (a record loads first). */
const RESTORE_WAIT_MS = 10_000;

interface Draft {
  /** Whose form it was: restored only for the same person. */
  who: string;
  hash: string;
  values: Record<string, string | boolean>;
  /** The open dialog's button that showed the form (an existing record's "Edit"), pressed again. */
  reopen: string | null;
}

function fieldsIn(root: ParentNode): (HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement)[] {
  return [
    ...root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
      'form input[id], form textarea[id], form select[id]',
    ),
  ].filter(
    (field) =>
      !(field instanceof HTMLInputElement && ['password', 'file', 'hidden', 'submit', 'button'].includes(field.type)),
  );
}

/** Keeps the page's forms in progress, if any has a value. Called as the session ends, before the page changes. */
export function keepDraft(who: string): void {
  const values: Record<string, string | boolean> = {};
  for (const field of fieldsIn(document)) {
    // Searches and filters are in the address already; putting them back would navigate.
    if (field.closest('form[role="search"], form[aria-label="Filters"]')) continue;
    values[field.id] =
      field instanceof HTMLInputElement && (field.type === 'checkbox' || field.type === 'radio')
        ? field.checked
        : field.value;
  }
  if (Object.keys(values).length === 0) return;
  const heading = document.querySelector('[role="dialog"] h2')?.textContent?.trim() ?? '';
  const draft: Draft = { who, hash: location.hash, values, reopen: heading.startsWith('Edit ') ? 'Edit' : null };
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(draft));
  } catch {
    // Storage full or refused: the form is lost, as it was before.
  }
}

function put(field: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string | boolean): void {
  if (field instanceof HTMLInputElement && (field.type === 'checkbox' || field.type === 'radio'))
    field.checked = value === true;
  else field.value = String(value);
  // The views bind their state to these events.
  field.dispatchEvent(new Event('input', { bubbles: true }));
  field.dispatchEvent(new Event('change', { bubbles: true }));
}

/**
 * After signing in: back to the draft's view, and its values put into the form as its fields appear.
 * A draft of another person is dropped. Resolves with how many fields were restored.
 */
export function restoreDraft(who: string): Promise<number> {
  let draft: Draft | null = null;
  try {
    draft = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Draft | null;
  } catch {
    draft = null;
  }
  sessionStorage.removeItem(STORAGE_KEY);
  if (!draft || draft.who !== who) return Promise.resolve(0);
  if (location.hash !== draft.hash) location.hash = draft.hash;
  const pending = new Map(Object.entries(draft.values));
  let reopen = draft.reopen;
  let restored = 0;
  return new Promise((resolve) => {
    const apply = () => {
      if (reopen) {
        const button = [...document.querySelectorAll<HTMLButtonElement>('[role="dialog"] button')].find(
          (b) => b.textContent?.trim() === reopen,
        );
        if (button) {
          reopen = null;
          button.click();
        }
      }
      for (const [id, value] of pending) {
        const field = document.getElementById(id);
        if (
          field instanceof HTMLInputElement ||
          field instanceof HTMLTextAreaElement ||
          field instanceof HTMLSelectElement
        ) {
          put(field, value);
          pending.delete(id);
          restored++;
        }
      }
      if (pending.size === 0) finish();
    };
    const observer = new MutationObserver(apply);
    const timer = setTimeout(() => finish(), RESTORE_WAIT_MS);
    function finish() {
      observer.disconnect();
      clearTimeout(timer);
      resolve(restored);
    }
    observer.observe(document.body, { childList: true, subtree: true });
    apply();
  });
}
