import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, Scalar, visit } from '#yaml';
import type { Document, Node, Pair, YAMLError } from '#yaml';
import type { Problem } from '../core/types.js';

/** A location inside the parsed data, as object keys and array indexes (what ajv's instancePath encodes). */
export type DataPath = readonly (string | number)[];

/** A parsed YAML file that still knows where each of its values was written. */
export interface YamlSource {
  /** The plain JS value; only meaningful when `problems` is empty. */
  data: unknown;
  /** Syntax errors, duplicate keys and YAML warnings, each at its line. */
  problems: Problem[];
  /**
   * The line where the value at `path` is written: the line of its key when it sits in a mapping
   * (that is where a reader looks for "the field"), else the line of the value itself. A path
   * that does not exist resolves to its deepest existing ancestor.
   */
  lineOf(path: DataPath): number;
  /**
   * The line on which the text of the string at `path` starts. A block scalar's text starts on
   * the line after its `|` or `>` header; any other scalar's on its own line.
   */
  textLineOf(path: DataPath): number | undefined;
}

export function readYaml(text: string, file: string): YamlSource {
  const lines = new LineCounter();
  // prettyErrors off: messages stay one line; we report positions ourselves, as file:line.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const lineAt = (offset: number): number => Math.max(1, lines.linePos(offset).line);

  const problems = [...doc.errors, ...doc.warnings].map((error) => ({
    file,
    line: lineAt(error.pos[0]),
    message: describeYamlError(doc, error, lineAt),
  }));

  const lineOf = (path: DataPath): number => {
    const { key, node } = walk(doc, path);
    const offset = key?.range?.[0] ?? node?.range?.[0];
    return offset === undefined ? 1 : lineAt(offset);
  };

  const textLineOf = (path: DataPath): number | undefined => {
    const { node, depth } = walk(doc, path);
    if (depth < path.length || !isScalar(node) || !node.range) return undefined;
    const start = lineAt(node.range[0]);
    const isBlock = node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED;
    return isBlock ? start + 1 : start;
  };

  return { data: problems.length === 0 ? doc.toJS() : undefined, problems, lineOf, textLineOf };
}

interface Found {
  node: Node | null | undefined;
  key: Node | undefined;
  /** How many path segments were matched. */
  depth: number;
}

function walk(doc: Document, path: DataPath): Found {
  let node = doc.contents as Node | null;
  let key: Node | undefined;
  let depth = 0;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc) ?? null;
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === String(segment));
      if (!pair) break;
      key = pair.key as Node;
      node = (pair.value as Node | null) ?? key;
    } else if (isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
      key = undefined;
      node = node.items[segment] as Node;
    } else {
      break;
    }
    depth += 1;
  }
  return { node, key, depth };
}

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

function describeYamlError(doc: Document, error: YAMLError, lineAt: (offset: number) => number): string {
  if (error.code === 'DUPLICATE_KEY') {
    const first = firstOccurrence(doc, error.pos[0]);
    if (first) return `duplicate key "${first.name}" (first defined on line ${lineAt(first.offset)})`;
    return 'duplicate key';
  }
  const kind = error.name === 'YAMLWarning' ? 'YAML warning' : 'YAML syntax error';
  return `${kind}: ${error.message}`;
}

/** For a duplicate key starting at `offset`, the key's text and where the same map first defined it. */
function firstOccurrence(doc: Document, offset: number): { name: string; offset: number } | undefined {
  let found: { name: string; offset: number } | undefined;
  visit(doc, {
    Map(_, map) {
      const duplicate = map.items.find((pair: Pair) => (pair.key as Node | null)?.range?.[0] === offset);
      if (!duplicate) return undefined;
      const name = keyText(duplicate.key);
      const first = map.items.find((pair: Pair) => keyText(pair.key) === name);
      found = { name, offset: (first?.key as Node | null)?.range?.[0] ?? offset };
      return visit.BREAK;
    },
  });
  return found;
}
