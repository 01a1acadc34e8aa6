/**
 * Management writes per second of the CLI emulator with `--data` (every change journalled and synced before its
 * reply) against the same emulator without it, measured side by side in one run. Each write is a POST, PUT or
 * DELETE of a role (each worker creates, renames, then deletes), 16 at a time over keep-alive undici. Goal:
 * with `--data` at least 0.5× the writes/s without. Run after `npm run build`:
 *   node_modules/.bin/node bench/emulator-durability.ts [writes per run] [rounds]
 */
// A block, not a module: `export {}` would make Node parse this file as ESM, where `require` is absent;
// the block keeps these names out of the global scope the other bench scripts share when type-checked.
{
  const { mkdtempSync, rmSync } = require("node:fs") as typeof import("node:fs");
  const { tmpdir } = require("node:os") as typeof import("node:os");
  const path = require("node:path") as typeof import("node:path");
  const { Pool } = require("undici") as typeof import("undici");
  const { interleave, spawnEmulator, stats } =
    require("./client-harness.ts") as typeof import("./client-harness");

  const ROOT = path.resolve(__dirname, "..");
  const WRITES = Number(process.argv[2] ?? 3_000);
  const ROUNDS = Number(process.argv[3] ?? 5);
  const CONCURRENCY = 16;
  const GOAL = 0.5;

  /** `WRITES` writes, `CONCURRENCY` at a time; returns the wall time in ms. Any answer but success is an error. */
  async function run(pool: InstanceType<typeof Pool>, token: string): Promise<number> {
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    let left = WRITES;
    let serial = 0;
    const call = async (method: "POST" | "PUT" | "DELETE", p: string, body?: unknown) => {
      const res = await pool.request({
        method,
        path: p,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`${method} ${p}: ${res.statusCode} ${text}`);
      return text ? JSON.parse(text) : undefined;
    };
    const worker = async () => {
      while (left > 0) {
        left -= 3;
        const name = `bench-${process.pid}-${serial++}`;
        const role = await call("POST", "/v2/rbac/roles", { name, description: "created" });
        await call("PUT", `/v2/rbac/roles/${role.id}`, { name, description: "renamed" });
        await call("DELETE", `/v2/rbac/roles/${role.id}`);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return performance.now() - started;
  }

  async function main(): Promise<void> {
    const dir = mkdtempSync(path.join(tmpdir(), "bench-durability-"));
    const durable = await spawnEmulator(ROOT, ["--data", path.join(dir, "state.json")]);
    const memory = await spawnEmulator(ROOT);
    const pools = [
      new Pool(durable.url, { connections: CONCURRENCY }),
      new Pool(memory.url, { connections: CONCURRENCY }),
    ];
    try {
      const times = await interleave(
        ROUNDS,
        () => run(pools[0], durable.token),
        () => run(pools[1], memory.token),
      );
      const perSecond = (ms: number) => (WRITES / ms) * 1000;
      console.log(
        `management writes (POST, PUT, DELETE of roles), ${WRITES} a run, ${CONCURRENCY} at a time, ${ROUNDS} rounds A B A B`,
      );
      for (const [label, runs] of [
        ["A  with --data", times.a],
        ["B  without --data", times.b],
      ] as const) {
        const s = stats(runs);
        console.log(
          `  ${label.padEnd(20)} ${perSecond(s.median).toFixed(0).padStart(6)} writes/s (median run ${s.median.toFixed(0)} ms, ` +
            `min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)})`,
        );
      }
      const ratio = stats(times.b).median / stats(times.a).median;
      console.log(
        `  ratio A/B of writes/s ${ratio.toFixed(3)}  (goal >= ${GOAL}: ${ratio >= GOAL ? "met" : "NOT met"})`,
      );
    } finally {
      await Promise.all(pools.map((p) => p.close()));
      await Promise.all([durable.close(), memory.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
