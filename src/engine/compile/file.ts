/**
 * One endpoint file's text, parsed, validated and compiled: the unit of work the compile cache
 * keeps and the worker threads do. Depends only on the text and the compile settings, never on
 * the other files (duplicates across files are looked for after, in the registry).
 */
import type { LoadedEndpointFile } from '../../config/endpoint-folder.js';
import { parseEndpointFile } from '../../config/endpoint-file.js';
import { compileEndpoint, type CompileContext, type CompileOutcome } from './compile.js';

export interface FileCompile {
  /** The file as read: its definition and lines, or its problems. */
  loaded: LoadedEndpointFile;
  /** What compiling it gave, for a file that loaded without problems. */
  outcome?: CompileOutcome;
}

export function compileFile(file: string, text: string, context: CompileContext): FileCompile {
  const loaded: LoadedEndpointFile = { file, ...parseEndpointFile(text, file) };
  if (loaded.problems.length > 0) return { loaded };
  return { loaded, outcome: compileEndpoint(loaded, context) };
}
