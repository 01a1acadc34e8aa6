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

interface Route<A> {
  method: string;
  segments: string[];
  handler: Handler;
  access?: A;
}

/** Outcome of {@link Router.match}. */
export type RouteMatch<A> =
  | { kind: "found"; handler: Handler; params: Record<string, string>; access?: A }
  | { kind: "method-not-allowed"; allowed: string[] }
  | { kind: "not-found" };

/**
 * Path router: `/v2/monitors/:id/history` style patterns; literal segments win over parameters. Each route carries
 * what a caller needs to reach it (`A`: emulator/auth.ts's RouteAccess, which the router only hands back, so the
 * HTTP toolkit does not depend on the rules of access).
 */
export class Router<A> {
  private readonly routes: Route<A>[] = [];

  /**
   * Registers a handler for a method and path pattern, with what a caller needs to be let through (see
   * emulator/auth.ts; a route that declares nothing is closed to minted API tokens).
   */
  add(method: string, pattern: string, handler: Handler, access?: A): this {
    this.routes.push({ method, segments: pattern.split("/").filter(Boolean), handler, access });
    return this;
  }

  /**
   * Finds the route for a method and path; distinguishes an unknown path from a wrong method. Among the patterns
   * that match the path, only those with the most literal segments count, for every method: `/v2/orgs/provision`
   * is that path's own (POST), never `/v2/orgs/:id` with `provision` as an id, so its `Allow` names POST alone.
   */
  match(method: string, path: string): RouteMatch<A> {
    let parts: string[];
    try {
      // The root has no segment (the console's page lives there); any other path's empty segments count.
      parts = path === "/" ? [] : path.split("/").slice(1).map(decodeURIComponent);
    } catch {
      return { kind: "not-found" };
    }
    let literalsNeeded = -1;
    const matching: { route: Route<A>; params: Record<string, string>; literals: number }[] = [];
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
      matching.push({ route, params, literals });
      literalsNeeded = Math.max(literalsNeeded, literals);
    }
    const own = matching.filter((m) => m.literals === literalsNeeded);
    const found = own.find((m) => m.route.method === method);
    if (found)
      return {
        kind: "found",
        handler: found.route.handler,
        params: found.params,
        access: found.route.access,
      };
    if (own.length > 0)
      return { kind: "method-not-allowed", allowed: [...new Set(own.map((m) => m.route.method))] };
    return { kind: "not-found" };
  }

  /** Every route's method and pattern (`/v2/monitors/:id`), in the order registered: for the OpenAPI document. */
  list(): { method: string; pattern: string; access?: A }[] {
    return this.routes.map((r) => ({
      method: r.method,
      pattern: `/${r.segments.join("/")}`,
      access: r.access,
    }));
  }
}
