/** Ingest against a real emulator: every source kind, batching, CSV quoting, summed results, bounded memory. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createGunzip, gunzipSync } from "node:zlib";
import { ObservabilityClient, type IngestProgress } from "../../provider/client";
import { KEEP_ALIVE_MS } from "../../emulator/server";
import { useEmulator } from "../helpers/emulator";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

// The datasets this file ingests into exist first (ingest into one never created is a 404); the ones named at
// run time are created through the client's datasets family before their ingest.
const em = useEmulator({
  record: true,
  datasets: [
    "utf8",
    "bad",
    "bad-late",
    "bad-tojson",
    "bad-gen",
    "batching",
    "failures",
    "csv",
    "csv-detect",
  ].concat(["csv-bad", "big"]),
});
let client: ObservabilityClient;
beforeAll(() => {
  client = new ObservabilityClient({ url: em.current.url, token: em.current.token });
});
afterAll(() => client.close());

/** Ingest requests the emulator received since `from`, bodies gunzipped. */
function batchesSince(from: number) {
  return em.current.received
    .slice(from)
    .filter((r) => r.path.endsWith("/ingest"))
    .map((r) => ({ ...r, text: gunzipSync(r.body).toString("utf8") }));
}

async function count(dataset: string): Promise<number> {
  const page = await client.query(`['${dataset}'] | count`, {
    startTime: "1970-01-01T00:00:00Z",
    endTime: "now+1h",
  });
  // Aggregations come back in buckets.totals in the legacy format.
  expect(page.buckets).toBeDefined();
  const totals = page.buckets!.totals as { aggregations: { value: number }[] }[];
  return totals[0].aggregations[0].value;
}

async function rows(dataset: string) {
  const page = await client.query(`['${dataset}'] | sort by _time asc | limit 1000`, {
    startTime: "1970-01-01T00:00:00Z",
    endTime: "now+1h",
  });
  return page.matches.map((m) => {
    expect(m.data).toBeDefined();
    return m.data!;
  });
}

const ev = (i: number) => ({
  _time: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
  i,
  msg: `event ${i}`,
});

