/**
 * vitest's global setup: a copy of exactly the endpoint files cannery ships, named one by one, in
 * a temporary folder the whole run tests (shipped-endpoints.ts hands its path to the tests). A
 * user's own files in endpoints/ are not in it, so they never change what the suite sees.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

export const ENDPOINTS = fileURLToPath(new URL('../../endpoints/', import.meta.url));

/** The shipped endpoints and their tests, relative to endpoints/. */
export const SHIPPED_FILES = ['logs.all.yaml', 'usage.api-counts.yaml', 'tests/logs.all.yaml', 'tests/usage.api-counts.yaml'];

declare module 'vitest' {
  export interface ProvidedContext {
    shippedEndpoints: string;
  }
}

/** `into` made to hold the shipped files of `from` (endpoints/), and nothing else of it. */
export function copyShippedEndpoints(into: string, from = ENDPOINTS): void {
  for (const file of SHIPPED_FILES) {
    mkdirSync(dirname(join(into, file)), { recursive: true });
    cpSync(join(from, file), join(into, file));
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'cannery-shipped-'));
  const endpoints = join(dir, 'endpoints');
  copyShippedEndpoints(endpoints);
  project.provide('shippedEndpoints', `${endpoints}/`);
  return () => rmSync(dir, { recursive: true, force: true });
}
