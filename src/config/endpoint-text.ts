/** Reading an endpoint file's text: a file that cannot be read is a problem of that file, not an exception. */
import { readFile } from 'node:fs/promises';
import type { Problem } from '../core/types.js';

export type EndpointText = { file: string; text: string; problem?: undefined } | { file: string; text?: undefined; problem: Problem };

export async function readEndpointText(file: string): Promise<EndpointText> {
  try {
    return { file, text: await readFile(file, 'utf8') };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { file, problem: { file, line: 1, message: `cannot read the file: ${reason}` } };
  }
}
