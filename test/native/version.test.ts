/**
 * One version everywhere, the plugin's part: the schema the build writes (dist/provider/native/schema.json) has
 * package.json's version and names the releases of package.json's repository as its pluginDownloadURL, and the
 * built plugin answers GetPluginInfo with that version (provider/native/main.ts takes it from the schema).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { startPluginProcess } from "../helpers/plugin-process";

/* eslint-disable @typescript-eslint/no-explicit-any */

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
  const plugin = await startPluginProcess();
  try {
    const info: any = await plugin.call("getPluginInfo", new Empty());
    expect(info.getVersion()).toBe(pkg.version);
  } finally {
    await plugin.close();
  }
});
