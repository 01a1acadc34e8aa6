/** Test helpers: a real emulator per test file on 127.0.0.1:0, and raw HTTP calls against it. */
import { request } from "undici";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../emulator";

/** Starts an emulator on a free port before the file's tests and closes it after; `current` is the running one. */
export function useEmulator(options: EmulatorOptions = {}): { readonly current: RunningEmulator } {
  let running: RunningEmulator | undefined;
  beforeAll(async () => {
    running = await startEmulator({ ...options, port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await running?.close();
    running = undefined;
  });
  return {
    get current(): RunningEmulator {
      if (!running)
        throw new Error("useEmulator: the emulator is not running (use it inside a test or hook)");
      return running;
    },
  };
}

/** The parts of a raw HTTP response tests assert on; `body` is parsed JSON when the response has one. */
export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** The body exactly as received. */
  text: string;
}

/**
 * Raw HTTP call to the emulator. Adds `Authorization: Bearer <token>` unless `headers.authorization` is given
 * (pass `authorization: ""` to send none). A non-string, non-Buffer body is sent as JSON.
 */
export async function api(
  em: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) h[k.toLowerCase()] = v;
  if (h.authorization === undefined) h.authorization = `Bearer ${em.token}`;
  if (h.authorization === "") delete h.authorization;
  let payload: string | Buffer | undefined;
  if (body !== undefined) {
    if (typeof body === "string" || Buffer.isBuffer(body)) payload = body;
    else payload = JSON.stringify(body);
    if (h["content-type"] === undefined) h["content-type"] = "application/json";
  }
  const res = await request(em.url + path, { method: method as "GET", headers: h, body: payload });
  const text = await res.body.text();
  const outHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) {
    if (v !== undefined) outHeaders[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  let parsed: unknown = undefined;
  if (text.length > 0 && (outHeaders["content-type"] ?? "").includes("json")) parsed = JSON.parse(text);
  return { status: res.statusCode, headers: outHeaders, body: parsed, text };
}

/**
 * Creates datasets with `POST /v2/datasets`: the service refuses ingest and queries into a dataset that was never
 * created (404), and so does the emulator. One that exists already (409) is fine; any other answer throws.
 */
export async function createDatasets(em: RunningEmulator, ...names: string[]): Promise<void> {
  for (const name of names) {
    const res = await api(em, "POST", "/v2/datasets", { name });
    if (res.status !== 200 && res.status !== 409)
      throw new Error(`creating dataset ${name}: ${res.status} ${res.text}`);
  }
}
