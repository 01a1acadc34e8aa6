/** Reading a request body as sent: `Content-Encoding` undone, with the size cap kept after decoding. */
import type { IncomingMessage } from "node:http";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { HttpError } from "./errors";

const gunzipAsync = promisify(gunzip);

/** The request body, gunzipped when `Content-Encoding: gzip`; more than `maxBytes` once gunzipped is a 413. */
export async function readBody(req: IncomingMessage, raw: Buffer, maxBytes: number): Promise<Buffer> {
  const encoding = (req.headers["content-encoding"] ?? "").toLowerCase().trim();
  if (encoding === "" || encoding === "identity") return raw;
  if (encoding === "gzip" || encoding === "x-gzip") {
    try {
      // The cap keeps a small "gzip bomb" from inflating into gigabytes of memory.
      return await gunzipAsync(raw, { maxOutputLength: maxBytes });
    } catch (err) {
      if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
        throw new HttpError(413, `request body is larger than ${maxBytes} bytes once gunzipped`);
      }
      throw new HttpError(400, "request body is not valid gzip (Content-Encoding: gzip)");
    }
  }
  throw new HttpError(415, `unsupported Content-Encoding: ${encoding}; use gzip or none`);
}
