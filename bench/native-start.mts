/**
 * How long the native provider plugin takes to start: from spawning its launcher to the port on the first line
 * of its stdout, which is when the engine can first call it (pulumi/pulumi pkg/resource/plugin/plugin.go). The
 * engine starts the plugin once per operation, so this is paid by every `pulumi up`, `preview` and `refresh`.
 * Beside it, the same for the no-op plugin (bench/native-noop.mts), the bench's baseline.
 *
 *   npm run build && node_modules/.bin/node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON bench/native-start.mts [runs]
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const runs = Number(process.argv[2] ?? "10");

/** Milliseconds from spawn to the first stdout line, then the process is ended. */
function startOnce(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) {
        const ms = performance.now() - t0;
        if (!/^\d+\n/.test(out)) reject(new Error(`first line is not a port: ${JSON.stringify(out)}`));
        child.kill();
        resolve(ms);
      }
    });
    child.on("exit", (code) => {
      if (!out.includes("\n")) reject(new Error(`${cmd} exited ${code} before printing its port`));
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const node = process.execPath;
const sides: [string, string, string[]][] = [
  ["native", path.join(ROOT, "dist", "plugin", "pulumi-resource-observability"), []],
  [
    "no-op",
    node,
    ["--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", path.join(ROOT, "bench", "native-noop.mts")],
  ],
];
for (const [name, cmd, args] of sides) {
  const times: number[] = [];
  // Sequential, so the two sides never compete for the CPU.
  for (let i = 0; i < runs; i++) times.push(await startOnce(cmd, args));
  console.log(
    `${name.padEnd(7)} start to port: median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)} ms (${runs} runs)`,
  );
}
