/** Writers of the service's responses: JSON bodies, `{code, message}` errors and empty 204s. */
import type { ServerResponse } from "node:http";

/** Writes a JSON response. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/** Writes the service's error body `{code, message}` (plus `detail` for APL errors). */
export function sendError(res: ServerResponse, status: number, message: string, detail?: unknown): void {
  sendJson(res, status, detail === undefined ? { code: status, message } : { code: status, message, detail });
}

/** Writes 204 with an empty body, as every DELETE answers. */
export function sendNoContent(res: ServerResponse): void {
  res.statusCode = 204;
  res.end();
}
