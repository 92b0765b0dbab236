// Small display helpers shared by the views.
export function display(value: unknown): string {
  if (value === null || value === undefined) return '—';
  // A file field's metadata (one or a list) reads as its file names.
  const files = Array.isArray(value) ? value : [value];
  if (files.length > 0 && files.every((f) => typeof f?.url === 'string' && typeof f?.name === 'string'))
    return files.map((f) => f.name).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function shortId(id: string): string {
  return id.length > 13 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id;
}

/** A record's most readable attribute: its first short string other than the id. */
export function labelOf(attributes: Record<string, unknown> | undefined, id: string): string {
  for (const value of Object.values(attributes ?? {})) {
    if (
      typeof value === 'string' &&
      value.length > 0 &&
      value.length <= 80 &&
      value !== id &&
      !/^\d{4}-\d\d-\d\dT/.test(value)
    )
      return value;
  }
  return shortId(id);
}

export function when(iso: unknown): string {
  if (typeof iso !== 'string') return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
