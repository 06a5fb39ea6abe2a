/**
 * Backends' messages reach callers (a 502 says why the query failed), and some name files on the
 * server: DuckDB's IO errors quote the database file ("Could not read enough bytes from file
 * \"/srv/data/cannery.duckdb\""), node's quote a credentials file. A caller learns nothing from
 * the server's folders, and an attacker learns its layout: messages leave without them.
 */
import { homedir } from 'node:os';
import { basename } from 'node:path';

/** A double-quoted absolute path, as DuckDB writes the files it names. */
const QUOTED_PATH = /"(\/[^"\n]*)"/g;

/**
 * `text` with every double-quoted absolute path reduced to its file name, and the working folder,
 * the home folder and `folders` taken off any path left: `"/srv/data/x.duckdb"` -> `"x.duckdb"`.
 */
export function withoutServerPaths(text: string, folders: readonly string[] = []): string {
  let result = text.replace(QUOTED_PATH, (_, path: string) => `"${basename(path)}"`);
  const known = [...folders, process.cwd(), homedir()].filter((folder) => folder.length > 1).sort((a, b) => b.length - a.length);
  for (const folder of known) result = result.split(`${folder.replace(/\/+$/, '')}/`).join('');
  return result;
}
