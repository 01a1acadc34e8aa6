/**
 * The emulator's live console in a real browser (headless Chromium, test/helpers/chromium.ts), reached through
 * 127.0.0.1 only. The page is opened before anything exists; what the API then creates, ingests and the page's own
 * clock control makes happen must appear by itself, with no reload and no error in the browser's console. Each wait
 * is for the page's own completed polls (its `data-polls` count, seen by a MutationObserver), never a sleep: a part
 * is "updated by itself within 2 seconds" when it shows the change after at most two polls, a second apart.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { ObservabilityClient } from "../../provider/client";
import { Browser, chromiumPath } from "../helpers/chromium";

const T0 = Date.parse("2024-06-03T00:00:00Z");
const SECRET = "s3cr3t-header-value-123";
const HOSTILE_MONITOR = `Errors <img src=x onerror="window.__pwned=1"> & co`;
const HOSTILE_FIELD = "<b>field</b>";
const HOSTILE_VALUE = "<script>window.__pwned=2</script>";

let receiver: Server;
let emulator: RunningEmulator;
let client: ObservabilityClient;
let browser: Browser;
const requests: string[] = [];

/** Resolves once the page has completed `n` more polls (each part is then as fresh as that poll). */
function polls(n: number): Promise<number> {
  return browser.evaluateAsync<number>(`new Promise((resolve) => {
    const count = () => Number(document.body.getAttribute("data-polls") || 0);
    const target = count() + ${n};
    const check = () => { if (count() >= target) { observer.disconnect(); resolve(count()); } };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { attributes: true, attributeFilter: ["data-polls"] });
    check();
  })`);
}

/**
 * Resolves once `condition` (an expression in the page) holds, or once the page has completed two more polls,
 * answering whether it holds: a part that "updates by itself within 2 seconds" shows the change by its second poll.
 */
function shows(condition: string): Promise<boolean> {
  return browser.evaluateAsync<boolean>(`new Promise((resolve) => {
    const count = () => Number(document.body.getAttribute("data-polls") || 0);
    const target = count() + 2;
    const holds = () => { try { return Boolean(${condition}); } catch { return false; } };
    const check = () => { if (holds() || count() >= target) { observer.disconnect(); resolve(holds()); } };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { attributes: true, childList: true, subtree: true, characterData: true });
    check();
  })`);
}

/** The text of the element matched by `selector`, or null. */
const text = (selector: string) =>
  browser.evaluate<string | null>(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? null`);

beforeAll(async () => {
  const executable = chromiumPath();
  receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200).end("ok"));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  emulator = await startEmulator({ clock: "manual", now: new Date(T0), port: 0, host: "127.0.0.1" });
  client = new ObservabilityClient({ url: emulator.url, token: emulator.token });
  browser = await Browser.launch(executable);
  browser.on((method, params) => {
    if (method === "Network.requestWillBeSent") requests.push((params.request as { url: string }).url);
  });
  await browser.send("Network.enable");
  await browser.collectErrors();
  await browser.open(`${emulator.url}/`);
  await polls(1);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await client?.close();
  await emulator?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

it("uses the development token by itself on loopback: the parts show, the token form does not", async () => {
  expect(
    await browser.evaluate(
      `[document.getElementById("app").hidden, document.getElementById("token-section").hidden]`,
    ),
  ).toEqual([false, true]);
  expect(await text("#clock-kind")).toBe("Manual clock");
  expect(await text("#clock-now")).toBe("2024-06-03 00:00:00 UTC");
});

it("rule: a monitor created through the API appears by itself, its hostile name shown as text", async () => {
  await client.datasets.create({ name: "web" });
  const notifier = await client.notifiers.create({
    name: "Hook <i>team</i>",
    properties: {
      customWebhook: {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        secretHeaders: { "X-Api-Key": SECRET },
        body: '{"title": "{{.Title}}", "key": "' + SECRET + '"}',
      },
    },
  });
  const monitor = await client.monitors.create({
    name: HOSTILE_MONITOR,
    type: "Threshold",
    aplQuery: "['web'] | where status >= 500 | summarize count() by bin(_time, 1m)",
    operator: "Above",
    threshold: 5,
    intervalMinutes: 1,
    rangeMinutes: 5,
    notifierIds: [notifier.id],
  });
  expect(
    await shows(
      `document.querySelector('#monitors-body tr[data-monitor-id="${monitor.id}"] td:nth-of-type(6)').textContent.includes("Hook")`,
    ),
  ).toBe(true);
  expect(await text(`#monitors-body tr[data-monitor-id="${monitor.id}"] th`)).toBe(HOSTILE_MONITOR);
  expect(await text(`#monitors-body tr[data-monitor-id="${monitor.id}"] td:nth-of-type(6)`)).toBe(
    `Hook <i>team</i> (${notifier.id})`,
  );
  expect(
    await browser.evaluate(`[typeof window.__pwned, document.querySelectorAll("img, i, b").length]`),
  ).toEqual(["undefined", 0]);
});

