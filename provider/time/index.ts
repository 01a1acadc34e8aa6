/** Times as the package reads and writes them. */

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const ZERO_TIME_MS = Date.parse("0001-01-01T00:00:00Z");

/** An RFC 3339 time as the instant it names (ISO, UTC, ms); the zero time as absent; anything else as is. */
export function canonicalTime(v: unknown): unknown {
  if (typeof v !== "string" || !RFC3339.test(v)) return v;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return v;
  return ms === ZERO_TIME_MS ? undefined : new Date(ms).toISOString();
}
