/** `observability ingest`, run from the build output against an emulator. */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { api, createDatasets, useEmulator } from "../helpers/emulator";
import { emulatorEnv, oneLine, runCli, useTempDir } from "../helpers/cli";

// The datasets this file ingests into exist first (the service answers 404 for one never created).
const em = useEmulator({
  datasets: ["gz", "stdin", "ts", "batches", "mixed", "tolerated", "cut", "d", "unreadable", "badcsv"].concat(
    ["badjson", "big", "brokengz", "tokfile", "labelled", "headerless"],
  ),
});
const tmp = useTempDir();
const env = () => emulatorEnv(em.current);

function file(name: string, content: string | Buffer): string {
  const path = join(tmp.path, name);
  writeFileSync(path, content);
  return path;
}

/** Every event of `dataset` as the emulator holds it, oldest first. */
async function events(dataset: string): Promise<Record<string, unknown>[]> {
  const res = await api(em.current, "POST", "/v1/datasets/_apl?format=legacy", {
    apl: `['${dataset}'] | sort by _time asc | limit 1000`,
    startTime: "2000-01-01T00:00:00Z",
    endTime: "now+1h",
  });
  expect(res.status).toBe(200);
  return (res.body.matches as { data: Record<string, unknown> }[]).map((m) => m.data);
}

/** Events in `dataset`; 0 when it holds none (created and empty), or was never created (the emulator's 404). */
async function count(dataset: string): Promise<number> {
  const res = await api(em.current, "POST", "/v1/datasets/_apl?format=tabular", {
    apl: `['${dataset}'] | summarize count()`,
    startTime: "2000-01-01T00:00:00Z",
    endTime: "now+1h",
  });
  if (res.status === 404) return 0;
  expect(res.status).toBe(200);
  return (res.body.tables[0].columns[0][0] as number | undefined) ?? 0;
}

const NDJSON = '{"n":1,"msg":"a"}\n{"n":2,"msg":"b"}\n{"n":3,"msg":"c"}\n';

