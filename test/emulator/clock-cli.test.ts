/**
 * `observability emulator --clock manual --now T --deliver-to HOST`: the built bin starts on a manual clock that
 * `POST /_emulator/clock` moves, and refuses a bad flag naming it.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { runCli } from "../helpers/cli";

const root = join(__dirname, "..", "..");

/** Starts the bin with `args`, resolves with its URL once the banner names it, and a way to stop it. */
function startBin(args: string[]): Promise<{ url: string; banner: () => string; stop: () => Promise<void> }> {
  const child = spawn(
    join(root, "node_modules", ".bin", "node"),
    [join(root, "dist", "cli", "index.js"), ...args],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m && out.includes("Press Ctrl-C"))
        resolve({
          url: m[1],
          banner: () => out,
          stop: () => {
            child.kill("SIGTERM");
            return exited;
          },
        });
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.once("exit", (code) => reject(new Error(`the emulator exited (${code}) before listening: ${out}`)));
  });
}

it("--clock manual --now holds time still at --now until POST /_emulator/clock moves it", async () => {
  const bin = await startBin([
    "emulator",
    "--port",
    "0",
    "--quiet",
    "--clock",
    "manual",
    "--now",
    "2026-02-03T04:05:06Z",
    "--deliver-to",
    "hooks.example.com",
  ]);
  try {
    expect(bin.banner()).toContain("clock:           manual, at 2026-02-03T04:05:06.000Z");
    expect(bin.banner()).toContain("deliver to:      hooks.example.com (and loopback addresses)");
    const headers = {
      authorization: "Bearer xaat-local-development-token",
      "content-type": "application/json",
    };
    const moved = await fetch(`${bin.url}/_emulator/clock`, {
      method: "POST",
      headers,
      body: JSON.stringify({ advance: "1h" }),
    });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toEqual({ now: "2026-02-03T05:05:06.000Z", runs: [] });
  } finally {
    await bin.stop();
  }
});

it.each([
  [
    ["--clock", "sometimes"],
    /option '--clock <kind>' argument 'sometimes' is invalid\. must be "real" or "manual"/,
  ],
  [
    ["--clock", "manual", "--now", "yesterday"],
    /option '--now <time>' argument 'yesterday' is invalid\. must be an RFC 3339 time/,
  ],
  [["--now", "2026-01-01T00:00:00Z"], /--now needs --clock manual/],
  [
    ["--deliver-to", "http://hooks.example.com/x"],
    /option '--deliver-to <host\.\.\.>' argument .* is invalid\. must be a host name or name:port/,
  ],
])("%p is a usage error naming the flag", async (args, message) => {
  const { code, stderr } = await runCli(["emulator", "--port", "0", ...args]);
  expect(code).toBe(2);
  expect(stderr).toMatch(message);
  expect(stderr).not.toMatch(/\n\s+at /);
});
