/** The emulator's tiny HTTP toolkit: one error writer, JSON helpers, body reading and a path router. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { gunzip, zstdDecompress } from "node:zlib";
import { promisify } from "node:util";
import type { z } from "zod";
import { formatFailures, validate } from "../provider/schemas/common";

const gunzipAsync = promisify(gunzip);
const zstdDecompressAsync = promisify(zstdDecompress);

/** An error a handler throws to answer with `{code, message}` (and optional `detail`). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail?: unknown,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/** The service's 404 body text for any missing id. */
export const NOT_FOUND_MESSAGE = "Not found";

/** Writes a JSON response. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/** Writes the service's error body `{code, message}` (plus `detail` for APL errors). */
export function sendError(res: ServerResponse, status: number, message: string, detail?: unknown): void {
  sendJson(res, status, detail === undefined ? { code: status, message } : { code: status, message, detail });
}

/** Writes 204 with an empty body, as every DELETE answers. */
export function sendNoContent(res: ServerResponse): void {
  res.statusCode = 204;
  res.end();
}

/** The request body, decoded for `Content-Encoding: gzip` or `zstd` (axiom-go's default for ingest); more than
 * `maxBytes` once decoded is a 413. */
export async function readBody(req: IncomingMessage, raw: Buffer, maxBytes: number): Promise<Buffer> {
  const encoding = (req.headers["content-encoding"] ?? "").toLowerCase().trim();
  if (encoding === "" || encoding === "identity") return raw;
  const zstd = encoding === "zstd";
  if (zstd || encoding === "gzip" || encoding === "x-gzip") {
    const name = zstd ? "zstd" : "gzip";
    try {
      // The cap keeps a small "zip bomb" from inflating into gigabytes of memory.
      const options = { maxOutputLength: maxBytes };
      return await (zstd ? zstdDecompressAsync(raw, options) : gunzipAsync(raw, options));
    } catch (err) {
      if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
        const decoded = zstd ? "zstd-decompressed" : "gunzipped";
        throw new HttpError(413, `request body is larger than ${maxBytes} bytes once ${decoded}`);
      }
      throw new HttpError(400, `request body is not valid ${name} (Content-Encoding: ${encoding})`);
    }
  }
  throw new HttpError(415, `unsupported Content-Encoding: ${encoding}; use gzip, zstd or none`);
}

/** A `Content-Type` value without parameters, lower-cased; "" when absent. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0].trim().toLowerCase();
}

/** The request's `Content-Type` without parameters, lower-cased; "" when absent. */
export function mediaType(req: IncomingMessage): string {
  return mediaTypeOf(req.headers["content-type"]);
}

/**
 * The JSON body of a management or query request. A `Content-Type` other than JSON is a 415 naming it; none at
 * all is accepted, as the body is parsed as JSON anyway.
 */
export function jsonBody(ctx: RequestContext): unknown {
  const type = mediaType(ctx.req);
  if (type !== "" && type !== "application/json" && !type.endsWith("+json")) {
    throw new HttpError(415, `unsupported Content-Type "${type}": this endpoint takes application/json`);
  }
  return parseJson(ctx.body);
}

/** Parses a JSON request body; an empty or malformed one is a 400 naming the problem. */
export function parseJson(body: Buffer): unknown {
  const text = body.toString("utf8");
  if (text.trim() === "") throw new HttpError(400, "request body is empty; expected a JSON object");
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, `request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** The JSON object body of a request (see {@link jsonBody}); anything but an object is a 400. */
export function jsonObjectBody(ctx: RequestContext): Record<string, unknown> {
  const value = jsonBody(ctx);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError(400, "request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

/** Validates with a schema; failures become one 400 whose message names every failing field. */
export function validateOr400<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = validate(schema, input);
  if (!result.ok) throw new HttpError(400, formatFailures(result.failures));
  return result.value;
}

/** What a route handler receives. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** Decoded path parameters, by name. */
  params: Record<string, string>;
  /** Query string; repeated keys become arrays. */
  query: Record<string, string | string[]>;
  /** The request body (gunzipped); read before routing. */
  body: Buffer;
}

/** A route handler; it writes the response itself or throws an {@link HttpError}. */
export type Handler = (ctx: RequestContext) => void | Promise<void>;

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
}

/** Outcome of {@link Router.match}. */
export type RouteMatch =
  | { kind: "found"; handler: Handler; params: Record<string, string> }
  | { kind: "method-not-allowed"; allowed: string[] }
  | { kind: "not-found" };

/** Path router: `/v2/monitors/:id/history` style patterns; literal segments win over parameters. */
export class Router {
  private readonly routes: Route[] = [];

  /** Registers a handler for a method and path pattern. */
  add(method: string, pattern: string, handler: Handler): this {
    this.routes.push({ method, segments: pattern.split("/").filter(Boolean), handler });
    return this;
  }

  /** Finds the route for a method and path; distinguishes an unknown path from a wrong method. */
  match(method: string, path: string): RouteMatch {
    let parts: string[];
    try {
      parts = path.split("/").slice(1).map(decodeURIComponent);
    } catch {
      return { kind: "not-found" };
    }
    const allowed: string[] = [];
    let best: { route: Route; params: Record<string, string>; literals: number } | undefined;
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let literals = 0;
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = route.segments[i];
        if (seg.startsWith(":")) params[seg.slice(1)] = parts[i];
        else if (seg === parts[i]) literals++;
        else {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      if (!best || literals > best.literals) best = { route, params, literals };
    }
    if (best) return { kind: "found", handler: best.route.handler, params: best.params };
    if (allowed.length > 0) return { kind: "method-not-allowed", allowed: [...new Set(allowed)] };
    return { kind: "not-found" };
  }
}

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
