// "Did you mean": the candidate closest to a mistyped word by edit distance (Damerau–Levenshtein,
// optimal string alignment, so one swapped pair such as "strat" → "start" costs 1).
// Contract: `closest(word, candidates)` answers the nearest candidate within a distance that
// grows with the word's length (1 for short words, at most 3), or undefined when none is near;
// ties go to the candidate listed first. Pure: no I/O, usable by every CLI and by the host.

/** The optimal-string-alignment distance between `a` and `b` (case-sensitive). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The largest distance still worth suggesting for a word of this length. */
function tolerance(word: string): number {
  return word.length <= 3 ? 1 : word.length <= 6 ? 2 : 3;
}

/** The candidate nearest to `word`, when one is near enough to be a likely typo. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const lower = word.toLowerCase();
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= tolerance(word) ? best : undefined;
}

/** ` — did you mean "x"?` for the nearest candidate, or "" when none is near. */
export function didYouMean(word: string, candidates: Iterable<string>, quote = true): string {
  const near = closest(word, candidates);
  if (near === undefined) return "";
  return ` — did you mean ${quote ? JSON.stringify(near) : near}?`;
}
