/**
 * A time series drawn with uPlot (canvas), in UTC, lines or stacked areas; drag across it to
 * zoom, double-click to zoom out. The element says how many points and series it draws, the
 * time range it shows and where each x-axis label lies (data-points, data-series, data-x-range,
 * data-x-labels), for whoever reads the page without eyes, tests included.
 */
import uPlot from 'uplot';
import type { TimeSeries } from './series.js';

/** The axes' font, set rather than uPlot's default so the labels' widths can be measured. */
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
/** Room between two x-axis labels. */
const LABEL_GAP_PX = 24;

const COLORS = ['#2f6fdf', '#e0762b', '#2a9d6a', '#c94059', '#8056c9', '#8a6d3b', '#d456a8', '#5f7586', '#a3a829', '#29a3b8', '#444', '#b26f2c'];

export interface Chart {
  destroy(): void;
}

export function drawChart(container: HTMLElement, data: TimeSeries, stacked: boolean): Chart {
  const raw = data.series.map((one) => one.values);
  const drawn = stacked ? cumulative(raw) : raw;
  // The x-axis ticks last labelled, for data-x-labels.
  let ticks: number[] = [];
  const utc = (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC');
  const options: uPlot.Options = {
    width: Math.max(320, container.clientWidth),
    height: 300,
    tzDate: utc,
    // Room on the right for half of the last label, centred on the last tick.
    padding: [null, Math.ceil(textWidth(labelSample('date')) / 2), null, null],
    // Counts and stacks read from zero; a series below it keeps its own minimum.
    scales: { x: { time: true }, y: { range: (_chart, min, max) => uPlot.rangeNum(Math.min(0, min), max, 0.1, true) } },
    cursor: { drag: { x: true, y: false, setScale: true } },
    axes: [
      {
        font: AXIS_FONT,
        // Ticks as far apart as their labels are wide: a span of days labels each with its date.
        space: (_chart, _axis, min, max) => textWidth(labelSample(max - min >= 86_400 ? 'date' : max - min < 600 ? 'seconds' : 'time')) + LABEL_GAP_PX,
        values: (_chart, splits) => {
          ticks = splits;
          return timeLabels(splits);
        },
      },
      { font: AXIS_FONT },
    ],
    series: [
      { label: `${data.timeColumn} (UTC)` },
      ...data.series.map((one, index): uPlot.Series => {
        const color = COLORS[index % COLORS.length]!;
        return {
          label: one.label,
          stroke: color,
          width: 2,
          fill: stacked ? `${color}55` : undefined,
          points: { show: data.x.length <= 120 },
          // The legend shows each series' own value, not the stack's height.
          value: (_chart, _value, _series, at) => (at === null || at === undefined ? '' : formatNumber(raw[index]![at] ?? null)),
        };
      }),
    ],
    // Each stacked band fills down to the series below it.
    bands: stacked ? data.series.slice(1).map((_one, index): uPlot.Band => ({ series: [index + 2, index + 1] })) : [],
    hooks: {
      draw: [(chart) => (container.dataset.xLabels = JSON.stringify(labelBoxes(chart, ticks)))],
      setScale: [
        (chart, key) => {
          if (key === 'x') container.dataset.xRange = `${chart.scales.x!.min},${chart.scales.x!.max}`;
        },
      ],
    },
  };
  container.dataset.points = String(data.x.length);
  container.dataset.series = String(data.series.length);
  const chart = new uPlot(options, [data.x, ...drawn], container);
  const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(320, container.clientWidth), height: 300 }));
  resize.observe(container);
  return {
    destroy() {
      resize.disconnect();
      chart.destroy();
    },
  };
}

/** Each series plus every one before it; a missing value adds nothing. */
function cumulative(series: (number | null)[][]): number[][] {
  const sums: number[][] = [];
  series.forEach((values, index) => {
    sums.push(values.map((value, at) => (value ?? 0) + (index > 0 ? sums[index - 1]![at]! : 0)));
  });
  return sums;
}

type LabelForm = 'date' | 'seconds' | 'time';

/** The part of an ISO timestamp each form of label shows: `11-26 16:00`, `16:05:30`, `16:05`. */
const LABEL_SLICES: Record<LabelForm, [number, number]> = { date: [5, 16], seconds: [11, 19], time: [11, 16] };

function labelSample(form: LabelForm): string {
  return '2000-10-20T20:00:00'.slice(...LABEL_SLICES[form]).replace('T', ' ');
}

/** Axis labels in UTC, 24-hour, with the date when the ticks span days and seconds when they fall within a minute. */
function timeLabels(splits: number[]): string[] {
  const span = (splits.at(-1) ?? 0) - (splits[0] ?? 0);
  const form: LabelForm = span >= 86_400 ? 'date' : splits.some((at) => at % 60 !== 0) ? 'seconds' : 'time';
  return splits.map((at) => new Date(at * 1000).toISOString().slice(...LABEL_SLICES[form]).replace('T', ' '));
}

let measure: CanvasRenderingContext2D | null | undefined;

function textWidth(text: string): number {
  measure ??= document.createElement('canvas').getContext('2d');
  if (!measure) return text.length * 8;
  measure.font = AXIS_FONT;
  return measure.measureText(text).width;
}

/** Each x-axis label's left and right edge in CSS pixels from the chart's left, centred on its tick as uPlot draws it. */
function labelBoxes(chart: uPlot, splits: number[]): [number, number][] {
  const labels = timeLabels(splits);
  return splits.flatMap((at, index) => {
    if (at < chart.scales.x!.min! || at > chart.scales.x!.max!) return [];
    const centre = chart.bbox.left / devicePixelRatio + chart.valToPos(at, 'x');
    const half = textWidth(labels[index]!) / 2;
    return [[Math.round(centre - half), Math.round(centre + half)]];
  });
}

function formatNumber(value: number | null): string {
  return value === null ? '–' : value.toLocaleString('en-US');
}
