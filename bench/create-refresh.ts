/**
 * Requests and bytes of creating and then refreshing N monitors and N notifiers through the real
 * dynamic-provider host, into an organization that already holds N of each, with listings shared (the default)
 * and with `OBSERVABILITY_SHARED_LISTINGS=0` (each refresh read one GET and each create its own baseline listing, as before), side by
 * side in one run. Each side gets a fresh emulator and host; requests are the emulator's own count, bytes are
 * request plus response bodies counted by a pass-through proxy in front of it. Steps run `concurrency` at a time
 * (the engine's parallelism), reads of both families interleaved as a refresh sends them. Prints one row per N,
 * step and side, and the ratios.
 *
 *   npm run build && node_modules/.bin/node bench/create-refresh.ts [sizes=200,1000] [concurrency=32]
 *
 * The create step is measured on both sides too: shared, the creates of a family share their baseline listing
 * (reconcile.ts); with the variable at 0, each create lists its family first, as before.
 */
// A block, not a module: `export {}` would make Node parse this file as ESM, where `require` is absent.
{
  const fs = require("node:fs") as typeof import("node:fs");
  const http = require("node:http") as typeof import("node:http");
  const ts = require("typescript") as typeof import("typescript");
  const { request } = require("undici") as typeof import("undici");

  // The host helper is TypeScript written for ts-jest; compiled to CommonJS here it loads as jest loads it.
  require.extensions[".ts"] = (module, filename) => {
    const source = fs.readFileSync(filename, "utf8");
    const out = ts.transpileModule(source, {
      fileName: filename,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
    });
    (module as unknown as { _compile(code: string, file: string): void })._compile(out.outputText, filename);
  };

  const { startProviderHost, urnOf } =
    require("../test/helpers/host.ts") as typeof import("../test/helpers/host");
  const { providerTexts } =
    require("../test/helpers/fault-run.ts") as typeof import("../test/helpers/fault-run");
  const { startEmulator } = require("../dist/emulator") as typeof import("../emulator");
  const { ObservabilityClient } = require("../dist/provider/client") as typeof import("../provider/client");
  const { SHARED_LISTINGS_ENV } =
    require("../dist/provider/client/env") as typeof import("../provider/client/env");

  const SIZES = (process.argv[2] ?? "200,1000").split(",").map(Number);
  const CONCURRENCY = Number(process.argv[3] ?? 32);

  type Props = Record<string, unknown>;
  type Kind = "Monitor" | "Notifier";
  interface Counts {
    requests: number;
    bytes: number;
    ms: number;
  }

  /** A proxy that forwards everything to `target` and counts request and response body bytes. */
  async function countingProxy(target: string) {
    let bytes = 0;
    const server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      const headers = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      const up = await request(target + (req.url ?? "/"), {
        method: (req.method ?? "GET") as "GET",
        headers,
        body: body.length > 0 ? body : undefined,
      });
      const answer = Buffer.from(await up.body.arrayBuffer());
      bytes += body.length + answer.length;
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(up.headers))
        if (typeof v === "string" && !["connection", "transfer-encoding", "keep-alive"].includes(k))
          out[k] = v;
      res.writeHead(up.statusCode, out);
      res.end(answer);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as import("node:net").AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      bytes: () => bytes,
      close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
    };
  }

  async function inParallel<T>(items: T[], run: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < items.length) await run(items[next++]);
      }),
    );
  }

  const args: Record<Kind, (name: string) => Props> = {
    Monitor: (name) => ({ name, aplQuery: "['logs'] | count", type: "MatchEvent" }),
    Notifier: (name) => ({ name, properties: { webhook: { url: `https://hooks.test/${name}` } } }),
  };
  const KINDS = Object.keys(args) as Kind[];

  async function side(
    n: number,
    shared: boolean,
    texts: Record<Kind, string>,
  ): Promise<{ create: Counts; refresh: Counts }> {
    const em = await startEmulator({ port: 0, host: "127.0.0.1" });
    const proxy = await countingProxy(em.url);
    const direct = new ObservabilityClient({ url: em.url, token: em.token });
    for (let i = 0; i < n; i++) {
      await direct.monitors.create(args.Monitor(`existing-${i}`) as never);
      await direct.notifiers.create(args.Notifier(`existing-${i}`) as never);
    }
    const host = await startProviderHost({
      config: { "observability:token": em.token, "observability:url": proxy.url },
      secretKeys: ["observability:token"],
      env: shared ? {} : { [SHARED_LISTINGS_ENV]: "0" },
    });
    await host.configure();
    const measure = async (step: () => Promise<void>): Promise<Counts> => {
      const [r0, b0, t0] = [em.stats.requests, proxy.bytes(), performance.now()];
      await step();
      return { requests: em.stats.requests - r0, bytes: proxy.bytes() - b0, ms: performance.now() - t0 };
    };
    // Interleaved, as the engine's steps are: one of each family in turn.
    const todo = [...Array(n).keys()].flatMap((i) => KINDS.map((kind) => ({ kind, i })));
    const made: { urn: string; id: string; props: Props; inputs: Props }[] = [];
    try {
      const create = await measure(() =>
        inParallel(todo, async ({ kind, i }) => {
          const urn = urnOf(kind, `new-${i}`);
          const { inputs } = await host.check(
            urn,
            {},
            { ...args[kind](`new-${i}`), __provider: texts[kind] },
          );
          const { id, properties } = await host.create(urn, inputs);
          made.push({ urn, id, props: properties, inputs });
        }),
      );
      const refresh = await measure(() =>
        inParallel(made, async (m) => {
          const read = await host.read(m.urn, m.id, m.props, m.inputs);
          if (read.id !== m.id) throw new Error(`refresh of ${m.urn} lost it`);
        }),
      );
      return { create, refresh };
    } finally {
      await host.close();
      await direct.close();
      await proxy.close();
      await em.close();
    }
  }

  const kb = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
  const row = (n: number, step: string, label: string, c: Counts) =>
    console.log(
      `N=${String(n).padEnd(5)} ${step.padEnd(8)} ${label.padEnd(32)} ${String(c.requests).padStart(6)} requests` +
        `  ${kb(c.bytes).padStart(10)}  ${(c.ms / 1000).toFixed(1).padStart(6)} s`,
    );

  void (async () => {
    const texts = await providerTexts();
    console.log(
      `N monitors and N notifiers into an organization holding N of each, ${CONCURRENCY} steps at a time, ` +
        "through the host\n",
    );
    for (const n of SIZES) {
      const oneByOne = await side(n, false, texts);
      const shared = await side(n, true, texts);
      for (const step of ["create", "refresh"] as const) {
        row(n, step, `${SHARED_LISTINGS_ENV}=0`, oneByOne[step]);
        row(n, step, "shared listings", shared[step]);
        console.log(
          `${" ".repeat(15)}ratio (shared / one by one): requests ` +
            `${(shared[step].requests / oneByOne[step].requests).toFixed(3)}, bytes ` +
            `${(shared[step].bytes / oneByOne[step].bytes).toFixed(3)}`,
        );
      }
    }
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
