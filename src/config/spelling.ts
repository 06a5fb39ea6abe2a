/**
 * The candidate closest to `word`, if it is close enough to be a likely typo: at most one
 * edit for short words, two for longer ones. Case is ignored so `TTL_seconds` finds `ttl_seconds`.
 */
export function closestSpelling(word: string, candidates: readonly string[]): string | undefined {
  const limit = word.length <= 4 ? 1 : 2;
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    // The distance is at least the difference in length: most candidates need no table at all
    // (a 404's path segment, up to a URL long, is compared with every endpoint's name).
    if (Math.abs(candidate.length - word.length) > limit) continue;
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(substitution, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** ` (did you mean "x"?)`, or nothing when no candidate is close. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const closest = closestSpelling(word, [...candidates]);
  return closest === undefined ? '' : ` (did you mean "${closest}"?)`;
}