it("rule: ingesting an incident and advancing the manual clock with the page's own control opens the alert", async () => {
  // 30 server errors in the minute before the clock's now: the run at +1m sees them in its 5-minute window.
  const events = Array.from({ length: 30 }, (_, i) => ({
    _time: new Date(T0 - 60_000 + i * 1000).toISOString(),
    status: 503,
    [HOSTILE_FIELD]: HOSTILE_VALUE,
  }));
  await client.ingest("web", events);
  expect(
    await shows(`document.querySelector('#datasets-body tr[data-dataset="web"] td').textContent === "30"`),
  ).toBe(true);
  expect(await text('#datasets-body tr[data-dataset="web"] td:nth-of-type(1)')).toBe("30");
  expect(await text('#datasets-body tr[data-dataset="web"] td:nth-of-type(2)')).toBe(
    "2024-06-02 23:59:29 UTC",
  );
  expect(await text('#datasets-body tr[data-dataset="web"] td:nth-of-type(4)')).toContain(
    `${HOSTILE_FIELD} (string)`,
  );

  await browser.evaluate(`document.querySelector('button[data-advance="1m"]').click()`);
  expect(
    await shows(
      `document.querySelector("#monitors-body tr[data-monitor-id]").dataset.state === "open" && document.querySelector("#notifications-body tr[data-outbox-id]") !== null`,
    ),
  ).toBe(true);
  expect(await text("#clock-now")).toBe("2024-06-03 00:01:00 UTC");
  expect(await text("#clock-result")).toBe("Moved to 2024-06-03 00:01:00 UTC: 1 monitor run, 1 alert event.");
  expect(
    await browser.evaluate(`document.querySelector("#monitors-body tr[data-monitor-id]").dataset.state`),
  ).toBe("open");
});

it("rule: the notification appears, newest first, its body masked exactly as the outbox masks it", async () => {
  const res = await request(`${emulator.url}/_emulator/notifications`, {
    headers: { authorization: `Bearer ${emulator.token}` },
  });
  const outbox = (await res.body.json()) as {
    id: string;
    body: unknown;
    request: { headers: Record<string, string> };
  }[];
  expect(outbox).toHaveLength(1);
  const row = await browser.evaluate<{ id: string; cells: string[]; body: string }>(`(() => {
    const tr = document.querySelector("#notifications-body tr[data-outbox-id]");
    return { id: tr.dataset.outboxId, cells: [...tr.cells].slice(0, 8).map((td) => td.textContent), body: tr.querySelector("pre").textContent };
  })()`);
  expect(row.id).toBe(outbox[0].id);
  expect(row.cells.slice(1, 7)).toEqual([
    HOSTILE_MONITOR,
    "Open",
    "-",
    "Hook <i>team</i>",
    "customWebhook",
    expect.stringMatching(/^127\.0\.0\.1:\d+$/),
  ]);
  expect(row.cells[7]).toMatch(/^delivered \(200\)/);
  // The outbox's own masked body and header, as the API answers them; the secret nowhere in the page.
  const body = outbox[0].body;
  expect(row.body).toContain(typeof body === "string" ? body : JSON.stringify(body, null, 2));
  expect(row.body).toContain(`X-Api-Key: ${outbox[0].request.headers["X-Api-Key"]}`);
  expect(
    await browser.evaluate(`document.documentElement.outerHTML.includes(${JSON.stringify(SECRET)})`),
  ).toBe(false);
});

