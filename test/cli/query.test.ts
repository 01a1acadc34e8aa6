/** `observability query`, run from the build output against an emulator. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { api, useEmulator } from "../helpers/emulator";
import { emulatorEnv, oneLine, runCli, useTempDir } from "../helpers/cli";

const em = useEmulator({ datasets: ["web", "many", "late", "same"] });
const tmp = useTempDir();
const env = () => emulatorEnv(em.current);
const WINDOW = ["--start", "2024-01-01T00:00:00Z", "--end", "2024-01-02T00:00:00Z"];

beforeAll(async () => {
  // Three small events with an object field and a comma, and 2,500 more at distinct times for paging. `user` is a
  // map field, so its object is stored whole (any other nested object is flattened into dotted names).
  expect((await api(em.current, "POST", "/v2/datasets/web/mapfields", { name: "user" })).status).toBe(200);
  const small = [
    { _time: "2024-01-01T00:00:03Z", status: 500, path: "/a,b", user: { id: 7 } },
    { _time: "2024-01-01T00:00:02Z", status: 200, path: "/c" },
    { _time: "2024-01-01T00:00:01Z", status: 503, path: '/say "hi"' },
  ];
  expect((await api(em.current, "POST", "/v1/datasets/web/ingest", small)).status).toBe(200);
  const many = Array.from({ length: 2500 }, (_, i) => ({
    _time: new Date(Date.UTC(2024, 0, 1, 1) + i * 1000).toISOString(),
    i,
  }));
  expect((await api(em.current, "POST", "/v1/datasets/many/ingest", many)).status).toBe(200);
});

describe("each format", () => {
  it("ndjson when standard output is not a terminal: one object a line, newest first", async () => {
    const r = await runCli(["query", "['web']", ...WINDOW], { env: env() });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(
      r.stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { _time: "2024-01-01T00:00:03Z", status: 500, path: "/a,b", user: { id: 7 } },
      { _time: "2024-01-01T00:00:02Z", status: 200, path: "/c" },
      { _time: "2024-01-01T00:00:01Z", status: 503, path: '/say "hi"' },
    ]);
  });

  it("json: one array", async () => {
    const r = await runCli(["query", "['web'] | where status >= 500", ...WINDOW, "--format", "json"], {
      env: env(),
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      expect.objectContaining({ status: 500 }),
      expect.objectContaining({ status: 503 }),
    ]);
  });

  it("json: an empty result is []", async () => {
    const r = await runCli(["query", "['web'] | where status == 404", ...WINDOW, "--format", "json"], {
      env: env(),
    });
    expect(r).toMatchObject({ code: 0, stdout: "[]\n" });
  });

  it("csv: a header, then RFC 4180 quoting, objects as JSON", async () => {
    const r = await runCli(["query", "['web']", ...WINDOW, "--format", "csv"], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "_time,status,path,user",
        '2024-01-01T00:00:03Z,500,"/a,b","{""id"":7}"',
        "2024-01-01T00:00:02Z,200,/c,",
        '2024-01-01T00:00:01Z,503,"/say ""hi""",',
        "",
      ].join("\n"),
    );
  });

  it("table: aligned columns", async () => {
    const r = await runCli(["query", "['web'] | project status, path", ...WINDOW, "--format", "table"], {
      env: env(),
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "_time                 status  path",
        "2024-01-01T00:00:03Z  500     /a,b",
        "2024-01-01T00:00:02Z  200     /c",
        '2024-01-01T00:00:01Z  503     /say "hi"',
        "",
      ].join("\n"),
    );
  });

  it("an aggregation is one request, in any format", async () => {
    const r = await runCli(
      ["query", "['web'] | summarize n = count() by status", ...WINDOW, "--format", "csv"],
      {
        env: env(),
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").slice(1).filter(Boolean).sort()).toEqual(["200,1", "500,1", "503,1"]);
  });
});

it("table and csv say on stderr when a field first appears after the columns were laid out", async () => {
  // Newest first: the 250 rows without `extra` come before the one that has it.
  const rows = Array.from({ length: 250 }, (_, i) => ({
    _time: new Date(Date.UTC(2024, 0, 1, 3) + i * 1000).toISOString(),
    i,
  }));
  rows.push({ _time: "2024-01-01T02:00:00Z", i: -1, extra: "late" } as (typeof rows)[number]);
  expect((await api(em.current, "POST", "/v1/datasets/late/ingest", rows)).status).toBe(200);
  const r = await runCli(["query", "['late']", ...WINDOW, "--format", "csv"], { env: env() });
  expect(r.code).toBe(0);
  expect(r.stdout.split("\n")[0]).toBe("_time,i");
  expect(r.stdout.trimEnd().split("\n")).toHaveLength(252);
  expect(oneLine(r.stderr)).toBe(
    'observability query: field "extra" first appears after the columns were laid out and is not shown; use --format ndjson or json to see every field',
  );
});

describe("paging", () => {
  it("walks every page of a result larger than one page", async () => {
    const r = await runCli(["query", "['many']", ...WINDOW], { env: env() });
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { i: number });
    expect(rows).toHaveLength(2500);
    expect(rows.map((row) => row.i)).toEqual(Array.from({ length: 2500 }, (_, k) => 2499 - k));
  });

  it("--limit stops the walk after N rows", async () => {
    const r = await runCli(["query", "['many'] | sort by _time asc", ...WINDOW, "--limit", "1500"], {
      env: env(),
    });
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { i: number });
    expect(rows.map((row) => row.i)).toEqual(Array.from({ length: 1500 }, (_, k) => k));
  });

  it("--cursor-paging walks rows that share one _time", async () => {
    const same = Array.from({ length: 1200 }, (_, i) => ({ _time: "2024-01-01T05:00:00Z", i }));
    expect((await api(em.current, "POST", "/v1/datasets/same/ingest", same)).status).toBe(200);
    const stalled = await runCli(["query", "['same']", ...WINDOW], { env: env() });
    expect(stalled.code).toBe(1);
    expect(stalled.stderr.trimEnd().split("\n").pop()).toMatch(
      /more than 1000 rows share one _time.*--cursor-paging/,
    );
    const r = await runCli(["query", "['same']", ...WINDOW, "--cursor-paging"], { env: env() });
    expect(r.code).toBe(0);
    expect(
      new Set(
        r.stdout
          .trimEnd()
          .split("\n")
          .map((l) => (JSON.parse(l) as { i: number }).i),
      ).size,
    ).toBe(1200);
  });
});

describe("errors: one line, never a stack trace", () => {
  it("an APL syntax error shows the service's line and column (exit 1)", async () => {
    const r = await runCli(["query", "['web']\n| whre status > 1", ...WINDOW], { env: env() });
    expect(r.code).toBe(1);
    // The client puts the service's detail (line, column) in the message; either order names both.
    const line = oneLine(r.stderr);
    expect(line).toMatch(/^observability query: /);
    expect(line).toMatch(/unknown or unsupported operator 'whre'/);
    expect(line).toMatch(/line 2, column 3/);
  });

  it.each([
    ["an unknown format", ["--format", "yaml"], 'unknown format "yaml": use table, json, ndjson, csv'],
    [
      "a bad --start",
      ["--start", "yesterday"],
      '--start "yesterday": must be an RFC 3339 time or a relative time such as now-1h',
    ],
    ["an empty query", [], "the APL query is empty"],
  ])("%s (exit 2)", async (name, flags, message) => {
    const apl = name === "an empty query" ? " " : "['web']";
    const r = await runCli(["query", apl, ...flags], { env: env() });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(`observability query: ${message}`);
  });

  it("a missing token (exit 2)", async () => {
    const r = await runCli(["query", "['web']"], { env: { OBSERVABILITY_URL: em.current.url } });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/^observability query: no token: set OBSERVABILITY_TOKEN/);
  });

  it("a 403 from a token read on standard input (exit 1), shown nowhere", async () => {
    const token = "xaat-wrong-query-token-19af";
    const r = await runCli(["query", "['web']", "--token-file", "-", "--url", em.current.url], {
      stdin: `${token}\n`,
    });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/the service refused the token \(403/);
    expect(r.stdout + r.stderr).not.toContain(token);
  });

  it("a region that does not exist (exit 2)", async () => {
    const r = await runCli(["query", "['web']", "--region", "mars"], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--region.*must be us or eu/);
  });
});

it("reads the token from --token-file, and from standard input", async () => {
  const tokenFile = join(tmp.path, "token");
  writeFileSync(tokenFile, `${em.current.token}\n`);
  const args = ["query", "['web'] | summarize count()", ...WINDOW, "--url", em.current.url];
  const fromFile = await runCli([...args, "--token-file", tokenFile]);
  const fromStdin = await runCli([...args, "--token-file", "-"], { stdin: em.current.token });
  for (const r of [fromFile, fromStdin]) expect(r).toMatchObject({ code: 0, stdout: '{"count_":3}\n' });
});

it("--help shows an example", async () => {
  const r = await runCli(["query", "--help"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`$ observability query "['http-logs'] | where status >= 500" --start now-1h`);
});
