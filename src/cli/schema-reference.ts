/**
 * The path an editor's `$schema` line gives from a file in `dir` to one of cannery's schemas, so
 * the schema resolves where the file is kept: in the clone, `../schemas/...`; in a repository
 * that installs cannery, `../node_modules/cannery/schemas/...`.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's own name, the folder `npm install` puts it in. */
const PACKAGE = 'cannery';

function isWithin(dir: string, ancestor: string): boolean {
  const path = relative(ancestor, dir);
  return !isAbsolute(path) && path.split(sep)[0] !== '..';
}

/** The nearest folder at or above `dir` that holds a package.json, if any. */
function projectOf(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json'))) return at;
    if (dirname(at) === at) return undefined;
  }
}

/**
 * From a file in `dir` (the endpoints folder `endpoints`, a folder in it, or the sources folder
 * beside it) to `schema`, the schema file as this running cannery has it. When that copy is where
 * the file's repository finds it (cannery's own clone, or node_modules of the repository or
 * above), the path to it; otherwise (run through npx from its cache, or installed globally) the
 * path to where `npm install cannery` puts it in the repository: the folder of its package.json,
 * else the folder above `endpoints`.
 */
export function schemaReference(dir: string, endpoints: string, schema: URL): string {
  const target = resolve(dir);
  const file = fileURLToPath(schema);
  const root = dirname(dirname(file));
  const installedIn = basename(dirname(root)) === 'node_modules' ? dirname(dirname(root)) : undefined;
  const reachable = isWithin(target, root) || (installedIn !== undefined && isWithin(target, installedIn));
  const project = projectOf(resolve(endpoints)) ?? dirname(resolve(endpoints));
  const path = reachable ? file : join(project, 'node_modules', PACKAGE, 'schemas', basename(file));
  return relative(target, path).split(sep).join('/');
}