it("rule: the page is usable by keyboard alone: Tab to a monitor, Enter shows its chart, with a text alternative", async () => {
  let focused = "";
  for (let i = 0; i < 40 && !focused.startsWith("Show "); i++) {
    await browser.press("Tab");
    focused = (await browser.evaluate<string>("document.activeElement.textContent")) ?? "";
  }
  expect(focused).toBe(`Show ${HOSTILE_MONITOR}`);
  await browser.press("Enter");
  expect(await shows(`document.querySelector("#detail-chart svg.chart") !== null`)).toBe(true);
  const detail = await browser.evaluate<{
    hidden: boolean;
    focus: string;
    heading: string;
    label: string;
    legend: string;
    periods: string[];
    history: string[];
  }>(`(() => {
    const svg = document.querySelector("#detail-chart svg.chart");
    return {
      hidden: document.getElementById("monitor-detail").hidden,
      focus: document.activeElement.id,
      heading: document.getElementById("detail-heading").textContent,
      label: svg.getAttribute("aria-labelledby").split(" ").map((id) => document.getElementById(id).textContent).join(" | "),
      legend: document.getElementById(svg.getAttribute("aria-describedby")).textContent,
      periods: [...svg.querySelectorAll("rect.alert-period title")].map((t) => t.textContent),
      history: [...document.querySelectorAll("#detail-history tr")].map((tr) => tr.textContent),
    };
  })()`);
  expect(detail.hidden).toBe(false);
  expect(detail.focus).toBe("detail-heading");
  expect(detail.heading).toBe(HOSTILE_MONITOR);
  expect(detail.label).toBe(
    `${HOSTILE_MONITOR}: the last 1 runs' values against the threshold 5 (UTC) | 1 run from 00:00 to 00:01; 1 alert period; 1 notification; threshold 5`,
  );
  expect(detail.legend).toBe("value (solid blue line)");
  expect(detail.periods).toEqual(["alert open from 00:01 to now (still open)"]);
  expect(detail.history).toEqual([expect.stringMatching(/^2024-06-03 00:01:00 UTCopenchk_/)]);
  // Chromium's accessibility tree: the chart is an image named by its title and description.
  const { nodes } = (await browser.send("Accessibility.getFullAXTree")) as {
    nodes: { role?: { value: string }; name?: { value: string } }[];
  };
  expect(nodes.filter((n) => n.role?.value === "image").map((n) => n.name?.value)).toContain(
    detail.label.replace(" | ", " "),
  );
});

it("rule: the query box answers through the engine of /v1/datasets/_apl, rows shown as text", async () => {
  await browser.evaluate(`(() => {
    document.getElementById("query-input").value = "['web'] | summarize n = count() by v = ['${HOSTILE_FIELD}']";
    document.querySelector("#query-form button").click();
  })()`);
  // Answered when the status is no longer "Running…": the rows, or the engine's error.
  const shown = await browser.evaluateAsync<{
    status: string;
    error: string;
    head: string[];
    row: string[];
  }>(`new Promise((resolve) => {
    const status = document.getElementById("query-status");
    const answer = () => resolve({
      status: status.textContent,
      error: document.getElementById("query-error").textContent,
      head: [...document.querySelectorAll("#query-table th")].map((th) => th.textContent),
      row: [...document.querySelectorAll("#query-table tbody td")].map((td) => td.textContent),
    });
    const done = () => status.textContent !== "Running…";
    if (done()) return answer();
    new MutationObserver((_, o) => { if (done()) { o.disconnect(); answer(); } }).observe(status, { childList: true, characterData: true, subtree: true });
  })`);
  expect(shown.error).toBe("");
  const cell = (name: string) => shown.row[shown.head.indexOf(name)];
  expect([cell("n"), cell("v")]).toEqual(["30", HOSTILE_VALUE]);
  expect(shown.status).toMatch(/^1 rows; 30 rows examined/);
  expect(await browser.evaluate(`[typeof window.__pwned, document.scripts.length]`)).toEqual([
    "undefined",
    1,
  ]);
});

