/**
 * The console's page, stylesheet and script, served as they are written here (emulator/console/index.ts): plain
 * HTML, CSS and a small script in the browser's own JavaScript, so nothing is built and nothing loads from another
 * origin. The script puts every name and value in the page as text (`textContent`, `setAttribute`), never as
 * markup, and builds the shared chart (emulator/chart/) from the tree the data routes send, element by element,
 * from a fixed list of the chart's elements.
 */
import { CHART_CSS, escapeHtml } from "../chart";

/** The page. With `developmentToken`, the script uses it by itself; without, it asks for a token. */
export function consolePage(developmentToken: string | undefined): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Observability emulator</title>
${developmentToken === undefined ? "" : `<meta name="observability-development-token" content="${escapeHtml(developmentToken)}">\n`}<link rel="stylesheet" href="/_emulator/console/app.css">
<script src="/_emulator/console/app.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header>
<h1>Observability emulator</h1>
<p id="connection" role="status">Starting…</p>
<button type="button" id="forget-token" hidden>Forget the token</button>
</header>
<main id="main">
<section id="token-section" aria-labelledby="token-heading" hidden>
<h2 id="token-heading">Token</h2>
<p>This emulator does not let the page use the development token. Give an API token it accepts: the page keeps it
for this tab only (session storage) and sends it to this emulator only.</p>
<form id="token-form">
<label for="token-input">API token</label>
<input id="token-input" type="password" autocomplete="off" spellcheck="false" required>
<button type="submit">Use this token</button>
</form>
<p id="token-error" class="error" role="alert"></p>
</section>
<div id="app" hidden>
<nav aria-label="Parts"><a href="#clock">Clock</a> <a href="#datasets">Datasets</a> <a href="#monitors">Monitors</a>
<a href="#notifications">Notifications</a> <a href="#query">Query</a></nav>

<section id="clock" aria-labelledby="clock-heading">
<h2 id="clock-heading">Clock</h2>
<p><span id="clock-kind"></span>: <time id="clock-now"></time></p>
<div id="clock-controls" hidden>
<button type="button" data-advance="1m">Advance 1 minute</button>
<button type="button" data-advance="10m">Advance 10 minutes</button>
<button type="button" data-advance="1h">Advance 1 hour</button>
<form id="clock-to-form">
<label for="clock-to">To (RFC 3339)</label>
<input id="clock-to" type="text" spellcheck="false" placeholder="2024-06-03T12:00:00Z">
<button type="submit">Move the clock</button>
</form>
</div>
<p id="clock-result" role="status"></p>
<p id="clock-error" class="error" role="alert"></p>
</section>

<section id="datasets" aria-labelledby="datasets-heading">
<h2 id="datasets-heading">Datasets</h2>
<p id="datasets-error" class="error"></p>
<table>
<caption>Events per dataset; ingest counts the last minute of the clock</caption>
<thead><tr><th scope="col">Dataset</th><th scope="col">Events</th><th scope="col">Latest event</th>
<th scope="col">Ingested in the last minute</th><th scope="col">Fields</th></tr></thead>
<tbody id="datasets-body"></tbody>
</table>
</section>

<section id="monitors" aria-labelledby="monitors-heading">
<h2 id="monitors-heading">Monitors</h2>
<p id="monitors-error" class="error"></p>
<table>
<caption>Each monitor's state; show one for its chart and history</caption>
<thead><tr><th scope="col">Monitor</th><th scope="col">Type</th><th scope="col">State</th><th scope="col">Open groups</th>
<th scope="col">Last run</th><th scope="col">Last values</th><th scope="col">Notifiers</th><th scope="col">Details</th></tr></thead>
<tbody id="monitors-body"></tbody>
</table>
<section id="monitor-detail" aria-labelledby="detail-heading" hidden>
<h3 id="detail-heading" tabindex="-1"></h3>
<p id="detail-meta" class="meta"></p>
<pre id="detail-query" class="query"></pre>
<div id="detail-chart"></div>
<table>
<caption>Opens and closes, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">State</th><th scope="col">Check</th></tr></thead>
<tbody id="detail-history"></tbody>
</table>
<details><summary>The last runs, newest first</summary>
<table>
<thead><tr><th scope="col">Time</th><th scope="col">State</th><th scope="col">Values</th></tr></thead>
<tbody id="detail-runs"></tbody>
</table>
</details>
</section>
</section>

