/** Reading a request body as sent: `Content-Encoding` undone, with the size cap kept after decoding. */
import type { IncomingMessage } from "node:http";
import { promisify } from "node:util";
import * as zlib from "node:zlib";
import { HttpError } from "./errors";

type Decompress = (raw: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>;

const gunzipAsync: Decompress = promisify(zlib.gunzip);
// zstd arrived in Node 22.15: on an earlier Node 22 the emulator still starts, and answers zstd with a 415.
const zstdDecompressAsync: Decompress | undefined =
  typeof zlib.zstdDecompress === "function" ? promisify(zlib.zstdDecompress) : undefined;

/** The request body, decoded for `Content-Encoding: gzip` or `zstd` (axiom-go's default for ingest); more than
 * `maxBytes` once decoded is a 413. */
export async function readBody(req: IncomingMessage, raw: Buffer, maxBytes: number): Promise<Buffer> {
  const encoding = (req.headers["content-encoding"] ?? "").toLowerCase().trim();
  if (encoding === "" || encoding === "identity") return raw;
  const zstd = encoding === "zstd";
  if (zstd || encoding === "gzip" || encoding === "x-gzip") {
    const name = zstd ? "zstd" : "gzip";
    const decompress = zstd ? zstdDecompressAsync : gunzipAsync;
    if (!decompress) {
      throw new HttpError(
        415,
        `Content-Encoding zstd needs Node.js 22.15 or later (this is ${process.version})`,
      );
    }
    try {
      // The cap keeps a small "zip bomb" from inflating into gigabytes of memory.
      const options = { maxOutputLength: maxBytes };
      return await decompress(raw, options);
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
