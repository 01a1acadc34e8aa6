/**
 * "Did you mean …?": the nearest of the names a field could have held, for a name or field that holds none of them.
 * Near means within a few edits (an optimal string alignment distance: a letter added, dropped, changed, or two
 * swapped), case aside, so that a typo is answered and an unrelated name is not.
 */

/** Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two neighbours, each costing one. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => {
    const row = new Array<number>(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) d[0][j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** Names longer than this are not compared (a pasted payload is no typo, and the distance is quadratic). */
const LONGEST = 200;

/**
 * The candidate nearest to `name`, if one is near enough: at most a third of the name's length in edits (one for a
 * short name, so `erors` finds `errors` and `cpu` does not find `api`). Ties go to the first candidate.
 */
export function nearest(name: string, candidates: Iterable<string>): string | undefined {
  if (name.length > LONGEST) return undefined;
  const wanted = name.toLowerCase();
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    if (c === name || c.length > LONGEST) continue;
    const distance = editDistance(wanted, c.toLowerCase());
    if (distance <= limit && distance < bestDistance) {
      best = c;
      bestDistance = distance;
    }
  }
  return best;
}

/** `; did you mean errors-by-route?`, or nothing when no candidate is near. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const found = nearest(name, candidates);
  return found === undefined ? "" : `; did you mean ${found}?`;
}