<section id="notifications" aria-labelledby="notifications-heading">
<h2 id="notifications-heading">Notifications</h2>
<p id="notifications-error" class="error"></p>
<p id="notifications-count" class="meta"></p>
<table>
<caption>The outbox, newest first; secrets masked as the outbox masks them</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Monitor</th><th scope="col">Action</th><th scope="col">Group</th>
<th scope="col">Notifier</th><th scope="col">Channel</th><th scope="col">Target</th><th scope="col">Outcome</th>
<th scope="col">Body</th></tr></thead>
<tbody id="notifications-body"></tbody>
</table>
</section>

<section id="query" aria-labelledby="query-heading">
<h2 id="query-heading">Query</h2>
<form id="query-form">
<label for="query-input">APL, run as <code>POST /v1/datasets/_apl</code> runs it</label>
<textarea id="query-input" rows="3" spellcheck="false" required></textarea>
<button type="submit">Run the query</button>
</form>
<p id="query-status" role="status"></p>
<p id="query-error" class="error" role="alert"></p>
<div id="query-result"></div>
</section>
</div>
</main>
</body>
</html>
`;
}

/** The page's styles, the shared chart's included. */
export const CONSOLE_CSS = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; background: #f6f8fa; }
header { display: flex; gap: 16px; align-items: baseline; padding: 12px 24px; background: #fff; border-bottom: 1px solid #d0d7de; }
header h1 { font-size: 20px; margin: 0; }
main { padding: 0 24px 48px; }
section { margin-top: 16px; }
#app > section { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 16px 12px; }
h2 { font-size: 17px; margin: 8px 0; } h3 { font-size: 15px; margin: 16px 0 4px; }
nav { margin-top: 12px; } nav a { margin-right: 12px; }
table { border-collapse: collapse; margin: 6px 0; width: 100%; }
caption { text-align: left; color: #57606a; font-size: 13px; padding-bottom: 4px; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.state-open, .outcome-failed, .error { color: #cf222e; }
.state-ok, .outcome-delivered { color: #1a7f37; }
.state-error, .outcome-held { color: #9a6700; }
.meta { color: #57606a; margin: 2px 0; }
pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; font-size: 12px; }
pre.query { background: #f6f8fa; padding: 6px; }
button { font: inherit; padding: 3px 10px; margin: 2px 4px 2px 0; border: 1px solid #8c959f; border-radius: 6px; background: #f6f8fa; cursor: pointer; }
button[aria-pressed="true"] { background: #ddf4ff; border-color: #0969da; }
input, textarea { font: 13px ui-monospace, SFMono-Regular, Menlo, monospace; padding: 3px 6px; border: 1px solid #8c959f; border-radius: 6px; }
textarea { display: block; width: 100%; box-sizing: border-box; margin: 4px 0; }
form { margin: 6px 0; } label { margin-right: 6px; }
#clock-controls form { display: inline-block; margin-left: 12px; }
:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
.skip { position: absolute; left: -10000px; } .skip:focus { position: static; }
[hidden] { display: none !important; }
${CHART_CSS}`;

/**
 * The page's script: it polls the data routes (each answer versioned, so an unchanged part costs a 304) about once
 * a second while the tab is shown, and every ten seconds while it is hidden.
 */