it("the clock's form moves a manual clock to a time, making the due runs (the burst leaves the window: a Close)", async () => {
  await browser.evaluate(`(() => {
    document.getElementById("clock-to").value = "2024-06-03T00:05:00Z";
    document.querySelector("#clock-to-form button").click();
  })()`);
  expect(await shows(`document.getElementById("clock-now").textContent === "2024-06-03 00:05:00 UTC"`)).toBe(
    true,
  );
  expect(await text("#clock-result")).toBe(
    "Moved to 2024-06-03 00:05:00 UTC: 4 monitor runs, 1 alert event.",
  );
  expect(emulator.clock.now().toISOString()).toBe("2024-06-03T00:05:00.000Z");
});

it("nothing was loaded from another origin, and the browser's console has no error", () => {
  const origin = new URL(emulator.url).origin;
  expect(requests.filter((u) => !u.startsWith(origin))).toEqual([]);
  expect(browser.errors).toEqual([]);
});

describe("an emulator with its own token", () => {
  let own: RunningEmulator;
  let second: Browser;
  const seen: string[] = [];

  beforeAll(async () => {
    own = await startEmulator({ port: 0, host: "127.0.0.1", token: "console-test-own-token" });
    // The same browser, a new page's origin (another port): nothing of the first page's storage reaches it.
    second = browser;
    second.on((method, params) => {
      if (method !== "Network.requestWillBeSent") return;
      const request = params.request as { url?: string } | undefined;
      if (request?.url === undefined || !URL.canParse(request.url)) return;
      const url = new URL(request.url);
      if (url.origin === new URL(own.url).origin) seen.push(url.pathname);
    });
    second.errors.length = 0;
    await second.open(`${own.url}/`);
  }, 120_000);

  afterAll(async () => {
    await own?.close();
  });

  it("rule: a page given no token shows the token form and no data, and asks for none", async () => {
    const state = await second.evaluate<{ form: boolean; app: boolean; rows: number }>(`({
      form: !document.getElementById("token-section").hidden,
      app: !document.getElementById("app").hidden,
      rows: document.querySelectorAll("#app tbody tr").length,
    })`);
    expect(state).toEqual({ form: true, app: false, rows: 0 });
    expect(
      await second.evaluate(`document.querySelector('meta[name="observability-development-token"]')`),
    ).toBe(null);
    expect(
      seen.filter(
        (p) => !["/", "/_emulator/console/app.js", "/_emulator/console/app.css", "/favicon.ico"].includes(p),
      ),
    ).toEqual([]);
    expect(second.errors).toEqual([]);
  });

  it("the token given in the form is kept for the tab only, and the parts show", async () => {
    await second.evaluate(`(() => {
      document.getElementById("token-input").value = "console-test-own-token";
      document.querySelector("#token-form button").click();
    })()`);
    await second.evaluateAsync(`new Promise((resolve) => {
      const done = () => Number(document.body.getAttribute("data-polls") || 0) >= 1;
      if (done()) return resolve(true);
      new MutationObserver((_, o) => { if (done()) { o.disconnect(); resolve(true); } }).observe(document.body, { attributes: true });
    })`);
    expect(
      await second.evaluate(`[sessionStorage.getItem("observability-console-token"), localStorage.length]`),
    ).toEqual(["console-test-own-token", 0]);
    expect(await second.evaluate(`document.getElementById("clock-kind").textContent`)).toBe("Real clock");
  });
});
