/**
 * The difference of two sequences, as the longest common subsequence leaves it: what only the
 * first has, what only the second has, and what they share. For rows: expected against actual
 * in a failed test, the old query's against the new query's in `cannery diff`.
 */

export type DiffStep<A, B> = { kind: 'same'; a: A; b: B } | { kind: 'removed'; a: A } | { kind: 'added'; b: B };

/** O(n·m) after trimming the common ends; results are capped at max_rows (at most 100,000, in practice 1,000). */
export function diffSequences<A, B>(a: readonly A[], b: readonly B[], equal: (a: A, b: B) => boolean): DiffStep<A, B>[] {
  let start = 0;
  while (start < a.length && start < b.length && equal(a[start]!, b[start]!)) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && equal(a[endA - 1]!, b[endB - 1]!)) {
    endA -= 1;
    endB -= 1;
  }
  const n = endA - start;
  const m = endB - start;
  // lengths[i * (m + 1) + j]: the longest common subsequence of a[start+i..endA) and b[start+j..endB).
  const lengths = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lengths[i * (m + 1) + j] = equal(a[start + i]!, b[start + j]!)
        ? lengths[(i + 1) * (m + 1) + j + 1]! + 1
        : Math.max(lengths[(i + 1) * (m + 1) + j]!, lengths[i * (m + 1) + j + 1]!);
    }
  }
  const steps: DiffStep<A, B>[] = [];
  for (let k = 0; k < start; k += 1) steps.push({ kind: 'same', a: a[k]!, b: b[k]! });
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && equal(a[start + i]!, b[start + j]!)) {
      steps.push({ kind: 'same', a: a[start + i]!, b: b[start + j]! });
      i += 1;
      j += 1;
    } else if (i < n && (j === m || lengths[(i + 1) * (m + 1) + j]! >= lengths[i * (m + 1) + j + 1]!)) {
      // On a tie, what went comes before what came, as diff(1) prints it.
      steps.push({ kind: 'removed', a: a[start + i]! });
      i += 1;
    } else {
      steps.push({ kind: 'added', b: b[start + j]! });
      j += 1;
    }
  }
  for (let k = 0; k < a.length - endA; k += 1) steps.push({ kind: 'same', a: a[endA + k]!, b: b[endB + k]! });
  return steps;
}

/**
 * Unified-diff lines: `- ` only in the first, `+ ` only in the second, `  ` in both; a run of
 * more than 2·context shared lines is cut to its ends around one `  … N more` line.
 */
export function diffText<A, B>(steps: readonly DiffStep<A, B>[], textA: (a: A) => string, textB: (b: B) => string, context = 3): string[] {
  const lines: string[] = [];
  let index = 0;
  while (index < steps.length) {
    const step = steps[index]!;
    if (step.kind !== 'same') {
      lines.push(step.kind === 'removed' ? `- ${textA(step.a)}` : `+ ${textB(step.b)}`);
      index += 1;
      continue;
    }
    let end = index;
    while (end < steps.length && steps[end]!.kind === 'same') end += 1;
    const keepBefore = index === 0 ? 0 : context;
    const keepAfter = end === steps.length ? 0 : context;
    const run = steps.slice(index, end) as { kind: 'same'; a: A; b: B }[];
    const shown = (same: { a: A }) => `  ${textA(same.a)}`;
    if (run.length > keepBefore + keepAfter + 1) {
      lines.push(...run.slice(0, keepBefore).map(shown));
      const hidden = run.length - keepBefore - keepAfter;
      lines.push(`  … ${hidden} more matching row${hidden === 1 ? '' : 's'}`);
      lines.push(...run.slice(run.length - keepAfter).map(shown));
    } else {
      lines.push(...run.map(shown));
    }
    index = end;
  }
  return lines;
}
