/**
 * A parser of the Prometheus text exposition format (0.0.4), strict enough to fail on a line a
 * scraper would refuse: every line is a comment (HELP, TYPE) or `name{labels} value`.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Samples {
  readonly all: Sample[];
  /** The sample of `name` whose labels include `labels`; 0 when there is none (a counter not yet moved). */
  value(name: string, labels?: Record<string, string>): number;
  /** The TYPE line's type of `name`. */
  type(name: string): string | undefined;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/gy;

export function parsePrometheusText(text: string): Samples {
  const all: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      types.set(name!, type!);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const [, name, labelText = '', rawValue] = match;
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < labelText.length) {
      const label = LABEL.exec(labelText);
      if (!label) throw new Error(`malformed labels: ${line}`);
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, char: string) => (char === 'n' ? '\n' : char));
    }
    // Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any letter case.
    const value = /^[+-]?inf$/i.test(rawValue!) ? (rawValue!.startsWith('-') ? -Infinity : Infinity) : Number(rawValue);
    if (Number.isNaN(value) && !/^nan$/i.test(rawValue!)) throw new Error(`not a number: ${line}`);
    all.push({ name: name!, labels, value });
  }
  return {
    all,
    value(name, labels = {}) {
      const sample = all.find((one) => one.name === name && Object.entries(labels).every(([key, value]) => one.labels[key] === value));
      return sample?.value ?? 0;
    },
    type: (name) => types.get(name),
  };
}
