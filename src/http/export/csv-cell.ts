// One value as an RFC 4180 CSV field, made safe to open in a spreadsheet.
// A text that starts with `=`, `+`, `-`, `@`, a tab or a carriage return would run as a formula in
// Excel, LibreOffice or Google Sheets (CSV injection): it gets a leading `'`, which they show as text.
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** Numbers and booleans are written as they are (a negative number is not a formula); JSON as its text. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A record line, ended by CRLF as RFC 4180 asks. */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
