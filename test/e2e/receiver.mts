/**
 * A local webhook receiver for the alerting runs: an HTTP server on a loopback port that answers 200 to every
 * request and records it (method, path, headers, body). The emulator delivers to loopback addresses by default,
 * and finishes each send before its clock move resolves, so once `em.clock.advance`/`to` has answered, every
 * request it made is recorded here: a test reads them without waiting.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as it arrived. */
export interface ReceivedRequest {
  method: string;
  /** The path with its query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request so far, in arrival order. */
  readonly requests: ReceivedRequest[];
  /** The requests whose path starts with `prefix`. */
  at(prefix: string): ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 at a free port. */
export async function startReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      // Recorded before the answer, so the sender's await covers it.
      requests.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      res.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    at: (prefix) => requests.filter((r) => r.path.startsWith(prefix)),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
