/**
 * What the plugin loads to start: the engine starts it once per `pulumi up`, `preview` and `refresh`, and waits
 * for its port. The rule: serving the kinds loads neither @pulumi/pulumi's index (most of a second) nor the
 * lookups module (which imports that index), nor the HTTP client (undici, a tenth of a second, which a preview
 * never needs), nor zod and the kinds' declarations and schemas (as much again as the rest of the start); the
 * lookups are loaded at the first function called, the client at the first call that needs the service, a kind's
 * declaration at the first call of that kind. Checked on the
 * build the launcher runs (dist/, which `npm test` builds first), in a fresh Node, by what lands in its module
 * cache.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const REPO_ROOT = path.resolve(__dirname, "..", "..");
const NATIVE = path.join(REPO_ROOT, "dist", "provider", "native");

/** Runs `script` in a fresh Node (this one) beside the build; returns what it prints as JSON. */
function inFreshNode(script: string): Record<string, unknown> {
  const out = execFileSync(process.execPath, ["-e", script], { cwd: REPO_ROOT, encoding: "utf8" });
  return JSON.parse(out) as Record<string, unknown>;
}

const LOADED = `
  const loaded = (tail) => Object.keys(require.cache).some((k) => k.endsWith(tail));
  const report = () => ({
    pulumiIndex: loaded("node_modules/@pulumi/pulumi/index.js"),
    lookups: loaded("dist/provider/lookups.js"),
    resourceClasses: loaded("dist/provider/resources/monitor.js"),
    declarations: loaded("dist/provider/resources/monitor-kind.js"),
    otherKinds: Object.keys(require.cache).filter((k) => k.includes("dist/provider/resources/") && k.endsWith("-kind.js")).length,
    schemas: loaded("dist/provider/schemas/index.js"),
    zod: Object.keys(require.cache).some((k) => k.includes("node_modules/zod/")),
    client: loaded("dist/provider/client/client.js"),
    undici: loaded("node_modules/undici/index.js"),
  });
`;

beforeAll(() => {
  if (!fs.existsSync(path.join(NATIVE, "main.js")))
    throw new Error(`${NATIVE}/main.js is missing: run npm run build`);
});

test("the plugin's server and provider load without @pulumi/pulumi's index, the lookups, the Resource classes, the HTTP client, zod or any kind", () => {
  const seen = inFreshNode(`${LOADED}
    require(${JSON.stringify(path.join(NATIVE, "server.js"))});
    require(${JSON.stringify(path.join(NATIVE, "provider.js"))});
    process.stdout.write(JSON.stringify(report()));`);
  expect(seen).toEqual({
    pulumiIndex: false,
    lookups: false,
    resourceClasses: false,
    declarations: false,
    otherKinds: 0,
    schemas: false,
    zod: false,
    client: false,
    undici: false,
  });
});

test("a kind's declaration, with zod and the schemas, loads at the first call of that kind, and no other kind", () => {
  const seen = inFreshNode(`${LOADED}
    const { NativeProvider, kindOfType } = require(${JSON.stringify(path.join(NATIVE, "provider.js"))});
    const provider = new NativeProvider();
    const known = kindOfType("observability:index:Monitor");
    const before = report();
    provider.check("Monitor", {}, { name: "m", type: "MatchEvent", aplQuery: "['logs']" }).then((checked) => {
      process.stdout.write(JSON.stringify({ known, before: before.declarations, after: report(), failures: checked.failures }));
    });`);
  expect(seen).toEqual({
    known: "Monitor",
    before: false,
    after: expect.objectContaining({ declarations: true, otherKinds: 1, zod: true, client: false }),
    failures: [],
  });
});

test("the provider loads the HTTP client at the first call that needs the service", () => {
  const seen = inFreshNode(`${LOADED}
    const { NativeProvider } = require(${JSON.stringify(path.join(NATIVE, "provider.js"))});
    const provider = new NativeProvider();
    provider.configure({ "observability:token": "xaat-test", "observability:url": "http://127.0.0.1:9" }).then(() => {
      const before = report().client;
      const client = provider.configuredClient();
      const after = report().client;
      client.close().then(() => process.stdout.write(JSON.stringify({ before, after, built: typeof client.monitors })));
    });`);
  expect(seen).toEqual({ before: false, after: true, built: "object" });
});

test("a lookup function loads the lookups module at its first use", () => {
  const seen = inFreshNode(`${LOADED}
    const { LOOKUP_FUNCTIONS } = require(${JSON.stringify(path.join(NATIVE, "functions.js"))});
    const before = report().lookups;
    const lookup = LOOKUP_FUNCTIONS.find((f) => f.noun === "Monitor").lookup;
    process.stdout.write(JSON.stringify({ before, after: report().lookups, oneWith: typeof lookup.oneWith }));`);
  expect(seen).toEqual({ before: false, after: true, oneWith: "function" });
});

test("the Terraform table is loaded at the first GetMapping, and loads none of @pulumi/pulumi's index, the lookups, the Resource classes or the HTTP client", () => {
  const table = path.join(REPO_ROOT, "dist", "provider", "terraform", "index.js");
  const seen = inFreshNode(`${LOADED}
    const { resourceProviderService } = require(${JSON.stringify(path.join(NATIVE, "server.js"))});
    const service = resourceProviderService({ version: "0.0.0-test", schema: "{}" });
    const before = loaded("dist/provider/terraform/index.js");
    const pb = require("@pulumi/pulumi/proto/provider_pb");
    const req = new pb.GetMappingRequest();
    req.setKey("terraform");
    req.setProvider("axiom");
    service.getMapping({ request: req }, (err, resp) => {
      process.stdout.write(JSON.stringify({
        before,
        after: loaded("dist/provider/terraform/index.js"),
        bytes: err ? String(err) : resp.getData_asU8().length > 0,
        ...report(),
      }));
    });`);
  expect(fs.existsSync(table)).toBe(true);
  expect(seen).toEqual({
    before: false,
    after: true,
    bytes: true,
    pulumiIndex: false,
    lookups: false,
    resourceClasses: false,
    declarations: true,
    // The seven kinds the Terraform provider has, with their schemas.
    otherKinds: 7,
    schemas: true,
    zod: true,
    client: false,
    undici: false,
  });
});
