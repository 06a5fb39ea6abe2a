/**
 * A one-line progress bar for long seeds and imports. Written to stderr and only to a
 * terminal: stdout may carry data, and a log file or CI output should not fill with `\r` frames.
 */

export function renderProgressBar(done: number, total: number, width = 30): string {
  const fraction = total <= 0 ? 1 : Math.min(1, Math.max(0, done / total));
  const filled = Math.round(fraction * width);
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent} ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`;
}

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** An `onProgress` callback that redraws `label [####----]  40% ...` in place and ends the line when done. */
export function progressReporter(
  label: string,
  stream: ProgressStream = process.stderr,
  width = 30,
): (done: number, total: number) => void {
  if (!stream.isTTY) return () => {};
  return (done, total) => {
    stream.write(`\r${label} ${renderProgressBar(done, total, width)}`);
    if (done >= total) stream.write('\n');
  };
}
