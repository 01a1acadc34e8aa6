/**
 * GetMappings and GetMapping over gRPC, in process and on the built plugin, as pulumi/pulumi defines them
 * (proto/pulumi/provider.proto; pkg/codegen/convert/base_plugin_mapper.go is the caller): `terraform` names
 * `axiom`; the mapping of `axiom`, or of the empty provider (the mapper's blind call), is the table's JSON with
 * `provider: "axiom"`; any other key or provider gets an empty answer, not an error, since the mapper fails a
 * whole conversion on a plugin's error and asks every installed plugin. pulumi/pulumi-kubernetes
 * (provider/pkg/provider/provider.go, `GetMapping`) answers another key the same way, with an empty
 * `GetMappingResponse`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { terraformMapping } from "../../provider/terraform";
import { REPO_ROOT, startNative, type NativeClient } from "../helpers/native";
import { startPluginProcess } from "../helpers/plugin-process";

/* eslint-disable @typescript-eslint/no-explicit-any */
const providerPb = require("@pulumi/pulumi/proto/provider_pb");

describe("in process", () => {
  let native: NativeClient;
  beforeAll(async () => {
    native = await startNative();
  });
  afterAll(async () => {
    await native.close();
  });

  test("GetMappings: axiom for terraform, nothing for any other key", async () => {
    expect(await native.getMappings("terraform")).toEqual(["axiom"]);
    for (const key of ["", "tf", "helm", "kubernetes", "Terraform"])
      expect(await native.getMappings(key)).toEqual([]);
  });

  test('GetMapping(terraform, axiom) and the blind GetMapping(terraform, ""): the table\'s mapping, for axiom', async () => {
    for (const asked of ["axiom", ""]) {
      const { provider, data } = await native.getMapping("terraform", asked);
      expect(provider).toBe("axiom");
      const mapping = JSON.parse(Buffer.from(data).toString("utf8"));
      expect(mapping).toEqual(terraformMapping("0.0.0-test"));
      expect(mapping.resources.axiom_monitor.tok).toBe("observability:index:Monitor");
    }
  });

  test("GetMapping of another provider or key: an empty answer, not an error", async () => {
    for (const [key, asked] of [
      ["terraform", "aws"],
      ["terraform", "Axiom"],
      ["helm", "axiom"],
      ["", ""],
    ]) {
      const { provider, data } = await native.getMapping(key, asked);
      expect({ key, asked, provider, bytes: data.length }).toEqual({ key, asked, provider: "", bytes: 0 });
    }
  });
});

test("the built plugin answers both, its mapping carrying the version of its schema", async () => {
  const schema = JSON.parse(
    fs.readFileSync(path.join(REPO_ROOT, "dist", "provider", "native", "schema.json"), "utf8"),
  );
  const plugin = await startPluginProcess();
  try {
    const mappingsReq = new providerPb.GetMappingsRequest();
    mappingsReq.setKey("terraform");
    const mappings: any = await plugin.call("getMappings", mappingsReq);
    expect(mappings.getProvidersList()).toEqual(["axiom"]);
    const req = new providerPb.GetMappingRequest();
    req.setKey("terraform");
    req.setProvider("axiom");
    const resp: any = await plugin.call("getMapping", req);
    expect(resp.getProvider()).toBe("axiom");
    const mapping = JSON.parse(Buffer.from(resp.getData_asU8()).toString("utf8"));
    expect(mapping.version).toBe(schema.version);
    expect(mapping).toEqual(terraformMapping(schema.version));
  } finally {
    await plugin.close();
  }
});
