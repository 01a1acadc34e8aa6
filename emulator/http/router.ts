/**
 * The emulator's path router, kept hand-written rather than replaced by a library such as find-my-way:
 * - the emulator must tell an unknown path (404) from a known path with the wrong method (405 with `Allow`),
 *   which needs every method registered for a path; find-my-way answers per method and would need a lookup
 *   under each method to rebuild that list;
 * - a segment that is not valid percent-encoding is a 404 here, not an exception;
 * - the API has a few dozen routes, so a linear scan costs nothing measurable next to a request, and a
 *   dependency would be code to audit and update for no gain.
 */
import type { IncomingMessage } from "node:http";
import type { RouteAccess } from "../auth";
import type { Reply } from "./reply";

/** What a route handler receives: the request, read; the response is its return value. */
export interface RequestContext {
  req: IncomingMessage;
  /** Decoded path parameters, by name. */
  params: Record<string, string>;
  /** Query string; repeated keys become arrays. */
  query: Record<string, string | string[]>;
  /** The request body (gunzipped); read before routing. */
  body: Buffer;
}

/** A route handler: returns what to answer, or throws an {@link HttpError} to answer `{code, message}`. */
export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
  access?: RouteAccess;
}

/** Outcome of {@link Router.match}. */
export type RouteMatch =
  | { kind: "found"; handler: Handler; params: Record<string, string>; access?: RouteAccess }
  | { kind: "method-not-allowed"; allowed: string[] }
  | { kind: "not-found" };

/** Path router: `/v2/monitors/:id/history` style patterns; literal segments win over parameters. */
export class Router {
  private readonly routes: Route[] = [];

  /**
   * Registers a handler for a method and path pattern, with what a caller needs to be let through (see
   * emulator/auth.ts; a route that declares nothing is closed to minted API tokens).
   */
  add(method: string, pattern: string, handler: Handler, access?: RouteAccess): this {
    this.routes.push({ method, segments: pattern.split("/").filter(Boolean), handler, access });
    return this;
  }

  /** Finds the route for a method and path; distinguishes an unknown path from a wrong method. */
  match(method: string, path: string): RouteMatch {
    let parts: string[];
    try {
      parts = path.split("/").slice(1).map(decodeURIComponent);
    } catch {
      return { kind: "not-found" };
    }
    const allowed: string[] = [];
    let best: { route: Route; params: Record<string, string>; literals: number } | undefined;
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let literals = 0;
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = route.segments[i];
        if (seg.startsWith(":")) params[seg.slice(1)] = parts[i];
        else if (seg === parts[i]) literals++;
        else {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      if (!best || literals > best.literals) best = { route, params, literals };
    }
    if (best)
      return { kind: "found", handler: best.route.handler, params: best.params, access: best.route.access };
    if (allowed.length > 0) return { kind: "method-not-allowed", allowed: [...new Set(allowed)] };
    return { kind: "not-found" };
  }
}