export const CONSOLE_SCRIPT = String.raw`"use strict";
(function () {
  var TOKEN_KEY = "observability-console-token";
  var POLL_MS = 1000;
  var HIDDEN_POLL_MS = 10000;
  var QUERY_ROWS_SHOWN = 500;
  var SVG_NS = "http://www.w3.org/2000/svg";
  // The chart's elements, and whether each is SVG; anything else in a chart tree is refused.
  var CHART_TAGS = { svg: 1, g: 1, line: 1, polyline: 1, polygon: 1, rect: 1, circle: 1, text: 1, title: 1, desc: 1,
    figure: 0, figcaption: 0, ul: 0, li: 0, span: 0 };

  var meta = document.querySelector('meta[name="observability-development-token"]');
  var fromPage = meta !== null;
  var token = fromPage ? meta.getAttribute("content") : sessionStorage.getItem(TOKEN_KEY);
  var etags = {};
  var selected = null;
  var notifierNames = {};
  var timer = null;
  var running = false;
  var polls = 0;

  function $(id) { return document.getElementById(id); }

  /** An element with attributes and children; strings become text nodes, never markup. */
  function h(tag, attrs, children) {
    var el = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) {
      el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return el;
  }
  function td(text, cls) { return h("td", cls ? { class: cls } : null, [text === null || text === undefined ? "" : String(text)]); }
  function fill(tbody, rows, columns, empty) {
    var frag = document.createDocumentFragment();
    rows.forEach(function (r) { frag.appendChild(r); });
    if (rows.length === 0) frag.appendChild(h("tr", null, [h("td", { colspan: String(columns) }, [empty])]));
    tbody.replaceChildren(frag);
  }

  /** The shared chart's tree as DOM: known elements only, attributes by setAttribute, text as text. */
  function buildChart(node, inSvg) {
    if (typeof node === "string") return document.createTextNode(node);
    if (!Object.prototype.hasOwnProperty.call(CHART_TAGS, node.tag)) throw new Error("not a chart element: " + node.tag);
    var svg = inSvg || CHART_TAGS[node.tag] === 1 && node.tag === "svg";
    var el = svg ? document.createElementNS(SVG_NS, node.tag) : document.createElement(node.tag);
    var attrs = node.attrs || {};
    Object.keys(attrs).forEach(function (k) {
      if (!/^[a-zA-Z][a-zA-Z0-9-]*$/.test(k) || /^on/i.test(k) || k === "href" || k === "style") return;
      el.setAttribute(k, attrs[k]);
    });
    (node.children || []).forEach(function (c) { el.appendChild(buildChart(c, svg)); });
    return el;
  }

  /** A call to the emulator with the token; answers {status, data}, data null on a 304. */
  function call(method, path, body, etagKey) {
    var headers = { Accept: "application/json", Authorization: "Bearer " + token };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (etagKey && etags[etagKey]) headers["If-None-Match"] = etags[etagKey];
    return fetch(path, {
      method: method, headers: headers, cache: "no-store", credentials: "omit",
      body: body === undefined ? undefined : JSON.stringify(body)
    }).then(function (res) {
      if (res.status === 304) return { status: 304, data: null };
      return res.json().then(function (data) {
        if (res.ok && etagKey) etags[etagKey] = res.headers.get("ETag");
        if (res.status === 403 && /^(missing Authorization|malformed Authorization|invalid token|API token \S+ expired)/.test(data && data.message || "")) {
          throw { unauthenticated: true, message: data.message };
        }
        return { status: res.status, data: data };
      });
    });
  }
  function failure(r) { return (r.data && r.data.message) || ("HTTP " + r.status); }
  function showError(id, text) { $(id).textContent = text || ""; }

  function count(n, what) { return n + " " + what + (n === 1 ? "" : "s"); }
  function setConnection(text) { if ($("connection").textContent !== text) $("connection").textContent = text; }
  function when(iso) { return iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC") : ""; }

  function loadClock() {
    return call("GET", "/_emulator/clock").then(function (r) {
      if (r.status !== 200) { showError("clock-error", failure(r)); return; }
      showError("clock-error", "");
      $("clock-kind").textContent = r.data.kind === "manual" ? "Manual clock" : "Real clock";
      $("clock-now").textContent = when(r.data.now);
      $("clock-now").setAttribute("datetime", r.data.now);
      $("clock-controls").hidden = r.data.kind !== "manual";
      if (!$("clock-to").value) $("clock-to").value = r.data.now.replace(/\.\d+Z$/, "Z");
    });
  }
  function moveClock(body) {
    $("clock-result").textContent = "Moving the clock…";
    return call("POST", "/_emulator/clock", body).then(function (r) {
      if (r.status !== 200) { $("clock-result").textContent = ""; showError("clock-error", failure(r)); return; }
      showError("clock-error", "");
      var alerts = r.data.runs.reduce(function (n, run) { return n + run.notifications; }, 0);
      $("clock-result").textContent = "Moved to " + when(r.data.now) + ": " + count(r.data.runs.length, "monitor run") + ", " + count(alerts, "alert event") + ".";
      $("clock-to").value = "";
      return poll();
    }).catch(handleCallError);
  }

  function loadDatasets() {
    return call("GET", "/_emulator/console/datasets", undefined, "datasets").then(function (r) {
      if (r.status === 304) return;
      if (r.status !== 200) { showError("datasets-error", failure(r)); fill($("datasets-body"), [], 5, "—"); return; }
      showError("datasets-error", "");
      fill($("datasets-body"), r.data.map(function (d) {
        var fields = d.fields.map(function (f) { return f.name + " (" + f.type + ")"; }).join(", ");
        return h("tr", { "data-dataset": d.name }, [
          h("th", { scope: "row" }, [d.name]), td(d.events, "num"), td(when(d.latestEventTime) || "none"),
          td(d.ingestLastMinute, "num"), td((d.fieldsSampled ? "of the latest events: " : "") + (fields || "none"))
        ]);
      }), 5, "No datasets yet.");
    });
  }

  function loadNotifiers() {
    return call("GET", "/v2/notifiers", undefined, "notifiers").then(function (r) {
      if (r.status !== 200) return;
      notifierNames = {};
      r.data.forEach(function (n) { notifierNames[n.id] = n.name; });
    });
  }
  function notifierText(ids) {
    return ids.map(function (id) { return notifierNames[id] ? notifierNames[id] + " (" + id + ")" : id; }).join(", ");
  }

  function loadMonitors() {
    return call("GET", "/_emulator/console/monitors", undefined, "monitors").then(function (r) {
      if (r.status === 304) return;
      if (r.status !== 200) { showError("monitors-error", failure(r)); fill($("monitors-body"), [], 8, "—"); return; }
      showError("monitors-error", "");
      // The table is rebuilt: a focused button keeps its focus across it, so the keyboard's place is not lost.
      var active = document.activeElement;
      var focusedId = active && active.closest && active.closest("#monitors-body") ? active.getAttribute("data-monitor-id") : null;
      fill($("monitors-body"), r.data.map(function (m) {
        var button = h("button", { type: "button", "data-monitor-id": m.id, "aria-pressed": String(selected === m.id) }, ["Show " + m.name]);
        button.addEventListener("click", function () { select(m.id); });
        var last = m.lastRun;
        var values = last ? (last.error || last.values.map(function (v) {
          return (v.group ? v.group + ": " : "") + (v.value === null ? "no data" : v.value);
        }).join("; ")) : "";
        return h("tr", { "data-monitor-id": m.id, "data-state": m.state }, [
          h("th", { scope: "row" }, [m.name]), td(m.type), td(m.state, "state-" + m.state),
          td(m.openGroups.join("; ") + (m.openCount > m.openGroups.length ? " and " + (m.openCount - m.openGroups.length) + " more" : "")),
          td(last ? when(last.time) + " (" + last.state + ")" : "not yet"), td(values),
          td(notifierText(m.notifierIds) || "none"), h("td", null, [button])
        ]);
      }), 8, "No monitors yet.");
      if (focusedId !== null) {
        var again = $("monitors-body").querySelector('button[data-monitor-id="' + CSS.escape(focusedId) + '"]');
        if (again) again.focus();
      }
    });
  }

  function select(id) {
    selected = id;
    delete etags.detail;
    document.querySelectorAll("button[data-monitor-id]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-monitor-id") === id));
    });
    return loadDetail().then(function () { $("detail-heading").focus(); }).catch(handleCallError);
  }
  function loadDetail() {
    if (selected === null) return Promise.resolve();
    return call("GET", "/_emulator/console/monitors/" + encodeURIComponent(selected), undefined, "detail").then(function (r) {
      if (r.status === 304) return;
      var section = $("monitor-detail");
      section.hidden = false;
      if (r.status !== 200) { $("detail-heading").textContent = failure(r); return; }
      var m = r.data;
      $("detail-heading").textContent = m.name;
      $("detail-meta").textContent = m.type + ", " + m.rule + "; every " + m.intervalMinutes + " min; state " + m.state +
        (m.openGroups.length ? " (" + m.openGroups.join("; ") + ")" : "") + "; notifiers: " + (notifierText(m.notifierIds) || "none");
      $("detail-query").textContent = m.aplQuery;
      $("detail-chart").replaceChildren(buildChart(m.chart, false));
      fill($("detail-history"), m.history.map(function (e) {
        return h("tr", null, [td(when(e.time)), td(e.state, "state-" + (e.state === "open" ? "open" : "ok")), td(e.checkId)]);
      }), 3, "No opens or closes yet.");
      fill($("detail-runs"), m.runs.map(function (run) {
        return h("tr", { "data-state": run.state }, [td(when(run.time)), td(run.state, "state-" + run.state), td(run.error || run.reason || run.values || "-")]);
      }), 3, "No runs yet.");
    });
  }

  function bodyText(entry) {
    var parts = [];
    if (entry.request) {
      parts.push(entry.request.method + " " + entry.request.url + "\n" + Object.keys(entry.request.headers).map(function (k) {
        return k + ": " + entry.request.headers[k];
      }).join("\n"));
    }
    if (entry.body !== null && entry.body !== undefined) parts.push(typeof entry.body === "string" ? entry.body : JSON.stringify(entry.body, null, 2));
    return parts.join("\n\n") || "(none)";
  }
  function loadNotifications() {
    return call("GET", "/_emulator/console/notifications", undefined, "notifications").then(function (r) {
      if (r.status === 304) return;
      if (r.status !== 200) { showError("notifications-error", failure(r)); fill($("notifications-body"), [], 9, "—"); return; }
      showError("notifications-error", "");
      // Bodies opened stay open across the rebuild.
      var open = {};
      document.querySelectorAll("#notifications-body tr[data-outbox-id] details[open]").forEach(function (d) {
        open[d.closest("tr").getAttribute("data-outbox-id")] = true;
      });
      $("notifications-count").textContent = r.data.total + " notifications" + (r.data.total > r.data.entries.length ? "; the newest " + r.data.entries.length + " shown" : "");
      fill($("notifications-body"), r.data.entries.map(function (e) {
        var outcome = e.outcome + (e.status ? " (" + e.status + ")" : "") + (e.reason ? ": " + e.reason : "");
        return h("tr", { "data-outbox-id": e.id, "data-outcome": e.outcome }, [
          td(when(e.time)), td(e.monitorName), td(e.action), td((e.groupValues || []).join(", ") || "-"),
          td(e.notifierName), td(e.channel), td(e.targetHost || "-"), td(outcome, "outcome-" + e.outcome),
          h("td", null, [h("details", open[e.id] ? { open: "" } : null, [h("summary", null, ["Body"]), h("pre", { class: "body" }, [bodyText(e)])])])
        ]);
      }), 9, "No notifications yet.");
    });
  }

  function runQuery(apl) {
    $("query-status").textContent = "Running…";
    showError("query-error", "");
    return call("POST", "/v1/datasets/_apl?format=tabular", { apl: apl }).then(function (r) {
      if (r.status !== 200) { $("query-status").textContent = ""; showError("query-error", failure(r)); $("query-result").replaceChildren(); return; }
      var table = r.data.tables[0];
      var rows = table.columns.length ? table.columns[0].length : 0;
      var s = r.data.status || {};
      $("query-status").textContent = rows + " rows; " + (s.rowsExamined !== undefined ? s.rowsExamined + " rows examined, " : "") +
        (s.rowsMatched !== undefined ? s.rowsMatched + " matched, " : "") + (s.elapsedTime !== undefined ? s.elapsedTime + " µs" : "");
      var head = h("tr", null, table.fields.map(function (f) { return h("th", { scope: "col" }, [f.name]); }));
      var body = [];
      for (var i = 0; i < Math.min(rows, QUERY_ROWS_SHOWN); i++) {
        body.push(h("tr", null, table.columns.map(function (col) {
          var v = col[i];
          return td(v === null || typeof v !== "object" ? v : JSON.stringify(v));
        })));
      }
      var t = h("table", { id: "query-table" }, [
        h("caption", null, [rows > QUERY_ROWS_SHOWN ? "The first " + QUERY_ROWS_SHOWN + " of " + rows + " rows" : "The rows"]),
        h("thead", null, [head]), h("tbody", null, body)
      ]);
      $("query-result").replaceChildren(t);
    }).catch(handleCallError);
  }

  function askForToken(message) {
    if (timer !== null) { clearTimeout(timer); timer = null; }
    token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    $("app").hidden = true;
    $("forget-token").hidden = true;
    $("token-section").hidden = false;
    $("token-error").textContent = message || "";
    $("connection").textContent = "No token: give one below.";
  }
  function handleCallError(err) {
    if (err && err.unauthenticated) {
      if (fromPage) $("connection").textContent = "The emulator refused the development token: " + err.message;
      else askForToken("The emulator refused this token: " + err.message);
      return;
    }
    setConnection("Cannot reach the emulator: " + (err && err.message || String(err)));
  }

  function poll() {
    if (running) return Promise.resolve();
    running = true;
    return Promise.all([loadClock(), loadNotifiers()])
      .then(function () { return Promise.all([loadDatasets(), loadMonitors(), loadNotifications(), loadDetail()]); })
      .then(function () { setConnection("Live: updating every second."); })
      .catch(handleCallError)
      .then(function () {
        running = false;
        // Counted where a reader (or a test) can see it: each part above is as fresh as the last completed poll.
        document.body.setAttribute("data-polls", String(++polls));
      });
  }
  function loop() {
    if (token === null) return;
    poll().then(function () {
      if (token === null) return;
      timer = setTimeout(loop, document.hidden ? HIDDEN_POLL_MS : POLL_MS);
    });
  }
  function start() {
    $("token-section").hidden = true;
    $("app").hidden = false;
    $("forget-token").hidden = fromPage;
    loop();
  }

  document.addEventListener("DOMContentLoaded", function () {
    $("token-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var value = $("token-input").value.trim();
      if (!value) return;
      token = value;
      sessionStorage.setItem(TOKEN_KEY, value);
      $("token-input").value = "";
      $("token-error").textContent = "";
      start();
    });
    $("forget-token").addEventListener("click", function () { askForToken(""); $("token-input").focus(); });
    document.querySelectorAll("button[data-advance]").forEach(function (b) {
      b.addEventListener("click", function () { moveClock({ advance: b.getAttribute("data-advance") }); });
    });
    $("clock-to-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      moveClock({ to: $("clock-to").value.trim() });
    });
    $("query-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      runQuery($("query-input").value);
    });
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden && token !== null && timer !== null) { clearTimeout(timer); loop(); }
    });
    if (token) start();
    else askForToken("");
  });
})();
`;
