// A strict RFC 4180 reader for tests: CRLF-ended records, fields quoted with doubled quotes or bare
// (no quote, comma, CR or LF inside); throws on anything else, so an export that parses is well formed.
export function parseRfc4180(text: string): string[][] {
  const records: string[][] = [];
  let i = 0;
  while (i < text.length) {
    const record: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          const quote = text.indexOf('"', i);
          if (quote < 0) throw new Error(`unterminated quoted field at ${i}`);
          field += text.slice(i, quote);
          i = quote + 1;
          if (text[i] === '"') {
            field += '"';
            i++;
          } else break;
        }
      } else {
        const end = text.slice(i).search(/[,\r\n"]/);
        const stop = end < 0 ? text.length : i + end;
        if (text[stop] === '"' || text[stop] === '\n') throw new Error(`bare quote or LF at ${stop}`);
        field = text.slice(i, stop);
        i = stop;
      }
      record.push(field);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text.startsWith('\r\n', i)) {
        i += 2;
        break;
      }
      throw new Error(`expected a comma or CRLF at ${i}`);
    }
    records.push(record);
  }
  return records;
}
