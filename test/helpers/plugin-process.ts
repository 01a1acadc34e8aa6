/**
 * The built plugin (dist/provider/native/main.js, what the launcher runs) as a child process, as the engine
 * starts it: its first line of stdout is its port; and a client of its ResourceProvider service.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";

const providerGrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");

const MAIN = path.resolve(__dirname, "..", "..", "dist", "provider", "native", "main.js");

export interface PluginProcess {
  /** A unary call of the ResourceProvider service. */
  call<T>(method: string, req: unknown): Promise<T>;
  close(): Promise<void>;
}

/** Starts the built plugin, as the engine does: its first line of stdout is its port. */
export async function startPluginProcess(): Promise<PluginProcess> {
  const child = spawn(process.execPath, [MAIN], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null)
      await new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill();
      });
  };
  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        out += c;
        const m = /^(\d+)\n/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once("exit", (code) => reject(new Error(`the plugin exited ${code} before its port`)));
    });
  } catch (e) {
    await stop();
    throw e;
  }
  const client = new providerGrpc.ResourceProviderClient(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
  );
  return {
    call: <T>(method: string, req: unknown) =>
      new Promise<T>((resolve, reject) =>
        client[method](req, (err: grpc.ServiceError | null, resp: T) => (err ? reject(err) : resolve(resp))),
      ),
    async close() {
      client.close();
      await stop();
    },
  };
}
