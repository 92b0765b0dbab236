// timestamptz text → Date, as pg's own parser (postgres-date) does it, ~4x faster for the one shape a
// UTC session sends (`2026-11-24 10:11:12.345+00`). Every other shape (another zone, BC, years below
// 100, infinity) goes to pg's parser, so the Date is always the one pg would have made.
const POWERS_OF_TEN = [1, 10, 100, 1000, 10000, 100000, 1000000] as const;

/** The number written in text[from, to), or -1 if a character is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

function isUtcShape(text: string, length: number): boolean {
  return (
    length >= 22 &&
    length <= 29 &&
    text.charCodeAt(length - 3) === 43 && // '+'
    text.charCodeAt(length - 2) === 48 && // '0'
    text.charCodeAt(length - 1) === 48 &&
    text.charCodeAt(4) === 45 && // '-'
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 32 && // ' '
    text.charCodeAt(13) === 58 && // ':'
    text.charCodeAt(16) === 58 &&
    (length === 22 || (length > 23 && text.charCodeAt(19) === 46)) // '.' and at least one digit
  );
}

export function timestamptzParser(fallback: (text: string) => unknown): (text: string) => unknown {
  return (text) => {
    const length = text.length;
    if (!isUtcShape(text, length)) return fallback(text);
    const year = digits(text, 0, 4);
    const month = digits(text, 5, 7);
    const day = digits(text, 8, 10);
    const hour = digits(text, 11, 13);
    const minute = digits(text, 14, 16);
    const second = digits(text, 17, 19);
    const fraction = length > 22 ? digits(text, 20, length - 3) : 0;
    // Date.UTC reads years 0-99 as 1900-1999; pg's parser corrects that, so leave those to it.
    if (year < 100 || (month | day | hour | minute | second | fraction) < 0) return fallback(text);
    // fraction / 10^n is the same correctly rounded double as pg's parseFloat('.ddd'), so the
    // milliseconds (×1000, then truncated by Date.UTC) match it to the last bit.
    const milliseconds = length > 22 ? (fraction / POWERS_OF_TEN[length - 23]!) * 1000 : 0;
    return new Date(Date.UTC(year, month - 1, day, hour, minute, second, milliseconds));
  };
}
