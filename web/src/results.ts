/**
 * An answer on the page: what it cost (rows, time, X-Cache and Age), downloads, a chart when the
 * rows are a time series, and the rows as a table: nested records expandable, TIMESTAMPs as UTC
 * times with the raw microseconds on hover.
 */
import type { WireRow, WireValue } from '../../src/core/types.js';
import { csvColumns } from '../../src/http/csv.js';
import type { Answer } from './api.js';
import { drawChart, type Chart } from './chart.js';
import { h, replace } from './dom.js';
import { fileText, saveFile, type DownloadFormat } from './downloads.js';
import { timeSeries } from './series.js';
import { columnKind, formatTimestamp, type ColumnKind } from './values.js';

/** Rows drawn in the table; the downloads have them all. */
const TABLE_ROWS = 1000;

let chart: Chart | undefined;

export function showAnswer(container: HTMLElement, endpoint: string, answer: Answer): void {
  chart?.destroy();
  chart = undefined;
  const rows = answer.rows ?? [];
  const summary = h(
    'p',
    { class: 'summary', 'data-status': String(answer.status) },
    h('span', { class: 'rows' }, `${rows.length.toLocaleString('en-US')} row${rows.length === 1 ? '' : 's'}`),
    h('span', { class: 'time' }, `${Math.round(answer.ms).toLocaleString('en-US')} ms`),
    answer.xCache ? h('span', { class: 'cache', title: 'X-Cache: how the result cache answered' }, `X-Cache: ${answer.xCache}`) : null,
    answer.age !== null ? h('span', { class: 'age', title: 'Age: seconds since the answer was computed' }, `Age: ${answer.age} s`) : null,
  );
  const downloads = h(
    'div',
    { class: 'downloads' },
    'Download: ',
    ...(['json', 'ndjson', 'csv'] as DownloadFormat[]).map((format) => {
      const button = h('button', { type: 'button', 'data-format': format }, format.toUpperCase());
      button.addEventListener('click', () => saveFile(`${endpoint}.${format}`, format, fileText(format, answer.text, rows)));
      return button;
    }),
  );
  const series = timeSeries(rows);
  const chartBox = series ? chartSection(series) : null;
  replace(container, summary, downloads, chartBox, table(rows));
}

function chartSection(series: NonNullable<ReturnType<typeof timeSeries>>): HTMLElement {
  const plot = h('div', { class: 'chart', role: 'img', 'aria-label': `${series.series.map((one) => one.label).join(', ')} by ${series.timeColumn}` });
  const stacked = h('input', { type: 'checkbox', id: 'chart-stacked' });
  const draw = () => {
    chart?.destroy();
    replace(plot);
    chart = drawChart(plot, series, stacked.checked);
  };
  stacked.addEventListener('change', draw);
  const section = h(
    'section',
    { class: 'chart-section' },
    h('div', { class: 'chart-options' }, h('label', { for: 'chart-stacked' }, stacked, ' stacked'), h('span', { class: 'hint' }, 'drag across the chart to zoom, double-click to zoom out')),
    plot,
  );
  // Drawn once in the page, where it has a width.
  requestAnimationFrame(draw);
  return section;
}

function table(rows: readonly WireRow[]): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, 'No rows.');
  const columns = csvColumns(rows);
  const kinds = new Map<string, ColumnKind>(columns.map((column) => [column, columnKind(rows, column)]));
  const shown = rows.slice(0, TABLE_ROWS);
  return h(
    'div',
    { class: 'table-wrap' },
    rows.length > TABLE_ROWS ? h('p', { class: 'note' }, `The first ${TABLE_ROWS.toLocaleString('en-US')} rows; the downloads have all ${rows.length.toLocaleString('en-US')}.`) : null,
    h(
      'table',
      { class: 'rows' },
      h('thead', {}, h('tr', {}, ...columns.map((column) => h('th', { scope: 'col', 'data-kind': kinds.get(column) }, column)))),
      h('tbody', {}, ...shown.map((row) => h('tr', {}, ...columns.map((column) => h('td', {}, cell(row[column] ?? null, kinds.get(column)!)))))),
    ),
  );
}

function cell(value: WireValue, kind: ColumnKind): Node {
  if (value === null) return h('span', { class: 'null' }, 'NULL');
  if (kind === 'timestamp' && typeof value === 'number') {
    const readable = formatTimestamp(value);
    return h('time', { datetime: readable.replace(' ', 'T').replace(' UTC', 'Z'), title: `${value} (Unix microseconds)` }, readable);
  }
  if (typeof value === 'object') {
    const preview = JSON.stringify(value);
    return h('details', { class: 'nested' }, h('summary', {}, preview.length > 60 ? `${preview.slice(0, 60)}…` : preview), h('pre', {}, JSON.stringify(value, null, 2)));
  }
  return document.createTextNode(String(value));
}
