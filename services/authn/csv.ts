// A small RFC 4180 reader for the credential files (static tokens today; the same CSV shape is
// used by other file-based authenticators). Unlike a lenient splitter it reports the line of every
// malformed record, so an operator can fix the file from the start-up error alone.

export class CsvError extends Error {
  override name = 'CsvError';
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

export interface CsvRecord {
  /** 1-based line on which the record starts. */
  line: number;
  fields: string[];
}

const isBlank = (c: string) => c === ' ' || c === '\t';

/**
 * Splits `text` into records. Quoted fields may hold commas, newlines and `""` (a literal quote);
 * unquoted fields are trimmed of surrounding spaces and tabs. Blank lines separate nothing and
 * are skipped, as in most CSV readers (a trailing newline must not become a record).
 */
export function parseCsv(text: string): CsvRecord[] {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  const n = src.length;

  const atLineEnd = (j: number) => j >= n || src[j] === '\n' || (src[j] === '\r' && (src[j + 1] === '\n' || j + 1 >= n));
  const skipLineEnd = () => {
    if (src[i] === '\r') i++;
    if (src[i] === '\n') i++;
    line++;
  };

  while (i < n) {
    // Skip blank lines (possibly made of spaces) between records.
    let j = i;
    while (j < n && isBlank(src[j]!)) j++;
    if (atLineEnd(j)) {
      i = j;
      if (i >= n) break;
      skipLineEnd();
      continue;
    }

    const record: CsvRecord = { line, fields: [] };
    for (;;) {
      while (i < n && isBlank(src[i]!)) i++;
      let field = '';
      if (src[i] === '"') {
        const quoteLine = line;
        i++;
        for (;;) {
          if (i >= n) throw new CsvError(quoteLine, 'quoted field is not terminated');
          const c = src[i]!;
          if (c === '"') {
            if (src[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        while (i < n && isBlank(src[i]!)) i++;
        if (!(i >= n || src[i] === ',' || atLineEnd(i))) throw new CsvError(line, 'unexpected text after a closing quote');
      } else {
        const start = i;
        while (i < n && src[i] !== ',' && !atLineEnd(i)) {
          if (src[i] === '"') throw new CsvError(line, 'a quote may only start a field (quote the whole field and double inner quotes)');
          i++;
        }
        field = src.slice(start, i).replace(/[ \t]+$/, '');
      }
      record.fields.push(field);
      if (i < n && src[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    records.push(record);
    if (i < n) skipLineEnd();
  }
  return records;
}
