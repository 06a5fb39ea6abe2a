/**
 * CSV of result rows (RFC 4180): a header row, CRLF line ends, a field quoted when it holds a
 * comma, a quote or a line break (quotes doubled). Nested values (records, arrays) are their JSON
 * text. NULL is an empty field and the empty string is `""`, so the two stay apart for readers
 * that tell them apart (PostgreSQL's COPY, pandas with keep_default_na).
 */
import type { WireRow, WireValue } from '../core/types.js';

const NEEDS_QUOTES = /[",\r\n]/;

/** Every column, in the order rows first show it (rows of one query share their columns). */
export function csvColumns(rows: readonly WireRow[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const column of Object.keys(row)) columns.add(column);
  return [...columns];
}

export function csvHeader(columns: readonly string[]): string {
  return `${columns.map(quoted).join(',')}\r\n`;
}

export function csvRow(columns: readonly string[], row: WireRow): string {
  let line = '';
  for (let index = 0; index < columns.length; index++) {
    if (index > 0) line += ',';
    line += csvField(row[columns[index]!]);
  }
  return `${line}\r\n`;
}

export function csvField(value: WireValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value === '' ? '""' : quoted(value);
  if (typeof value === 'object') return quoted(JSON.stringify(value));
  return String(value);
}

function quoted(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
