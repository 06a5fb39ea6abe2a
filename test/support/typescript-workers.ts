/** Node flags for worker threads that run src/'s TypeScript (typescript-hooks.mjs). */
export const WORKER_EXEC_ARGV = ['--import', new URL('./typescript-hooks.mjs', import.meta.url).href];
