/**
 * A time series drawn with uPlot (canvas), in UTC, lines or stacked areas; drag across it to
 * zoom, double-click to zoom out. The element says how many points and series it draws and the
 * time range it shows (data-points, data-series, data-x-range), for whoever reads the page
 * without eyes, tests included.
 */
import uPlot from 'uplot';
import type { TimeSeries } from './series.js';

const COLORS = ['#2f6fdf', '#e0762b', '#2a9d6a', '#c94059', '#8056c9', '#8a6d3b', '#d456a8', '#5f7586', '#a3a829', '#29a3b8', '#444', '#b26f2c'];

export interface Chart {
  destroy(): void;
}

export function drawChart(container: HTMLElement, data: TimeSeries, stacked: boolean): Chart {
  const raw = data.series.map((one) => one.values);
  const drawn = stacked ? cumulative(raw) : raw;
  const utc = (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC');
  const options: uPlot.Options = {
    width: Math.max(320, container.clientWidth),
    height: 300,
    tzDate: utc,
    // Counts and stacks read from zero; a series below it keeps its own minimum.
    scales: { x: { time: true }, y: { range: (_chart, min, max) => uPlot.rangeNum(Math.min(0, min), max, 0.1, true) } },
    cursor: { drag: { x: true, y: false, setScale: true } },
    axes: [{ values: (_chart, splits) => timeLabels(splits) }, {}],
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

/** Axis labels in UTC, 24-hour, with the date when the ticks span days and seconds when they fall within a minute. */
function timeLabels(splits: number[]): string[] {
  const span = (splits.at(-1) ?? 0) - (splits[0] ?? 0);
  const [from, to] = span >= 86_400 ? [5, 16] : splits.some((at) => at % 60 !== 0) ? [11, 19] : [11, 16];
  return splits.map((at) => new Date(at * 1000).toISOString().slice(from, to).replace('T', ' '));
}

function formatNumber(value: number | null): string {
  return value === null ? '–' : value.toLocaleString('en-US');
}
