/**
 * The emulator's live console: a page at `/` showing the clock, datasets, monitors (with the shared chart of their
 * last runs), the outbox and a query box, updating itself while the emulator runs. Plain HTML, one stylesheet and
 * one small script, all served from here (./page.ts): no build step, nothing from another origin.
 *
 * Safe:
 * - The page, its script and its styles are public (they hold no data); every answer with data needs a token, with
 *   the same rights as the API route it mirrors (each console route takes that route's declared access from the
 *   router itself, so the two cannot drift): datasets as `GET /v2/datasets`, monitors as `GET /v2/monitors`, the
 *   outbox as `GET /_emulator/notifications` (the development tokens only). The clock, its moves and the query box
 *   call the emulator's own routes (`/_emulator/clock`, `/v1/datasets/_apl`) directly.
 * - The page names the development token for its script only when the emulator takes it (its token is the
 *   published development token, so it listens on loopback) and the request's `Host` is a loopback name: a page
 *   reached by any other name (a rebound DNS name) asks for a token like any other.
 * - A strict Content-Security-Policy: scripts and styles from this origin only, no inline script or style, no
 *   frame, no other origin; every name and value is put in the page as text by the script.
 */
import type { AccessRouter, RouteAccess } from "../auth";
import { PUBLIC } from "../auth";
import type { EmulatorContext } from "../context";
import { HttpError, json, type Reply } from "../http";
import { NOTIFICATIONS_PATH } from "../routes/emulator-notifications";
import {
  consoleDatasets,
  consoleMonitor,
  consoleMonitors,
  datasetsVersion,
  type ConsoleSettings,
} from "./data";
import { CONSOLE_CSS, CONSOLE_SCRIPT, consolePage } from "./page";

export { RecentRuns, type ConsoleSettings } from "./data";

/** Where the console's own routes live. */
export const CONSOLE_PREFIX = "/_emulator/console";

/** The policy of every console answer: this origin's script and styles, nothing inline, nothing from elsewhere. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": CONSOLE_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-store",
};

function asset(text: string, type: string): Reply {
  return { status: 200, text, headers: { ...SECURITY_HEADERS, "Content-Type": type } };
}

/** The name in a `Host` header (`127.0.0.1:8787`, `[::1]:8787`, `localhost`). */
function hostName(host: string | undefined): string {
  if (!host) return "";
  const m = /^\[([^\]]*)\]/.exec(host);
  return m ? m[1] : host.replace(/:\d*$/, "");
}

/**
 * A JSON answer with a version: 304 with no body when the page already holds that version (`If-None-Match`), so
 * a console that polls costs the emulator a comparison, not a body.
 */
function versioned(ifNoneMatch: string | string[] | undefined, version: string, body: () => unknown): Reply {
  const etag = `"${version}"`;
  if (ifNoneMatch === etag) return { status: 304, headers: { ETag: etag, "Cache-Control": "no-store" } };
  return json(body(), 200, { ETag: etag, "Cache-Control": "no-store" });
}

/** Registers `/`, the page's assets and its data routes. */
export function registerConsole(router: AccessRouter, em: EmulatorContext, settings: ConsoleSettings): void {
  const { runs } = settings;
  // Monitors created, edited or deleted, and alert states saved, move the monitors' version.
  em.state.watch((change) => {
    if ("del" in change && change.del === "monitors") runs.forget(change.id);
    else runs.touch();
  });
  /** The access the API route a console route mirrors declares: the same rights, from one place. */
  const accessOf = (method: string, path: string): RouteAccess | undefined => {
    const m = router.match(method, path);
    if (m.kind !== "found") throw new Error(`the console mirrors ${method} ${path}, which is not registered`);
    return m.access;
  };
  const datasetsAccess = accessOf("GET", "/v2/datasets");
  const monitorsAccess = accessOf("GET", "/v2/monitors");
  const monitorAccess = accessOf("GET", "/v2/monitors/:id");
  const outboxAccess = accessOf("GET", NOTIFICATIONS_PATH);

  router.add(
    "GET",
    "/",
    (ctx) => {
      const local = settings.isLoopbackHost(hostName(ctx.req.headers.host));
      const page = consolePage(local ? settings.developmentToken : undefined);
      return asset(page, "text/html; charset=utf-8");
    },
    PUBLIC,
  );
  router.add(
    "GET",
    `${CONSOLE_PREFIX}/app.js`,
    () => asset(CONSOLE_SCRIPT, "text/javascript; charset=utf-8"),
    PUBLIC,
  );
  router.add("GET", `${CONSOLE_PREFIX}/app.css`, () => asset(CONSOLE_CSS, "text/css; charset=utf-8"), PUBLIC);

  // Browsers ask for an icon; an empty answer keeps a 404 out of the page's console.
  router.add("GET", "/favicon.ico", () => ({ status: 204, headers: SECURITY_HEADERS }), PUBLIC);

  router.add(
    "GET",
    `${CONSOLE_PREFIX}/datasets`,
    (ctx) => versioned(ctx.req.headers["if-none-match"], datasetsVersion(em), () => consoleDatasets(em)),
    datasetsAccess,
  );
  router.add(
    "GET",
    `${CONSOLE_PREFIX}/monitors`,
    (ctx) => versioned(ctx.req.headers["if-none-match"], `${runs.version}`, () => consoleMonitors(em, runs)),
    monitorsAccess,
  );
  router.add(
    "GET",
    `${CONSOLE_PREFIX}/monitors/:id`,
    (ctx) => {
      const id = ctx.params.id;
      // The chart ends at the clock's now, so its second moves the version too.
      const version = `${runs.version}-${em.clock.nowNs() / 1_000_000_000n}`;
      if (!em.state.collection("monitors").get(id)) throw new HttpError(404, `monitor ${id} not found`);
      return versioned(ctx.req.headers["if-none-match"], version, () => consoleMonitor(em, runs, id));
    },
    // The same need as reading one monitor through the API.
    monitorAccess,
  );
  router.add(
    "GET",
    `${CONSOLE_PREFIX}/notifications`,
    (ctx) => {
      const all = settings.control.notifications.entries();
      // The outbox's own rows, as GET /_emulator/notifications answers them (masked there, once), newest first.
      return versioned(ctx.req.headers["if-none-match"], `${all.length}`, () => ({
        total: all.length,
        entries: all.slice(-OUTBOX_SHOWN).reverse(),
      }));
    },
    outboxAccess,
  );
}

/** The newest outbox rows the console shows. */
export const OUTBOX_SHOWN = 200;
