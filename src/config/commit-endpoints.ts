/** Endpoint files parsed from their texts as a commit holds them (`cannery diff`), checked as a folder is. */
import { parseEndpointFile } from './endpoint-file.js';
import { rejectDuplicates, type LoadedEndpointFile } from './endpoint-folder.js';

/** Endpoint files from their texts (as a commit holds them), checked as a folder is. */
export function parseEndpointFiles(texts: readonly { file: string; text: string }[]): LoadedEndpointFile[] {
  const files = texts.map(({ file, text }) => ({ file, ...parseEndpointFile(text, file) }));
  rejectDuplicates(files);
  return files;
}