describe("sources", () => {
  async function* asyncObjects(n: number) {
    for (let i = 0; i < n; i++) yield ev(i);
  }
  const ndjson = (n: number) => Array.from({ length: n }, (_, i) => JSON.stringify(ev(i))).join("\n") + "\n";

  it.each<[string, () => unknown]>([
    ["an array of objects", () => Array.from({ length: 5 }, (_, i) => ev(i))],
    [
      "a sync iterable (generator) of objects",
      () =>
        (function* () {
          for (let i = 0; i < 5; i++) yield ev(i);
        })(),
    ],
    ["an async iterable of objects", () => asyncObjects(5)],
    ["an object-mode Readable", () => Readable.from(Array.from({ length: 5 }, (_, i) => ev(i)))],
    ["NDJSON text", () => ndjson(5)],
    ["NDJSON bytes", () => Buffer.from(ndjson(5))],
    ["a JSON array as text", () => JSON.stringify(Array.from({ length: 5 }, (_, i) => ev(i)))],
    [
      "an NDJSON byte stream split at odd places",
      () => {
        const bytes = Buffer.from(ndjson(5));
        return Readable.from([bytes.subarray(0, 7), bytes.subarray(7, 100), bytes.subarray(100)], {
          objectMode: false,
        });
      },
    ],
    ["an NDJSON string stream without a trailing newline", () => Readable.from([ndjson(5).trimEnd()])],
  ])("%s", async (_rule, make) => {
    const dataset = `src-${Math.random().toString(36).slice(2, 8)}`;
    await client.datasets.create({ name: dataset });
    const before = em.current.received.length;
    const summary = await client.ingest(dataset, make() as never);
    expect(summary).toMatchObject({ ingested: 5, failed: 0, failures: [], batches: 1 });
    expect(summary.processedBytes).toBeGreaterThan(0);
    const [batch] = batchesSince(before);
    expect(batch.headers["content-type"]).toBe("application/x-ndjson");
    expect(
      batch.text
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(Array.from({ length: 5 }, (_, i) => ev(i)));
    expect((await rows(dataset)).map((r) => r.i)).toEqual([0, 1, 2, 3, 4]);
  });

  it("multi-byte UTF-8 split across chunks arrives intact", async () => {
    const text = Buffer.from(JSON.stringify({ msg: "grüße 🚀 ok" }) + "\n");
    const cut = text.indexOf(Buffer.from("🚀")) + 2; // in the middle of the emoji
    const summary = await client.ingest("utf8", Readable.from([text.subarray(0, cut), text.subarray(cut)]));
    expect(summary.ingested).toBe(1);
    expect((await rows("utf8"))[0].msg).toBe("grüße 🚀 ok");
  });

  it("a non-object event is refused with its index before anything is sent", async () => {
    const before = em.current.received.length;
    await expect(client.ingest("bad", [{ a: 1 }, 5 as never])).rejects.toThrow("events[1] must be an object");
    expect(batchesSince(before)).toHaveLength(0);
  });

  it("an array is checked whole first: a bad event in a later batch sends nothing at all", async () => {
    const before = em.current.received.length;
    const events: unknown[] = Array.from({ length: 15_000 }, (_, i) => ev(i));
    events[12_345] = "oops";
    await expect(client.ingest("bad-late", events as never)).rejects.toThrow(
      "events[12345] must be an object, got string",
    );
    // A first batch sent before the check would still be in flight when the call rejects: give it time to land.
    await new Promise((r) => setTimeout(r, 300));
    expect(batchesSince(before)).toHaveLength(0);
  });

  it.each<[string, () => unknown]>([
    ["an array", () => [{ a: 1 }, { toJSON: () => undefined }]],
    [
      "a generator",
      () =>
        (function* () {
          yield { a: 1 };
          yield { toJSON: () => undefined };
        })(),
    ],
  ])(
    "an event whose toJSON gives undefined is refused, not sent as the word undefined (%s)",
    async (_k, make) => {
      await expect(client.ingest("bad-tojson", make() as never)).rejects.toThrow(
        "events[1] serializes to nothing",
      );
    },
  );

  it("a generator left early by a bad event is closed (its finally block runs), as for-of would", async () => {
    let closed = false;
    const source = (function* () {
      try {
        yield { a: 1 };
        yield 7;
        yield { a: 2 };
      } finally {
        closed = true;
      }
    })();
    await expect(client.ingest("bad-gen", source as never)).rejects.toThrow("events[1] must be an object");
    expect(closed).toBe(true);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      "a batchSize over the service's 10,000 limit",
      { batchSize: 10_001 },
      /options\.batchSize must be an integer from 1 to 10000/,
    ],
    ["a negative maxFailures", { maxFailures: -1 }, /options\.maxFailures must be an integer of at least 0/],
    ["an unknown format", { format: "xml" }, /options\.format must be ndjson or csv, got xml/],
    ["an onProgress that is not a function", { onProgress: 5 }, /options\.onProgress must be a function/],
    [
      "a timeoutMs that is not a positive integer",
      { timeoutMs: -5 },
      /options\.timeoutMs must be a positive integer/,
    ],
    ["a signal that is not an AbortSignal", { signal: "stop" }, /options\.signal must be an AbortSignal/],
  ])("refuses %s, naming the option, before sending", async (_rule, options, message) => {
    const before = em.current.received.length;
    await expect(client.ingest("bad", [{ a: 1 }], options)).rejects.toThrow(message);
    expect(batchesSince(before)).toHaveLength(0);
  });
});

