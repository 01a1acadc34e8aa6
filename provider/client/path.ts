/**
 * The one place path parameters enter a URL. `path` is a tagged template: every interpolated value is
 * percent-encoded as a single segment, so `../orgs/x` or `a/b?c` stays inside its segment, and a value that
 * is empty or is a dot segment is refused before anything is sent.
 */

/** Thrown when a path parameter could address another path (empty, `.` or `..`, or not a string). */
export class PathParameterError extends Error {
  override readonly name = "PathParameterError";
}

/** Percent-encodes one path segment: everything outside RFC 3986 unreserved characters. */
export function encodeSegment(value: string): string {
  // encodeURIComponent leaves !'()* alone; they are legal in paths but encoding them costs nothing.
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Tagged template: path`/v2/monitors/${id}` with `id` encoded as one segment and checked. */
export function path(statics: TemplateStringsArray, ...params: unknown[]): string {
  let out = statics[0];
  params.forEach((param, i) => {
    if (typeof param !== "string" && typeof param !== "number") {
      throw new PathParameterError(`path parameter ${i + 1} must be a string, got ${typeof param}`);
    }
    const value = String(param);
    if (value === "") throw new PathParameterError(`path parameter ${i + 1} must not be empty (in ${out}…)`);
    if (value === "." || value === "..") {
      throw new PathParameterError(`path parameter ${i + 1} must not be "${value}" (in ${out}…)`);
    }
    out += encodeSegment(value) + statics[i + 1];
  });
  return out;
}

/** A query string from defined values; arrays are comma-joined (the service's List type). */
export function queryString(
  params: Record<string, string | number | boolean | string[] | undefined>,
): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    search.append(key, Array.isArray(value) ? value.join(",") : String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
