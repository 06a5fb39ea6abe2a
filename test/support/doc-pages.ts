/**
 * The docs' blocks as the docs tier reads them (docs/development.md, "Docs tested like code"):
 * fenced blocks in page order, each with the marker comments right above it, and each shell
 * block split into commands and the output shown after them. Pure text; doc-runner.ts runs them.
 */

/** A fenced block and what the comments right above it say about it. */
export interface Block {
  /** The info string's first word: sh, console, bash, yaml, ... ('' for none). */
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The lines between the fences, without the fence's indentation. */
  body: string[];
  /** 0-based index of the first body line, and of the closing fence, in the page's lines. */
  bodyStart: number;
  bodyEnd: number;
  /** The fence's indentation (a block inside a list item), given back to rewritten lines. */
  indent: string;
  /** `<!-- not-run: REASON -->`: not runnable here, and why. */
  notRun?: string;
  /** `<!-- file: PATH -->`: the block is also written to PATH in the page's folder. */
  file?: string;
  /** `<!-- check: fails -->`: the YAML must fail its check. */
  mustFail: boolean;
  /** `<!-- setup: COMMAND -->` lines above the block: run first, shown in the page's source only. */
  setup: string[];
}

const FENCE = /^(\s*)(`{3,})\s*([\w-]*)/;
const MARKER = /^\s*<!--\s*(not-run|file|check|setup):\s*(.*?)\s*-->\s*$/;

export const SHELL_LANGS = new Set(['sh', 'console', 'bash']);
export const YAML_LANGS = new Set(['yaml', 'yml']);

export function readBlocks(text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent, ticks, lang] = open;
    let end = i + 1;
    while (end < lines.length && !(lines[end]!.trim().startsWith(ticks!) && lines[end]!.trim().replace(/`/g, '') === '')) end++;
    const block: Block = {
      lang: lang ?? '',
      line: i + 1,
      body: lines.slice(i + 1, end).map((line) => (line.startsWith(indent!) ? line.slice(indent!.length) : line.trimStart())),
      bodyStart: i + 1,
      bodyEnd: end,
      indent: indent!,
      mustFail: false,
      setup: [],
    };
    for (let above = i - 1; above >= 0; above--) {
      const marker = MARKER.exec(lines[above]!);
      if (!marker) break;
      const [, kind, value] = marker;
      if (kind === 'not-run') block.notRun = value;
      else if (kind === 'file') block.file = value;
      else if (kind === 'check') block.mustFail = value === 'fails';
      else block.setup.unshift(value!);
    }
    blocks.push(block);
    i = end;
  }
  return blocks;
}

/** One command of a shell block and the output the page shows for it (none for a script line). */
export interface Command {
  /** The command as typed, continuation lines joined with their backslashes. */
  text: string;
  /** The shown output, or undefined when the block shows none (a script). */
  output?: string[];
  /** Index in the block's body of the output's first line, and one past its last. */
  outputStart: number;
  outputEnd: number;
}

/**
 * A block with `$ ` lines is a transcript: each `$ ` line (with its `\` continuations) is a
 * command, the lines up to the next one its output. Any other shell block is a script: every
 * line a command, comments and blank lines skipped, its output not compared.
 */
export function readCommands(block: Block): Command[] {
  const body = block.body;
  const transcript = body.some((line) => line.startsWith('$ '));
  const commands: Command[] = [];
  for (let i = 0; i < body.length; i++) {
    const line = body[i]!;
    if (transcript ? !line.startsWith('$ ') : line.trim() === '' || line.trim().startsWith('#')) continue;
    const parts = [transcript ? line.slice(2) : line];
    while (parts.at(-1)!.trimEnd().endsWith('\\') && i + 1 < body.length) parts.push(body[++i]!);
    const command: Command = { text: parts.join('\n'), outputStart: i + 1, outputEnd: i + 1 };
    if (transcript) {
      let end = i + 1;
      while (end < body.length && !body[end]!.startsWith('$ ')) end++;
      command.output = trimEnd(body.slice(i + 1, end));
      command.outputEnd = i + 1 + command.output.length;
      i = end - 1;
    }
    commands.push(command);
  }
  return commands;
}

function trimEnd(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  return lines.slice(0, end);
}

/**
 * The masks: each part of an output that differs from run to run, or from machine to machine, is
 * replaced by its name, in the page's text and in the run's alike, before they are compared.
 * docs/development.md lists them for the reader.
 */
export const MASKS: [RegExp, string][] = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>'],
  [/\beyJ[\w-]+\.[\w-]+\.[\w-]+/g, '<token>'],
  [/\b[0-9a-f]{64}\b/g, '<sha256>'],
  // A key: 20 or more letters, digits, - and _, mixing upper and lower case.
  [/(?<![\w-])(?=[\w-]*[a-z])(?=[\w-]*[A-Z])[\w-]{20,}(?![\w-])/g, '<key>'],
  // A wall-clock time: to the millisecond (or finer) with Z.
  [/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/g, '<time>'],
  [/"(\w+_ms)":\d+(\.\d+)?/g, '"$1":<duration>'],
  [/\b\d+(\.\d+)? ?(ms|s)\b/g, '<duration>'],
  [/\bPID \d+/g, 'PID <pid>'],
];

/** Progress lines depend on the machine's speed (one every 10 s off a terminal): left out. */
const PROGRESS = /^\s*\w+ \[[#-]+\]/;

export function masked(line: string): string {
  let text = line.trimEnd();
  for (const [pattern, name] of MASKS) text = text.replace(pattern, name);
  return text;
}

/**
 * What a run printed, as the page would show it: the ports given back (the page's 4000, and 4001
 * of a second server), progress lines left out.
 */
export function shownOutput(text: string, port: number, secondPort?: number): string[] {
  const lines = (secondPort === undefined ? text : text.replaceAll(`:${secondPort}`, ':4001'))
    .replaceAll(`:${port}`, ':4000')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => !PROGRESS.test(line));
  return trimEnd(lines);
}

/** Whether `actual` is what `expected` shows: masked lines equal; a line of only `...` stands for any lines. */
export function outputMatches(expected: string[], actual: string[]): boolean {
  const want = expected.map((line) => (line.trim() === '...' ? '...' : masked(line)));
  const got = actual.map(masked);
  const match = (w: number, g: number): boolean => {
    if (w === want.length) return g === got.length;
    if (want[w] === '...') {
      for (let skip = g; skip <= got.length; skip++) if (match(w + 1, skip)) return true;
      return false;
    }
    return g < got.length && want[w] === got[g] && match(w + 1, g + 1);
  };
  return match(0, 0);
}
