// CSV for exports that people open in spreadsheets (RFC 4180, CRLF rows). Every cell is quoted, so
// commas, quotes and line breaks inside a value stay inside its cell; a text cell that a spreadsheet
// would run as a formula (= + - @, tab, CR) gets a leading apostrophe (OWASP "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '""';
  let s: string;
  if (typeof value === 'string') s = value;
  else if (value instanceof Date) s = value.toISOString();
  else if (typeof value === 'object') s = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  else s = String(value);
  // A number stays a number (-5 is no formula); anything else starting like a formula is defused.
  if (FORMULA_START.test(s) && !PLAIN_NUMBER.test(s)) s = `'${s}`;
  return `"${s.replaceAll('"', '""')}"`;
}

export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