describe("each format lands every event", () => {
  it.each([
    ["ndjson by extension", "a.ndjson", NDJSON, []],
    ["jsonl by extension", "a.jsonl", NDJSON, []],
    [
      "a JSON array by extension",
      "a.json",
      '[{"n":1,"msg":"a"},\n {"n":2,"msg":"b"}, {"n":3,"msg":"c"}]',
      [],
    ],
    ["csv by extension", "a.csv", "n,msg\n1,a\n2,b\n3,c\n", []],
    [
      "csv with --csv-delimiter",
      "semi.txt",
      "n;msg\n1;a\n2;b\n3;c\n",
      ["--format", "csv", "--csv-delimiter", ";"],
    ],
    ["ndjson guessed from the first character", "noext", NDJSON, []],
    [
      "a JSON array guessed from the first character",
      "noext2",
      ' [{"n":1,"msg":"a"},{"n":2,"msg":"b"},{"n":3,"msg":"c"}]',
      [],
    ],
    ["csv guessed from the first character", "noext3", "n,msg\n1,a\n2,b\n3,c", []],
    [
      "--format over a misleading extension",
      "really-csv.json",
      "n,msg\n1,a\n2,b\n3,c\n",
      ["--format", "csv"],
    ],
  ])("%s", async (_name, fileName, content, flags) => {
    const dataset = `fmt-${fileName.replace(/\W/g, "-")}`;
    await createDatasets(em.current, dataset);
    const r = await runCli(["ingest", dataset, file(fileName, content), ...flags], { env: env() });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toMatch(new RegExp(`^ingested 3 events into ${dataset}, 0 failed; `));
    expect(await events(dataset)).toEqual([
      { n: 1, msg: "a" },
      { n: 2, msg: "b" },
      { n: 3, msg: "c" },
    ]);
  });

  it("gunzips a .gz file, and a gzip file whatever its name", async () => {
    const r = await runCli(
      ["ingest", "gz", file("a.ndjson.gz", gzipSync(NDJSON)), file("b.csv", gzipSync("n,msg\n4,d\n"))],
      { env: env() },
    );
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toMatch(/^ingested 4 events into gz, 0 failed/);
    expect((await events("gz")).map((e) => e.n)).toEqual([1, 2, 3, 4]);
  });

  it('reads standard input for "-", and by default when it is piped', async () => {
    expect(await runCli(["ingest", "stdin", "-"], { env: env(), stdin: NDJSON })).toMatchObject({ code: 0 });
    expect(
      await runCli(["ingest", "stdin", "--format", "csv"], { env: env(), stdin: "n\n9\n" }),
    ).toMatchObject({
      code: 0,
    });
    expect((await events("stdin")).map((e) => e.n)).toEqual([1, 2, 3, 9]);
  });

  it("--timestamp-field and --timestamp-format set _time", async () => {
    const r = await runCli(
      ["ingest", "ts", "--timestamp-field", "when", "--timestamp-format", "2006-01-02 15:04:05", "-"],
      { env: env(), stdin: '{"when":"2024-03-01 10:00:00","n":1}\n' },
    );
    expect(r).toMatchObject({ code: 0, stderr: "" });
    const res = await api(em.current, "POST", "/v1/datasets/_apl", {
      apl: "['ts']",
      startTime: "2024-03-01T00:00:00Z",
      endTime: "2024-03-02T00:00:00Z",
    });
    expect(res.body.matches).toEqual([expect.objectContaining({ _time: "2024-03-01T10:00:00Z" })]);
  });

  it("--batch-size splits the requests (the summary still counts every event)", async () => {
    const lines = Array.from({ length: 25 }, (_, i) => JSON.stringify({ i })).join("\n");
    const r = await runCli(["ingest", "batches", "--batch-size", "10", file("b.ndjson", lines)], {
      env: env(),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ingested 25 events/);
    expect(await count("batches")).toBe(25);
  });
});

describe("exit codes", () => {
  const MIXED = '{"t":"bad","n":1}\n{"t":"2024-01-01T00:00:00Z","n":2}\n{"t":"worse","n":3}\n';

  it("1 when some events failed, with the first failures and their reasons", async () => {
    const r = await runCli(["ingest", "mixed", "--timestamp-field", "t", file("mixed.ndjson", MIXED)], {
      env: env(),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ingested 1 events into mixed, 2 failed; /);
    expect(r.stdout).toMatch(/failures:\n {2}\S+ {2}event 0: cannot parse timestamp field "t" value "bad"/);
    expect(r.stdout).toContain('value "worse"');
  });

  it("0 when no more than --max-failures failed", async () => {
    const r = await runCli(
      ["ingest", "tolerated", "--timestamp-field", "t", "--max-failures", "2", file("mixed2.ndjson", MIXED)],
      { env: env() },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/1 events into tolerated, 2 failed/);
  });

  it("1 past --max-failures, and reading stops there", async () => {
    const path = file("mixed3.ndjson", MIXED);
    const r = await runCli(
      ["ingest", "cut", "--timestamp-field", "t", "--max-failures", "1", "--batch-size", "1", path, path],
      { env: env() },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("stopped reading: more than 1 events failed (--max-failures)");
    // The second file was never sent: only the one good event of the first landed.
    expect(await events("cut")).toEqual([{ n: 2 }]);
  });

  it.each([
    ["an unknown flag", ["ingest", "d", "--frobnicate"], /unknown option '--frobnicate'/],
    ["a missing dataset", ["ingest"], /missing required argument 'dataset'/],
    [
      "--batch-size above 10,000",
      ["ingest", "d", "--batch-size", "10001", "-"],
      /--batch-size must be an integer/,
    ],
    [
      "a two-character delimiter",
      ["ingest", "d", "--csv-delimiter", ";;", "-"],
      /--csv-delimiter must be one/,
    ],
    ["two standard inputs", ["ingest", "d", "-", "-"], /can be read only once/],
    ["--label without a name", ["ingest", "d", "--label", "=eu", "-"], /--label must be name=value/],
    ["--label without =", ["ingest", "d", "--label", "region", "-"], /--label must be name=value/],
    ["--csv-fields with an empty name", ["ingest", "d", "--csv-fields", "a,,b", "-"], /field 2 has no name/],
    ["--csv-fields with a name twice", ["ingest", "d", "--csv-fields", "a,b,a", "-"], /"a" appears twice/],
    [
      "--csv-fields with --format ndjson",
      ["ingest", "d", "--csv-fields", "a", "--format", "ndjson", "-"],
      /--csv-fields is for CSV input/,
    ],
  ])("2 for a usage error: %s", async (_name, args, message) => {
    const r = await runCli(args, { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

it("2 without a file when standard input is /dev/null (as on many CI runners), not 0 events", async () => {
  const r = await runCli(["ingest", "d"], { env: env(), stdin: "none" });
  expect(r.code).toBe(2);
  expect(oneLine(r.stderr)).toBe(
    'observability ingest: no input: name one or more files, or "-" to read standard input',
  );
});

describe("bad input: one line naming the problem, never a stack trace", () => {
  it("an unreadable file (exit 2, nothing sent)", async () => {
    const good = file("good.ndjson", NDJSON);
    const r = await runCli(["ingest", "unreadable", good, join(tmp.path, "missing.ndjson")], { env: env() });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(
      `observability ingest: cannot read ${join(tmp.path, "missing.ndjson")}: ENOENT (no such file or directory)`,
    );
    expect(await count("unreadable")).toBe(0);
  });

  it("a directory, and a file without read permission (exit 2)", async () => {
    const dir = join(tmp.path, "a-dir");
    mkdirSync(dir);
    const r = await runCli(["ingest", "d", dir], { env: env() });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toContain("it is a directory");
    if (process.getuid?.() !== 0) {
      // root reads any file, so the permission case only means something for other users.
      const locked = file("locked.ndjson", NDJSON);
      chmodSync(locked, 0o000);
      const r2 = await runCli(["ingest", "d", locked], { env: env() });
      expect(r2.code).toBe(2);
      expect(oneLine(r2.stderr)).toContain("EACCES (permission denied)");
    }
  });

  it.each([
    ["an empty column name", "a,,c\n1,2,3\n", "column 2 has no name"],
    ["a column named twice", "a,b,a\n1,2,3\n", 'column "a" appears twice'],
    ["an unclosed quote", 'a,"b\n1,2\n', "Quote Not Closed"],
    ["an empty first line", "\n1,2\n", "the first line is empty"],
  ])("a malformed CSV header: %s (exit 1, nothing sent)", async (_name, content, reason) => {
    const path = file(`bad-${reason.replace(/\W/g, "")}.csv`, content);
    const r = await runCli(["ingest", "badcsv", path], { env: env() });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toContain(`observability ingest: ${path}: malformed CSV header: ${reason}`);
    expect(await count("badcsv")).toBe(0);
  });

  it("a broken gzip (exit 1), saying how many events had landed before it", async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ i, pad: "x".repeat(40) })).join(
      "\n",
    );
    const gz = gzipSync(lines);
    // The first part is intact (a batch of 10,000 goes out before the damage), then the stream just stops.
    const path = file("broken.ndjson.gz", gz.subarray(0, Math.floor(gz.length * 0.8)));
    const r = await runCli(["ingest", "brokengz", "--batch-size", "5000", path], { env: env() });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(
      new RegExp(
        `^observability ingest: ${path}: broken gzip: unexpected end of file \\([\\d,]+ events had been ingested\\)$`,
      ),
    );
  });

  it("a corrupted gzip header (exit 1)", async () => {
    const gz = gzipSync(NDJSON);
    gz[3] = 0xff; // reserved flag bits set
    const r = await runCli(["ingest", "d", file("corrupt.gz", gz)], { env: env() });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/corrupt\.gz: broken gzip: /);
  });

  it.each([
    ["not an array", '{"a":1}', "invalid JSON array: expected a JSON array", ["--format", "json"]],
    ["an element that is not an object", "[1,2]", "element 1 is not an object", []],
    ["an unclosed array", '[{"a":1}', "the JSON array is not closed with ]", []],
    ["a broken element", '[{"a":1},{"a":}]', "element 2 is not valid JSON", []],
  ])("an invalid JSON array: %s (exit 1)", async (_name, content, reason, flags) => {
    const r = await runCli(["ingest", "badjson", ...flags, file(`bad${_name.length}.json`, content)], {
      env: env(),
    });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toContain(reason);
  });

  it("an unknown format (exit 2)", async () => {
    const r = await runCli(["ingest", "d", "--format", "xml", file("x.ndjson", NDJSON)], { env: env() });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe('observability ingest: unknown format "xml": use ndjson, json, csv');
  });

  it("a missing token (exit 2)", async () => {
    const r = await runCli(["ingest", "d", file("y.ndjson", NDJSON)], {
      env: { OBSERVABILITY_URL: em.current.url },
    });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(
      "observability ingest: no token: set OBSERVABILITY_TOKEN, or pass --token-file FILE (or --token-file - to read it from standard input)",
    );
  });

  it("a 403 (exit 1), and the refused token is shown nowhere", async () => {
    const token = "xaat-not-the-right-token-7c1e";
    const r = await runCli(["ingest", "d", file("z.ndjson", NDJSON)], {
      env: { OBSERVABILITY_URL: em.current.url, OBSERVABILITY_TOKEN: token },
    });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/^observability ingest: the service refused the token \(403/);
    expect(r.stdout + r.stderr).not.toContain(token);
  });

  it("--token-file - with the events also on standard input (exit 2)", async () => {
    const r = await runCli(["ingest", "d", "--token-file", "-", "-"], {
      env: { OBSERVABILITY_URL: em.current.url },
    });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toContain("already carries the events");
  });
});

it("takes the token from --token-file", async () => {
  const tokenFile = file("token", `${em.current.token}\n`);
  const r = await runCli([
    "ingest",
    "tokfile",
    "--token-file",
    tokenFile,
    "--url",
    em.current.url,
    file("t.ndjson", NDJSON),
  ]);
  expect(r.code).toBe(0);
  expect(await count("tokfile")).toBe(3);
});

it("ingests 200,000 events, and the emulator holds every one", async () => {
  const lines: string[] = [];
  for (let i = 0; i < 200_000; i++) lines.push(`{"i":${i},"level":"${i % 7 === 0 ? "error" : "info"}"}`);
  const path = file("big.ndjson.gz", gzipSync(lines.join("\n") + "\n"));
  const r = await runCli(["ingest", "big", path], { env: env() });
  expect(r).toMatchObject({ code: 0, stderr: "" });
  expect(r.stdout).toMatch(/^ingested 200,000 events into big, 0 failed; /);
  // Every distinct event, not just the right number of them.
  const res = await api(em.current, "POST", "/v1/datasets/_apl?format=tabular", {
    apl: "['big'] | summarize count(), min(i), max(i), dcount(i)",
    startTime: "2000-01-01T00:00:00Z",
    endTime: "now+1h",
  });
  expect(res.status).toBe(200);
  expect(res.body.tables[0].columns.map((c: unknown[]) => c[0])).toEqual([200_000, 0, 199_999, 200_000]);
});

describe("the live service's ingest options (axiomhq/axiom-go axiom/ingest/options.go SetEventLabel, SetCSVFields)", () => {
  it("--label k=v, repeatable, adds each label to every event; a later one of the same name wins", async () => {
    const r = await runCli(
      [
        "ingest",
        "labelled",
        "--label",
        "region=eu-west-1",
        "--label",
        "team=a=b",
        "--label",
        "region=us-east-1",
      ].concat(file("l.ndjson", NDJSON)),
      { env: env() },
    );
    expect(r.code).toBe(0);
    const got = await events("labelled");
    expect(got).toHaveLength(3);
    for (const e of got) expect(e).toMatchObject({ region: "us-east-1", team: "a=b" });
  });

  it("--csv-fields names the columns of CSV without a header row: its first line is an event", async () => {
    const r = await runCli(
      ["ingest", "headerless", "--csv-fields", "n,msg", file("rows.txt", "1,a\n2,b\n3,c\n")],
      {
        env: env(),
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toContain("ingested 3 events");
    const got = await events("headerless");
    expect(got.map((e) => [e.n, e.msg]).sort()).toEqual([
      [1, "a"],
      [2, "b"],
      [3, "c"],
    ]);
  });
});

it("--help shows an example", async () => {
  const r = await runCli(["ingest", "--help"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("$ observability ingest http-logs access.ndjson.gz");
});
