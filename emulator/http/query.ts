/** Query strings, with repeated keys kept as arrays as the service reads them. */

/** Parses a query string; repeated keys become arrays. */
export function parseQuery(search: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of search) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else out[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/** First value of a query parameter. */
export function queryParam(query: Record<string, string | string[]>, name: string): string | undefined {
  const v = query[name];
  return Array.isArray(v) ? v[0] : v;
}
