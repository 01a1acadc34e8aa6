/**
 * The run's local receiver: an HTTP server on 127.0.0.1 that answers every request 200 and keeps it, so that the
 * notifiers of a test deliver (loopback is the emulator's default allowed target) without reaching any vendor.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the receiver got. */
export interface ReceivedRequest {
  method: string;
  /** The path: `/<notifier key>` as the run points each notifier. */
  path: string;
  body: string;
}

/** A running receiver. */
export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The URL a notifier's sends go to: its key as the path. */
  urlFor(key: string): string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** The most a request body may hold: bodies past it are cut (notifications are small; a service's cap is 0.1 MB). */
const MAX_BODY = 1 << 20;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

/** Starts a receiver on a free loopback port. */
export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    received.push({ method: req.method ?? "", path: req.url ?? "/", body });
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    urlFor: (key) => `${url}/${encodeURIComponent(key)}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