describe("batching and results", () => {
  it("25,001 events go as 10,000 + 10,000 + 5,001; onProgress reports running totals per batch", async () => {
    const before = em.current.received.length;
    const progress: IngestProgress[] = [];
    const summary = await client.ingest(
      "batching",
      (function* () {
        for (let i = 0; i < 25_001; i++) yield ev(i);
      })(),
      { onProgress: (p) => progress.push(p) },
    );
    expect(summary).toMatchObject({ ingested: 25_001, failed: 0, batches: 3 });
    const batches = batchesSince(before);
    expect(batches.map((b) => b.text.trim().split("\n").length)).toEqual([10_000, 10_000, 5_001]);
    expect(progress.map((p) => [p.ingested, p.batches])).toEqual([
      [10_000, 1],
      [20_000, 2],
      [25_001, 3],
    ]);
    expect(progress[2].bytes).toBe(batches.reduce((n, b) => n + Buffer.byteLength(b.text), 0));
    expect(await count("batching")).toBe(25_001);
  });

  it.each<[string, (events: Record<string, unknown>[]) => unknown]>([
    ["an array", (events) => events],
    ["a generator", (events) => events.values()],
    [
      "an NDJSON byte stream",
      (events) => Readable.from(events.map((e) => Buffer.from(JSON.stringify(e) + "\n"))),
    ],
  ])(
    "the 8 MiB batch bound counts UTF-8 bytes, not characters: 3-byte characters cut batches 3 times sooner (%s)",
    async (_k, make) => {
      // 20,000 euro signs: 20 k characters but 60 kB per event, so 300 events are 18 MB of UTF-8.
      const events = Array.from({ length: 300 }, (_, i) => ({ i, note: "€".repeat(20_000) }));
      await client.datasets.create({ name: `utf8-bound-${_k.length}` });
      const before = em.current.received.length;
      const summary = await client.ingest(`utf8-bound-${_k.length}`, make(events) as never);
      const sizes = batchesSince(before).map((b) => Buffer.byteLength(b.text));
      em.current.received.length = before; // the recorder would otherwise keep 18 MB of bodies
      expect(summary).toMatchObject({ ingested: 300, failed: 0, batches: 3 });
      expect(sizes.every((n) => n <= 8 * 1024 * 1024)).toBe(true);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(
        events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)) + 1, 0),
      );
    },
  );

  it("sums failures over batches (unparseable timestamps with timestamp-field) and keeps at most maxFailures", async () => {
    const events = Array.from({ length: 10 }, (_, i) => ({
      ts: i % 2 ? "not a time" : "2024-01-01T00:00:00Z",
      i,
    }));
    const progress: IngestProgress[] = [];
    const summary = await client.ingest("failures", events, {
      timestampField: "ts",
      batchSize: 3,
      maxFailures: 2,
      onProgress: (p) => progress.push(p),
    });
    expect(summary).toMatchObject({ ingested: 5, failed: 5, batches: 4 });
    // Progress carries every running total, failures and the service's processed bytes included.
    expect(progress.map((p) => [p.batches, p.events, p.ingested, p.failed])).toEqual([
      [1, 3, 2, 1],
      [2, 6, 3, 3],
      [3, 9, 5, 4],
      [4, 10, 5, 5],
    ]);
    expect(progress.every((p, k) => p.processedBytes > (progress[k - 1]?.processedBytes ?? 0))).toBe(true);
    expect(progress[3].processedBytes).toBe(summary.processedBytes);
    expect(summary.failures).toHaveLength(2);
    expect(summary.failures[0]).toMatchObject({ error: expect.any(String), timestamp: expect.any(String) });
  });

  it("an HTTP failure mid-stream rejects with the API error (not swallowed)", async () => {
    const bad = new ObservabilityClient({ url: em.current.url, token: "wrong-token-0000" });
    await expect(bad.ingest("x", [{ a: 1 }])).rejects.toMatchObject({ name: "ForbiddenError", status: 403 });
    await bad.close();
  });
});

