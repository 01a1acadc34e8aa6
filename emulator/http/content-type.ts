/** The media type of a request, as `Content-Type` names it. */
import type { IncomingMessage } from "node:http";

/** A `Content-Type` value without parameters, lower-cased; "" when absent. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0].trim().toLowerCase();
}

/** The request's `Content-Type` without parameters, lower-cased; "" when absent. */
export function mediaType(req: IncomingMessage): string {
  return mediaTypeOf(req.headers["content-type"]);
}
