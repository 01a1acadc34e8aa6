/**
 * The emulator console's screenshots in docs/emulator.md, taken from the page itself rather than by hand:
 *   npm run build && node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON scripts/console-screenshots.mts
 *
 * Starts the built emulator on a manual clock, makes what a small team has (a dataset with an hour of traffic and an
 * error burst, a Slack-like webhook to a local receiver, a grouped threshold monitor, a match monitor and a quiet
 * one), opens the console in headless Chromium (scripts/install-chromium.sh installs it when absent), moves the clock
 * with the page's own buttons, shows a monitor and runs a query in the query box, then writes
 * docs/images/emulator-console.png (the page) and docs/images/emulator-console-monitor.png (the monitor's chart).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { startEmulator } from "../dist/emulator/index.js";
import { Browser, chromiumPath } from "./shared/chromium.ts";

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, "docs", "images");
const START = Date.parse("2024-06-03T09:00:00Z");
const SERVICES = ["checkout", "payments", "search"];

const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(200).end("ok"));
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const em = await startEmulator({ clock: "manual", now: new Date(START), port: 0, host: "127.0.0.1" });
const browser = await Browser.launch(chromiumPath(ROOT));

async function api(method: string, p: string, body?: unknown, type = "application/json"): Promise<unknown> {
  const res = await fetch(`${em.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${em.token}`, "content-type": type },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Resolves once the page has completed `n` more polls. */
const polls = (n: number) =>
  browser.evaluateAsync(`new Promise((resolve) => {
    const count = () => Number(document.body.getAttribute("data-polls") || 0);
    const target = count() + ${n};
    const check = () => { if (count() >= target) { observer.disconnect(); resolve(true); } };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { attributes: true, attributeFilter: ["data-polls"] });
    check();
  })`);

try {
  await api("POST", "/v2/datasets", { name: "http-logs", description: "The shop's HTTP requests" });
  // An hour of requests, 30 a minute, with a burst of 503s on checkout from +20m to +26m.
  const lines: string[] = [];
  for (let s = 0; s < 3600; s += 2) {
    const burst = s >= 20 * 60 && s < 26 * 60 && s % 4 === 0;
    const service = burst ? "checkout" : SERVICES[(s / 2) % SERVICES.length];
    lines.push(
      JSON.stringify({
        _time: new Date(START + s * 1000).toISOString(),
        service,
        status: burst ? 503 : 200,
        duration_ms: 40 + ((s * 7) % 160),
        route: service === "checkout" ? "/cart/checkout" : service === "payments" ? "/pay" : "/search",
      }),
    );
  }
  lines.push(
    JSON.stringify({
      _time: new Date(START + 41 * 60_000).toISOString(),
      level: "fatal",
      message: "payment provider unreachable",
    }),
  );
  await api("POST", "/v1/datasets/http-logs/ingest", lines.join("\n"), "application/x-ndjson");
  const port = (receiver.address() as AddressInfo).port;
  const hook = (await api("POST", "/v2/notifiers", {
    name: "On-call webhook",
    properties: {
      customWebhook: {
        url: `http://127.0.0.1:${port}/services/T0/B0/secret-path`,
        secretHeaders: { Authorization: "Bearer not-a-real-secret" },
        body: '{"text": "{{.Title}}: {{.Body}}"}',
      },
    },
  })) as { id: string };
  const errors = (await api("POST", "/v2/monitors", {
    name: "Server errors by service",
    type: "Threshold",
    aplQuery: "['http-logs'] | where status >= 500 | summarize count() by service, bin(_time, 1m)",
    operator: "Above",
    threshold: 5,
    intervalMinutes: 1,
    rangeMinutes: 5,
    notifyByGroup: true,
    notifierIds: [hook.id],
  })) as { id: string };
  await api("POST", "/v2/monitors", {
    name: "Fatal lines",
    type: "MatchEvent",
    aplQuery: "['http-logs'] | where level == 'fatal'",
    intervalMinutes: 1,
    notifierIds: [hook.id],
  });
  await api("POST", "/v2/monitors", {
    name: "Slow searches",
    type: "Threshold",
    aplQuery: "['http-logs'] | where service == 'search' | summarize avg(duration_ms) by bin(_time, 5m)",
    operator: "Above",
    threshold: 500,
    intervalMinutes: 5,
    rangeMinutes: 15,
  });

  await browser.collectErrors();
  await browser.send("Emulation.setDeviceMetricsOverride", {
    width: 1280,
    height: 900,
    deviceScaleFactor: 1,
    mobile: false,
  });
  await browser.open(`${em.url}/`);
  await polls(1);
  // The page's own clock control: 10 minutes at a time, through the burst and the fatal line.
  for (let i = 0; i < 5; i++) {
    await browser.evaluate(`document.querySelector('button[data-advance="10m"]').click()`);
    await polls(2);
  }
  await browser.evaluate(`document.querySelector('button[data-monitor-id="${errors.id}"]').click()`);
  await polls(1);
  await browser.evaluate(`(() => {
    document.getElementById("query-input").value = "['http-logs'] | where status >= 500 | summarize errors = count() by service";
    document.querySelector("#query-form button").click();
  })()`);
  await polls(2);
  if (browser.errors.length) throw new Error(`the page reported errors: ${browser.errors.join("; ")}`);
  mkdirSync(OUT, { recursive: true });
  await browser.screenshot(path.join(OUT, "emulator-console.png"));
  const box = (await browser.evaluate(`(() => {
    const r = document.getElementById("monitor-detail").getBoundingClientRect();
    return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
  })()`)) as { x: number; y: number; width: number; height: number };
  const shot = (await browser.send("Page.captureScreenshot", {
    format: "png",
    captureBeyondViewport: true,
    clip: { ...box, scale: 1 },
  })) as { data: string };
  writeFileSync(path.join(OUT, "emulator-console-monitor.png"), Buffer.from(shot.data, "base64"));
  console.log(`wrote ${path.relative(ROOT, OUT)}/emulator-console.png and emulator-console-monitor.png`);
} finally {
  await browser.close();
  await em.close();
  receiver.close();
}