describe("CSV", () => {
  const csv = [
    "name,note,n",
    'alice,"hello, world",1',
    'bob,"line one',
    'line two",2',
    'carol,"she said ""hi""",3',
    "dave,plain,4",
    "",
  ].join("\r\n");

  it("keeps quoted commas, quoted newlines and doubled quotes; re-sends the header with every batch", async () => {
    const before = em.current.received.length;
    // Byte chunks of 5 split records, quotes and CRLFs at arbitrary places.
    const bytes = Buffer.from(csv);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 5) }, (_, i) =>
      bytes.subarray(i * 5, i * 5 + 5),
    );
    const summary = await client.ingest("csv", Readable.from(chunks), { format: "csv", batchSize: 2 });
    expect(summary).toMatchObject({ ingested: 4, failed: 0, batches: 2 });
    const batches = batchesSince(before);
    expect(batches.map((b) => b.headers["content-type"])).toEqual(["text/csv", "text/csv"]);
    expect(batches[0].text).toBe('name,note,n\nalice,"hello, world",1\nbob,"line one\r\nline two",2\n');
    expect(batches[1].text).toBe('name,note,n\ncarol,"she said ""hi""",3\ndave,plain,4\n');
    const stored = (await rows("csv")).map((r) => [r.name, r.note, r.n]);
    expect(stored).toEqual(
      expect.arrayContaining([
        ["alice", "hello, world", 1],
        ["bob", "line one\r\nline two", 2],
        ["carol", 'she said "hi"', 3],
        ["dave", "plain", 4],
      ]),
    );
  });

  it("detects CSV from raw text that does not start with {", async () => {
    const summary = await client.ingest("csv-detect", "a,b\n1,2\n3,4\n");
    expect(summary).toMatchObject({ ingested: 2, batches: 1 });
  });

  it("a CSV that ends inside a quoted field is refused", async () => {
    await expect(client.ingest("csv-bad", 'a,b\n1,"open\n', { format: "csv" })).rejects.toThrow(
      /inside a quoted field/,
    );
  });
});

describe("bounded memory", () => {
  it("streams 200,000 NDJSON events from a lazy Readable with bounded heap growth", async () => {
    const total = 200_000;
    const lines = function* () {
      // 1,000 lines per chunk: a byte stream as a file read would deliver it.
      for (let start = 0; start < total; start += 1000) {
        let chunk = "";
        for (let i = start; i < start + 1000; i++)
          chunk += JSON.stringify({ i, level: i % 3 ? "info" : "warn", msg: `request ${i} served` }) + "\n";
        yield Buffer.from(chunk);
      }
    };
    em.current.received.length = 0; // the recorder would otherwise hold every body
    const baseline = process.memoryUsage().heapUsed;
    let peak = baseline;
    const summary = await client.ingest("big", Readable.from(lines()), {
      onProgress: () => {
        em.current.received.length = 0;
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      },
    });
    expect(summary).toMatchObject({ ingested: total, failed: 0, batches: 20 });
    expect(await count("big")).toBe(total);
    // The emulator (same process) keeps the events; the client must add far less than the input size.
    expect(peak - baseline).toBeLessThan(100 * 1024 * 1024);
  });

  it("input far larger than the bound (≈120 MB of NDJSON) streams through with heap growth under 40 MB", async () => {
    // A sink that counts lines without keeping them, so only the client's memory shows in the heap.
    let lines = 0;
    const sink = createServer((req, res) => {
      let n = 0;
      req
        .pipe(createGunzip())
        .on("data", (c: Buffer) => {
          for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) n++;
        })
        .on("end", () => {
          lines += n;
          res.writeHead(200, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              ingested: n,
              failed: 0,
              failures: [],
              processedBytes: 0,
              blocksCreated: 0,
              walLength: n,
            }),
          );
        });
    });
    // Idle connections outlive the client's own keep-alive (30 s), as the emulator's do: with Node's 5 s default
    // the sink may close a connection just as the client sends its next batch on it (ECONNRESET under load).
    sink.keepAliveTimeout = KEEP_ALIVE_MS;
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", () => r()));
    const sinkClient = new ObservabilityClient({
      url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`,
      token: "t-sink",
    });
    const pad = "x".repeat(560);
    const total = 200_000;
    const chunks = function* () {
      for (let start = 0; start < total; start += 500) {
        let chunk = "";
        for (let i = start; i < start + 500; i++) chunk += `{"i":${i},"pad":"${pad}"}\n`;
        inputBytes += chunk.length;
        yield Buffer.from(chunk);
      }
    };
    // Live memory, not garbage V8 has not collected yet: collect before each sample.
    const live = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    let inputBytes = 0;
    const baseline = live();
    let peak = baseline;
    const summary = await sinkClient.ingest("sink", Readable.from(chunks()), {
      onProgress: () => (peak = Math.max(peak, live())),
    });
    await sinkClient.close();
    sink.close();
    expect(summary).toMatchObject({ ingested: total, batches: 20 });
    expect(lines).toBe(total);
    expect(inputBytes).toBeGreaterThan(110 * 1024 * 1024);
    expect(peak - baseline).toBeLessThan(40 * 1024 * 1024);
  });
});
