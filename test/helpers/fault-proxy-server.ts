/**
 * A real HTTP proxy in front of an emulator that faults exactly the requests a test picks, where the emulator's
 * own `--faults` draw at random. Each request is offered to `plan` with its method, path and the number of
 * earlier requests of that method (it may act first, e.g. create an object out of band); the answer decides
 * its fate:
 * - `"500"` / `"502"` / `"503"`: answered without forwarding (the service never saw it);
 * - `"500after"`: forwarded, then answered 500 (processed, reported failed);
 * - `"drop"`: the socket is destroyed without forwarding;
 * - `{ delayMs }`: forwarded after a delay (a client with a shorter timeout gives up first);
 * - `{ answerAfter }`: forwarded at once (the service handles it), its answer held until the promise settles;
 * - `{ forwardAfter }`: forwarded only once the promise settles (the service handles it then);
 * - any of the three objects may carry `answered`, called as soon as the service has answered: the test then
 *   knows the request was handled (a listing's snapshot taken, an object stored), and can act on it while the
 *   client still waits;
 * - undefined: forwarded as is.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";

/** The fate of one proxied request. */
export type ProxyFault =
  | "500"
  | "502"
  | "503"
  | "500after"
  | "drop"
  | { delayMs: number; answered?: () => void }
  | { answerAfter: Promise<unknown>; answered?: () => void }
  | { forwardAfter: Promise<unknown>; answered?: () => void }
  | undefined;

/** A promise and the function that settles it: what a test hands `answerAfter` or `forwardAfter`, and opens. */
export function gate(): { done: Promise<void>; open: () => void } {
  let open!: () => void;
  const done = new Promise<void>((r) => (open = r));
  return { done, open };
}

/** A running proxy. */
export interface FaultProxy {
  /** Base URL to point the client at. */
  url: string;
  /** Requests seen, as `METHOD path`. */
  seen: string[];
  /** Resolves when every request received so far has been answered or dropped (delayed ones included). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Starts a proxy to `target` on 127.0.0.1:0. */
export async function startFaultProxy(
  target: string,
  plan: (method: string, path: string, nth: number) => ProxyFault | Promise<ProxyFault>,
): Promise<FaultProxy> {
  const counts = new Map<string, number>();
  const seen: string[] = [];
  const pending = new Set<Promise<void>>();
  const server: Server = createServer((req, res) => {
    const handled = handle(req, res).catch(() => void res.destroy());
    pending.add(handled);
    void handled.finally(() => pending.delete(handled));
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const nth = counts.get(method) ?? 0;
    counts.set(method, nth + 1);
    seen.push(`${method} ${req.url}`);
    const fault = await plan(method, req.url ?? "/", nth);
    const body = await bodyOf(req);
    if (fault === "drop") return void req.socket.destroy();
    if (fault === "500" || fault === "502" || fault === "503") {
      res.writeHead(Number(fault), { "content-type": "application/json" });
      return void res.end(JSON.stringify({ code: Number(fault), message: "injected by the test's proxy" }));
    }
    if (typeof fault === "object" && "delayMs" in fault)
      await new Promise((r) => setTimeout(r, fault.delayMs));
    if (typeof fault === "object" && "forwardAfter" in fault) await fault.forwardAfter.catch(() => undefined);
    const headers = { ...req.headers };
    delete headers.host;
    delete headers.connection;
    const upstream = await request(target + (req.url ?? "/"), {
      method: method as "GET",
      headers,
      body: body.length > 0 ? body : undefined,
    });
    const text = await upstream.body.text();
    if (typeof fault === "object") fault.answered?.();
    if (typeof fault === "object" && "answerAfter" in fault) await fault.answerAfter.catch(() => undefined);
    if (fault === "500after") {
      res.writeHead(500, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ code: 500, message: "injected after processing" }));
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(upstream.headers)) {
      if (typeof v === "string" && !["connection", "transfer-encoding", "keep-alive"].includes(k)) out[k] = v;
    }
    res.writeHead(upstream.statusCode, out);
    res.end(text);
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    idle: async () => void (await Promise.all([...pending])),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
