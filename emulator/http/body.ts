/** Reading a request body as sent: `Content-Encoding` undone, with the size cap kept after decoding. */
import type { IncomingMessage } from "node:http";
import { promisify } from "node:util";
import { gunzip, zstdDecompress } from "node:zlib";
import { HttpError } from "./errors";

const gunzipAsync = promisify(gunzip);
const zstdDecompressAsync = promisify(zstdDecompress);

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
