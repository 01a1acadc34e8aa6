/** JSON request bodies: the `Content-Type` check, parsing, and validation, each failure a 4xx naming the problem. */
import type { z } from "zod";
import { formatFailures, validate } from "../../provider/schemas/common";
import { mediaType } from "./content-type";
import { HttpError } from "./errors";
import { parseExactJson } from "./exact-json";
import type { RequestContext } from "./router";

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

/**
 * Parses a JSON request body, integers beyond 2^53 exact (./exact-json.ts, for the `format: int64` fields); an
 * empty or malformed one is a 400 naming the problem.
 */
export function parseJson(body: Buffer): unknown {
  const text = body.toString("utf8");
  if (text.trim() === "") throw new HttpError(400, "request body is empty; expected a JSON object");
  try {
    return parseExactJson(text);
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

/**
 * The status of a request whose body has a field missing or invalid: 422, as the live service answers (recorded in
 * alchemy-run/distilled `packages/axiom/patches/v2/001-add-error-responses.patch.json`, from live probes; the OpenAPI document omits it). A body that is not JSON at all stays
 * 400. This is the one place it is chosen: every body rule fails with it ({@link validateBody} and the query
 * bodies, emulator/query).
 */
export const INVALID_FIELD_STATUS = 422;

/** Validates a request body with its schema; failures become one error naming every failing field. */
export function validateBody<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = validate(schema, input);
  if (!result.ok) throw new HttpError(INVALID_FIELD_STATUS, formatFailures(result.failures));
  return result.value;
}

/** Validates query-string parameters with their schema; failures become one 400 naming every failing parameter. */
export function validateQuery<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = validate(schema, input);
  if (!result.ok) throw new HttpError(400, formatFailures(result.failures));
  return result.value;
}
