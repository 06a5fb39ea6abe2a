/**
 * The file that marks a database as generated demo data (`<db>.demo.json`, written by every seed):
 * only such a database is written to by `serve --demo` (its top-up and live feed, live.ts); any
 * other is served as it is.
 */
import { readFile, writeFile } from 'node:fs/promises';

export interface DemoMarker {
  /** The edge events of the seed: the live feed goes on at the rate of its last hour. */
  edgeEvents: number;
}

export function demoMarkerPath(dbPath: string): string {
  return `${dbPath}.demo.json`;
}

export async function writeDemoMarker(dbPath: string, marker: DemoMarker): Promise<void> {
  await writeFile(demoMarkerPath(dbPath), `${JSON.stringify(marker)}\n`);
}

/** The marker of a demo database, or undefined for any other (no marker, or one cannery did not write). */
export async function readDemoMarker(dbPath: string): Promise<DemoMarker | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(demoMarkerPath(dbPath), 'utf8'));
  } catch {
    return undefined;
  }
  const edgeEvents = (parsed as Partial<DemoMarker> | null)?.edgeEvents;
  return Number.isSafeInteger(edgeEvents) && (edgeEvents as number) >= 0 ? { edgeEvents: edgeEvents as number } : undefined;
}
