/**
 * Benchmark: parsing a custom webhook template, and one render's overrun of its time budget (issue 50). Runs the
 * compiled code in dist/, so build first:
 *   npx tsc -p tsconfig.json && node_modules/.bin/node bench/webhook-template.mts [--baseline <dir>]
 * `<dir>` holds an older dist/ (dist/provider/go-template/webhook.js): each row then shows it and this one side by
 * side, measured in the same run.
 *
 * Parse rows: the worst shapes within the source bound (64 KiB), each the best of 5 parses of a fresh source (the
 * parse cache is keyed by source; a digit in front makes each one new), and the sources of a megabyte,
 * which the bound refuses before reading them. Render rows: on the real clock with the emulator's 100 ms budget,
 * the wall time of one render (its parse not counted) whose command's arguments, or eq's comparisons, are the
 * work: how far past the budget it runs before it stops. Last, this build only: the emulator's answer to
 * `POST /v2/notifiers` with the 31.5 MB body, and how late a timer set meanwhile fired (how long the event
 * loop was held).
 */
import { loadavg } from "node:os";
import path from "node:path";
import { startEmulator } from "../dist/emulator/index.js";

interface Webhook {
  parseWebhookTemplate: (source: string) => { execute: (data: unknown) => string };
}

async function load(dir: string): Promise<Webhook> {
  const mod = (await import(path.resolve(dir, "dist/provider/go-template/webhook.js"))) as {
    default?: Webhook;
  } & Webhook;
  return mod.default ?? mod;
}

const KIB64 = 64 * 1024;
/** `head`, then `unit` as many times as fit in `size` bytes with `tail`. */
function fill(size: number, head: string, unit: string, tail: string): string {
  return head + unit.repeat(Math.floor((size - head.length - tail.length) / unit.length)) + tail;
}

const PARSE: readonly { name: string; make: (size: number) => string; size: number }[] = [
  { name: "one string of \\x41 escapes", make: (n) => fill(n, '{{"', "\\x41", '"}}'), size: KIB64 },
  { name: "eq of one-digit arguments", make: (n) => fill(n, "{{if eq ", "1 ", "}}y{{end}}"), size: KIB64 },
  { name: "print of dots", make: (n) => fill(n, "{{len (print ", ". ", ")}}"), size: KIB64 },
  { name: "spaces in one action", make: (n) => fill(n, "{{", " ", ".}}"), size: KIB64 },
  { name: "(.) arguments", make: (n) => fill(n, "{{print ", "(.) ", "}}"), size: KIB64 },
  {
    name: "99 parentheses around one-digit arguments",
    make: (n) => fill(n, `{{len ${"(".repeat(99)}print `, "1 ", `${")".repeat(99)}}}`),
    size: KIB64,
  },
  {
    name: "2,400 variables, then uses of the last",
    make: (n) => {
      let decl = "";
      for (let k = 0; k < 2400; k++) decl += `{{$a${k}:=1}}`;
      return fill(n, decl + "{{print ", "$a2399 ", "}}");
    },
    size: KIB64,
  },
  { name: "10,000 actions {{.}}", make: () => "{{.}}".repeat(10_000), size: KIB64 },
  { name: "the issue's \\x41 string, 1 MB", make: (n) => fill(n, '{{"', "\\x41", '"}}'), size: 1 << 20 },
  { name: "the issue's eq, 1 MB", make: (n) => fill(n, "{{if eq ", "1 ", "}}y{{end}}"), size: 1 << 20 },
];

const RENDER: readonly { name: string; source: string }[] = [
  { name: "eq of 30,000 arguments", source: `{{eq 1${" 1".repeat(30_000)}}}` },
  {
    name: "eq of 30,000 arguments, in a loop",
    source: `{{range 100000}}{{if eq 0${" 1".repeat(30_000)}}}{{end}}{{end}}`,
  },
  {
    name: "eq of two 1 MiB values, 16,000 comparisons",
    source: `{{$a := printf "%1048000s" "x"}}{{$b := printf "%1048000s" "y"}}{{eq $a${" $b".repeat(16_000)}}}`,
  },
];

let fresh = 0;
function parseMs(w: Webhook, make: (size: number) => string, size: number): { ms: number; outcome: string } {
  let best = Infinity;
  let outcome = "parsed";
  for (let r = 0; r < 5; r++) {
    const source = `${fresh++ % 10}${make(size - 1)}`;
    const started = performance.now();
    try {
      w.parseWebhookTemplate(source);
    } catch (e) {
      outcome = (e as Error).message.replace(/^template: webhook:(\d+:)? /, "").slice(0, 60);
    }
    best = Math.min(best, performance.now() - started);
  }
  return { ms: best, outcome };
}

/** The render alone: the source is parsed (and cached) first, untimed. */
function renderMs(w: Webhook, source: string): { ms: number; outcome: string } {
  const template = w.parseWebhookTemplate(source);
  const started = performance.now();
  let outcome = "rendered";
  try {
    template.execute({});
  } catch (e) {
    outcome = (e as Error).message.replace(/^.*>: /, "").slice(0, 60);
  }
  return { ms: performance.now() - started, outcome };
}

const baselineAt = process.argv.indexOf("--baseline");
const runs: { label: string; w: Webhook }[] = [];
if (baselineAt > 0) runs.push({ label: "baseline", w: await load(process.argv[baselineAt + 1]) });
runs.push({ label: "this", w: await load(".") });

console.log(`load average ${loadavg()[0].toFixed(1)}; node ${process.version}`);
console.log("\nparse (best of 5, ms)");
for (const row of PARSE) {
  const cells = runs.map(({ label, w }) => {
    const { ms, outcome } = parseMs(w, row.make, row.size);
    return `${label} ${ms.toFixed(1).padStart(8)} ms (${outcome})`;
  });
  console.log(
    `  ${row.name.padEnd(44)} ${(row.size / 1024).toFixed(0).padStart(5)} KiB  ${cells.join("  |  ")}`,
  );
}
console.log("\nrender on the real clock, budget 100 ms (ms)");
for (const row of RENDER) {
  const cells = runs.map(({ label, w }) => {
    const { ms, outcome } = renderMs(w, row.source);
    return `${label} ${ms.toFixed(0).padStart(7)} ms (${outcome})`;
  });
  console.log(`  ${row.name.padEnd(44)} ${cells.join("  |  ")}`);
}

console.log("\nPOST /v2/notifiers with a 31.5 MB custom webhook body (this build)");
{
  const em = await startEmulator({ port: 0 });
  try {
    const body = JSON.stringify({
      name: "huge",
      properties: {
        customWebhook: { url: "http://127.0.0.1:9/hook", body: `{{"${"\\x41".repeat(6_300_000)}"}}` },
      },
    });
    // A timer due every 10 ms: its worst lateness is how long the event loop was held while the request was handled.
    let worstLate = 0;
    let due = performance.now() + 10;
    const timer = setInterval(() => {
      worstLate = Math.max(worstLate, performance.now() - due);
      due = performance.now() + 10;
    }, 10);
    const started = performance.now();
    const res = await fetch(`${em.url}/v2/notifiers`, {
      method: "POST",
      headers: { authorization: `Bearer ${em.token}`, "content-type": "application/json" },
      body,
    });
    const text = await res.text();
    const ms = performance.now() - started;
    clearInterval(timer);
    console.log(
      `  ${(body.length / 1e6).toFixed(1)} MB: ${res.status} in ${ms.toFixed(0)} ms, event loop held at most ${worstLate.toFixed(0)} ms: ${text.slice(0, 160)}`,
    );
  } finally {
    await em.close();
  }
}
