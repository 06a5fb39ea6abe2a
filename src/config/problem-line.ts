import type { Problem } from '../core/types.js';

/** One line of `cannery check` output: `file:line: message`, plus the field when the message does not name it. */
export function formatProblem(problem: Problem): string {
  const field = problem.field && !problem.message.includes(problem.field) ? ` (${problem.field})` : '';
  return `${problem.file}:${problem.line}: ${problem.message}${field}`;
}
