/** The `observability emulator` command, run from the build output as a user would. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { request } from "undici";

const root = join(__dirname, "..", "..");
const node = join(root, "node_modules", ".bin", "node");
const cli = join(root, "dist", "cli", "index.js");

function run(args: string[]) {
  const child = spawn(node, [cli, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function waitFor<T>(get: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("prints the URL, tokens and env lines, serves, and exits 0 on SIGINT", async () => {
  const p = run(["emulator", "--port", "0"]);
  try {
    const url = await waitFor(() => /OBSERVABILITY_URL=(\S+)/.exec(p.out())?.[1]);
    const token = /OBSERVABILITY_TOKEN=(\S+)/.exec(p.out())![1];
    expect(token).toBe("xaat-local-development-token");
    expect(p.out()).toContain("xapt-local-development-token");
    expect(p.out()).toContain("x-service-org-id: local-org");
    expect(p.out()).toContain(`  console:         ${url}/ `);
    const page = await request(`${url}/`);
    expect([page.statusCode, page.headers["content-type"]]).toEqual([200, "text/html; charset=utf-8"]);
    await page.body.dump();
    const res = await request(`${url}/v2/orgs`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual([expect.objectContaining({ id: "local-org" })]);
    await waitFor(() => (p.out().includes("GET /v2/orgs 200") ? true : undefined));
    expect(p.out()).not.toMatch(/Bearer/);
  } finally {
    p.child.kill("SIGINT");
  }
  expect(await p.exited).toBe(0);
  expect(p.out()).toContain("SIGINT: stopping");
});

it("takes its options from flags", async () => {
  const p = run([
    "emulator",
    "--port",
    "0",
    "--token",
    "xaat-custom",
    "--org-id",
    "acme",
    "--rate-limit",
    "2",
    "--quiet",
  ]);
  try {
    const url = await waitFor(() => /OBSERVABILITY_URL=(\S+)/.exec(p.out())?.[1]);
    // The CLI counts in the service's minute, and no test waits for one to begin: a burst that straddles two
    // windows (its X-RateLimit-Reset changes) is judged by its requests in the later one.
    const sent: { status: number; reset: unknown }[] = [];
    while (sent.at(-1)?.status !== 429 && sent.length < 5) {
      const res = await request(`${url}/v2/orgs/acme`, { headers: { authorization: "Bearer xaat-custom" } });
      await res.body.dump();
      sent.push({ status: res.statusCode, reset: res.headers["x-ratelimit-reset"] });
    }
    const lastWindow = sent.filter((r) => r.reset === sent.at(-1)!.reset);
    expect(lastWindow.map((r) => r.status)).toEqual([200, 200, 429]);
  } finally {
    p.child.kill("SIGTERM");
  }
  expect(await p.exited).toBe(0);
});

it("--ingest-quota, --query-quota (430) and --max-body-bytes (413) are enforced", async () => {
  const p = run([
    "emulator",
    "--port",
    "0",
    "--ingest-quota",
    "10",
    "--query-quota",
    "1",
    "--max-body-bytes",
    "100",
    "--dataset",
    "d",
  ]);
  try {
    const url = await waitFor(() => /OBSERVABILITY_URL=(\S+)/.exec(p.out())?.[1]);
    expect(p.out()).toContain("ingest quota:    10 bytes/month");
    expect(p.out()).toContain("query quota:     1 queries/month");
    const post = async (path: string, body: string) => {
      const res = await request(`${url}${path}`, {
        method: "POST",
        headers: { authorization: "Bearer xaat-local-development-token", "content-type": "application/json" },
        body,
      });
      return { status: res.statusCode, body: (await res.body.json()) as { code: number } };
    };
    expect(await post("/v1/datasets/d/ingest", '[{"a":1}]')).toMatchObject({ status: 200 });
    expect(await post("/v1/datasets/d/ingest", '[{"a":2}]')).toEqual({
      status: 430,
      body: { code: 430, message: expect.stringMatching(/ingest quota exceeded/) },
    });
    expect(await post("/v2/annotations", "x".repeat(101))).toMatchObject({
      status: 413,
      body: { code: 413 },
    });
    const apl = JSON.stringify({ apl: "['d']" });
    expect(await post("/v1/datasets/_apl", apl)).toMatchObject({ status: 200 });
    expect(await post("/v1/datasets/_apl", apl)).toMatchObject({ status: 430, body: { code: 430 } });
  } finally {
    p.child.kill("SIGTERM");
  }
  expect(await p.exited).toBe(0);
});

it.each([
  ["a non-numeric port", ["emulator", "--port", "abc"], /--port/],
  ["a bad fault spec", ["emulator", "--faults", "teapot=1"], /unknown kind "teapot"/],
  ["an unknown flag", ["emulator", "--frobnicate"], /unknown option '--frobnicate'/],
  [
    "a negative --max-body-bytes",
    ["emulator", "--max-body-bytes", "-5"],
    /--max-body-bytes must be an integer/,
  ],
  ["a zero --query-quota", ["emulator", "--query-quota", "0"], /--query-quota must be an integer/],
  [
    "a non-numeric --ingest-quota",
    ["emulator", "--ingest-quota", "10MB"],
    /--ingest-quota must be an integer/,
  ],
  ["an unknown command", ["frobnicate"], /unknown command/],
])("rejects %s with a message and a non-zero exit", async (_name, args, message) => {
  const p = run(args);
  const code = await p.exited;
  expect(code).toBe(2);
  expect(p.err()).toMatch(message);
});

it("a corrupt data file is a clear error and exit 1", async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(join(tmpdir(), "cli-data-"));
  const file = join(dir, "bad.json");
  writeFileSync(file, "nope");
  try {
    const p = run(["emulator", "--port", "0", "--data", file]);
    expect(await p.exited).toBe(1);
    expect(p.err()).toContain(`emulator data file ${file} is corrupt`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("--data survives kill -9 in the middle of a stream of writes: every acknowledged batch is back", async () => {
  const { mkdtempSync, readdirSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(join(tmpdir(), "cli-kill-"));
  const file = join(dir, "state.json");
  const headers = {
    authorization: "Bearer xaat-local-development-token",
    "content-type": "application/json",
  };
  // ~1 MB per request, so that a journal append is likely under way at the kill.
  const batch = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ i, pad: "x".repeat(180) })));
  try {
    const first = run(["emulator", "--port", "0", "--data", file, "--quiet", "--dataset", "k"]);
    const url = await waitFor(() => /OBSERVABILITY_URL=(\S+)/.exec(first.out())?.[1]);
    const role = await request(`${url}/v2/rbac/roles`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "before-the-kill" }),
    });
    expect(role.statusCode).toBe(200);
    await role.body.dump();
    let sent = 0;
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      const res = await request(`${url}/v1/datasets/k/ingest`, { method: "POST", headers, body: batch });
      await res.body.dump();
      if (res.statusCode === 200) sent += 5000;
    }
    first.child.kill("SIGKILL");
    await first.exited;

    const second = run(["emulator", "--port", "0", "--data", file, "--quiet"]);
    try {
      const url2 = await waitFor(() => /OBSERVABILITY_URL=(\S+)/.exec(second.out())?.[1]);
      // The journal was replayed into a fresh snapshot; only the new, empty segment is beside it.
      expect(readdirSync(dir).sort()).toEqual([
        "state.json",
        expect.stringMatching(/^state\.json\.journal\.\d+$/),
      ]);
      const roles = await request(`${url2}/v2/rbac/roles`, { headers });
      expect(await roles.body.json()).toEqual([expect.objectContaining({ name: "before-the-kill" })]);
      const count = await request(`${url2}/v1/datasets/_apl`, {
        method: "POST",
        headers,
        body: JSON.stringify({ apl: "['k'] | summarize count()", startTime: "now-1h", endTime: "now+1h" }),
      });
      const body = (await count.body.json()) as {
        buckets: { totals: { aggregations: { value: number }[] }[] };
      };
      // Every batch answered 200, plus at most the one in flight at the kill, whole or not at all.
      const saved = body.buckets.totals[0]?.aggregations[0].value ?? 0;
      expect(saved % 5000).toBe(0);
      expect(saved).toBeGreaterThanOrEqual(sent);
      expect(saved).toBeLessThanOrEqual(sent + 5000);
    } finally {
      second.child.kill("SIGTERM");
    }
    expect(await second.exited).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("--host: the published development tokens only on a loopback interface", () => {
  it.each(["0.0.0.0", "::"])(
    "--host %s without a token of one's own refuses to start, saying why and naming the flags (exit 2)",
    async (host) => {
      for (const extra of [[], ["--token", "xaat-local-development-token"]]) {
        const p = run(["emulator", "--port", "0", "--host", host, ...extra]);
        expect(await p.exited).toBe(2);
        expect(p.err()).toContain(`refusing to listen on ${host} with the public development tokens`);
        expect(p.err()).toContain("--token");
        expect(p.err()).toContain("--personal-token");
        expect(p.out()).not.toContain("listening on");
      }
    },
  );

  it("--host 0.0.0.0 --token <own>: serves with that token only, personal tokens off, and never prints the token", async () => {
    const p = run([
      "emulator",
      "--port",
      "0",
      "--host",
      "0.0.0.0",
      "--token",
      "xaat-cli-own-secret",
      "--quiet",
    ]);
    try {
      const url = await waitFor(() => /OBSERVABILITY_URL=(\S+)/.exec(p.out())?.[1]);
      expect(p.out()).toContain("personal token:  off");
      expect(p.out()).not.toContain("xaat-cli-own-secret");
      const status = async (token: string) => {
        const res = await request(`${url}/v2/orgs`, { headers: { authorization: `Bearer ${token}` } });
        await res.body.dump();
        return res.statusCode;
      };
      expect(await status("xaat-cli-own-secret")).toBe(200);
      expect(await status("xaat-local-development-token")).toBe(403);
    } finally {
      p.child.kill("SIGTERM");
    }
    expect(await p.exited).toBe(0);
  });

  it.each(["127.0.0.2", "localhost"])(
    "--host %s takes the development tokens, as 127.0.0.1 does",
    async (host) => {
      const p = run(["emulator", "--port", "0", "--host", host, "--quiet"]);
      try {
        const url = await waitFor(() => /OBSERVABILITY_URL=(\S+)/.exec(p.out())?.[1]);
        expect(p.out()).toContain("xaat-local-development-token (development default)");
        const res = await request(`${url}/v2/orgs`, {
          headers: { authorization: "Bearer xaat-local-development-token" },
        });
        await res.body.dump();
        expect(res.statusCode).toBe(200);
      } finally {
        p.child.kill("SIGTERM");
      }
      expect(await p.exited).toBe(0);
    },
  );
});
