/**
 * One version everywhere, the plugin's part: the schema the build writes (dist/provider/native/schema.json) has
 * package.json's version and names the releases of package.json's repository as its pluginDownloadURL, and the
 * built plugin answers GetPluginInfo with that version (provider/native/main.ts takes it from the schema).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";

/* eslint-disable @typescript-eslint/no-explicit-any */
const providerGrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");

const ROOT = path.resolve(__dirname, "..", "..");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  version: string;
  repository: { url: string };
};
const schema = JSON.parse(
  fs.readFileSync(path.join(ROOT, "dist", "provider", "native", "schema.json"), "utf8"),
);

test("the built schema has package.json's version and names its repository's releases", () => {
  expect(schema.version).toBe(pkg.version);
  const repo = /github\.com\/([\w.-]+\/[\w.-]+?)(\.git)?$/.exec(pkg.repository.url)?.[1];
  expect(repo).toBeDefined();
  expect(schema.pluginDownloadURL).toBe(`github://api.github.com/${repo}`);
  expect(schema.repository).toBe(`https://github.com/${repo}`);
});

test("the built plugin answers GetPluginInfo with package.json's version", async () => {
  const child = spawn(process.execPath, [path.join(ROOT, "dist", "provider", "native", "main.js")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        out += c;
        const m = /^(\d+)\n/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once("exit", (code) => reject(new Error(`the plugin exited ${code} before its port`)));
    });
    const client = new providerGrpc.ResourceProviderClient(
      `127.0.0.1:${port}`,
      grpc.credentials.createInsecure(),
    );
    const info: any = await new Promise((resolve, reject) =>
      client.getPluginInfo(new Empty(), (err: Error | null, resp: any) =>
        err ? reject(err) : resolve(resp),
      ),
    );
    client.close();
    expect(info.getVersion()).toBe(pkg.version);
  } finally {
    if (child.exitCode === null) {
      await new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill();
      });
    }
  }
});
