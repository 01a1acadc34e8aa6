/**
 * How long the native provider plugin takes to start: from spawning its launcher to the port on the first line
 * of its stdout, which is when the engine can first call it (pulumi/pulumi pkg/resource/plugin/plugin.go). The
 * engine starts the plugin once per operation, so this is paid by every `pulumi up`, `preview` and `refresh`.
 * Beside it, the same for the no-op plugin (bench/native-noop.mts), the bench's baseline, and for the released
 * plugin: this platform's tarball from dist/release (npm run release) or dist/provider-tarball (npm run
 * provider:tarball), extracted into a temporary folder, as `pulumi plugin install` leaves it. The sides take turns
 * within each run (released, dev, no-op, then the next run), so a busy machine slows them alike.
 *
 *   npm run build && node_modules/.bin/node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON bench/native-start.mts [runs]
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
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
  ["dev", path.join(ROOT, "dist", "plugin", "pulumi-resource-observability"), []],
  [
    "no-op",
    node,
    ["--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", path.join(ROOT, "bench", "native-noop.mts")],
  ],
];

// The released plugin for this platform, when one was built.
const version = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string })
  .version;
const platform = `${os.platform()}-${os.arch() === "x64" ? "amd64" : os.arch()}`;
const tarball = ["release", "provider-tarball"]
  .map((d) => path.join(ROOT, "dist", d, `pulumi-resource-observability-v${version}-${platform}.tar.gz`))
  .find((f) => fs.existsSync(f));
const extracted = fs.mkdtempSync(path.join(os.tmpdir(), "native-start-"));
if (tarball) {
  execFileSync("tar", ["-xzf", tarball, "-C", extracted]);
  sides.unshift(["released", path.join(extracted, "pulumi-resource-observability"), []]);
} else {
  console.log("released: no tarball for this platform; run npm run release or npm run provider:tarball");
}

const times = new Map(sides.map(([name]) => [name, [] as number[]]));
try {
  for (let i = 0; i < runs; i++) {
    // One side at a time, so they never compete for the CPU; in turns, so a load that changes hits all alike.
    for (const [name, cmd, args] of sides) times.get(name)!.push(await startOnce(cmd, args));
  }
} finally {
  fs.rmSync(extracted, { recursive: true, force: true });
}
const noop = median(times.get("no-op")!);
for (const [name] of sides) {
  const t = times.get(name)!;
  const vs =
    name === "no-op"
      ? ""
      : `, ${(median(t) - noop).toFixed(0)} ms over the no-op (${(median(t) / noop).toFixed(2)}×)`;
  console.log(
    `${name.padEnd(8)} start to port: median ${median(t).toFixed(0)} ms, min ${Math.min(...t).toFixed(0)} ms${vs} (${runs} runs)`,
  );
}
