/**
 * The rows shown, saved as a file: JSON as the service sent it, NDJSON one row a line, CSV as the
 * service writes it (src/http/csv.ts, the same code). Made from the answer in hand rather than
 * asked for again, so the file holds exactly the rows on screen.
 */
import type { WireRow } from '../../src/core/types.js';
import { csvColumns, csvHeader, csvRow } from '../../src/http/csv.js';

export type DownloadFormat = 'json' | 'ndjson' | 'csv';

const TYPES: Record<DownloadFormat, string> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv',
};

export function fileText(format: DownloadFormat, body: string, rows: readonly WireRow[]): string {
  if (format === 'json') return body;
  if (format === 'ndjson') return rows.map((row) => `${JSON.stringify(row)}\n`).join('');
  if (rows.length === 0) return '';
  const columns = csvColumns(rows);
  return csvHeader(columns) + rows.map((row) => csvRow(columns, row)).join('');
}

export function saveFile(name: string, format: DownloadFormat, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: TYPES[format] }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
