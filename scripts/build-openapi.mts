/**
 * After `tsc`: writes dist/emulator/openapi.json, the OpenAPI document of what the emulator serves
 * (emulator/routes/openapi.ts), as a fresh emulator serves it at `GET /openapi.json`: the file and the served
 * document are one. Integers beyond 2^53 (the int64 bounds) are written as their exact digits.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
type Emulator = { url: string; close(): Promise<void> };
const { startEmulator } = require(path.join(ROOT, "dist", "emulator", "index.js")) as {
  startEmulator(options: { port: number }): Promise<Emulator>;
};

const emulator = await startEmulator({ port: 0 });
try {
  const res = await fetch(`${emulator.url}/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}: ${await res.text()}`);
  fs.writeFileSync(path.join(ROOT, "dist", "emulator", "openapi.json"), await res.text());
} finally {
  await emulator.close();
}
