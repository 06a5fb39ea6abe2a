/**
 * A result as a time series, when it is one: a time column and numeric columns (usage.api-counts,
 * or a sandbox `timestamp_trunc(...) ... group by`). With one text column beside a single numeric
 * one (`group by hour, level`), each of its values becomes a series of its own, as log
 * explorers chart a breakdown.
 */
import type { WireRow } from '../../src/core/types.js';
import { csvColumns } from '../../src/http/csv.js';
import { columnKind, epochSeconds, isTimeKind, type ColumnKind } from './values.js';

export interface TimeSeries {
  timeColumn: string;
  /** Seconds since the epoch, ascending, each once. */
  x: number[];
  series: { label: string; values: (number | null)[] }[];
}

/** More series than this read as noise, not a breakdown. */
const MAX_BREAKDOWN = 12;

export function timeSeries(rows: readonly WireRow[]): TimeSeries | undefined {
  const columns = csvColumns(rows);
  const kinds = new Map<string, ColumnKind>(columns.map((column) => [column, columnKind(rows, column)]));
  const timeColumn = columns.find((column) => isTimeKind(kinds.get(column)!));
  const numeric = columns.filter((column) => kinds.get(column) === 'number');
  if (timeColumn === undefined || numeric.length === 0) return undefined;
  const timeKind = kinds.get(timeColumn)!;
  const texts = columns.filter((column) => kinds.get(column) === 'text');
  const timed = rows
    .map((row) => ({ row, at: epochSeconds(row[timeColumn] ?? null, timeKind) }))
    .filter((one): one is { row: WireRow; at: number } => one.at !== undefined && Number.isFinite(one.at));
  const x = [...new Set(timed.map((one) => one.at))].sort((a, b) => a - b);
  const index = new Map(x.map((at, i) => [at, i]));

  const breakdown = texts.length === 1 && numeric.length === 1 ? texts[0]! : undefined;
  const keyOf = (row: WireRow, column: string) => (breakdown === undefined ? column : `${String(row[breakdown] ?? 'NULL')}`);
  const labels = breakdown === undefined ? numeric : [...new Set(timed.map((one) => keyOf(one.row, numeric[0]!)))];
  if (labels.length > MAX_BREAKDOWN) return undefined;

  const series = labels.map((label) => ({ label, values: new Array<number | null>(x.length).fill(null) }));
  const byLabel = new Map(series.map((one) => [one.label, one]));
  for (const { row, at } of timed) {
    for (const column of numeric) {
      const value = row[column];
      if (typeof value !== 'number') continue;
      const target = byLabel.get(keyOf(row, column))!;
      const i = index.get(at)!;
      // Rows with the same time add up: a breakdown's counts, or a query that did not group.
      target.values[i] = (target.values[i] ?? 0) + value;
    }
  }
  return { timeColumn, x, series };
}
