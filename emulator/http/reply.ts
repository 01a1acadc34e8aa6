/**
 * What a route handler answers. Handlers return a {@link Reply}; the server alone writes it (emulator/server.ts),
 * after its faults and the `--data` durability wait have had their say.
 */
import type { ServerResponse } from "node:http";
import { stringifyExactJson } from "./exact-json";

/** A response not yet written: status, JSON body (none for a 204) and headers of its own. */
export interface Reply {
  status: number;
  /** Sent as JSON; undefined for an empty body. */
  body?: unknown;
  /** Sent as it is instead of `body`, with the `Content-Type` its headers give (the console's page and assets). */
  text?: string;
  /** Headers beside those the server sets on every response; `Content-Type`/`-Length` come from the body. */
  headers?: Record<string, string>;
}

/** A JSON reply, 200 unless told. */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Reply {
  return { status, body, headers };
}

/** 204 with an empty body, as every DELETE answers. */
export function noContent(): Reply {
  return { status: 204 };
}

/** The service's error body `{code, message}` (plus `detail` for APL errors). */
export function errorReply(
  status: number,
  message: string,
  detail?: unknown,
  headers?: Record<string, string>,
): Reply {
  const body = detail === undefined ? { code: status, message } : { code: status, message, detail };
  return { status, body, headers };
}

/** Writes a reply; only the server calls it, once per request. */
export function writeReply(res: ServerResponse, reply: Reply): void {
  res.statusCode = reply.status;
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  if (reply.text !== undefined) {
    res.setHeader("Content-Length", Buffer.byteLength(reply.text));
    res.end(reply.text);
    return;
  }
  if (reply.body === undefined) {
    res.end();
    return;
  }
  // A bigint (an int64 beyond 2^53, ./exact-json.ts) goes back as the digits it came in. Written as bytes: a
  // text would be joined to the head and copied whole once more (a query's answer can be many megabytes).
  const bytes = Buffer.from(stringifyExactJson(reply.body), "utf8");
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Content-Length", bytes.length);
  res.end(bytes);
}
