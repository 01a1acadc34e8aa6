/**
 * Runs docs() (the declarations docs/resources shows in TypeScript) under Pulumi's mocks, and writes each
 * resource's inputs, as the SDK sends them to the engine, to the JSON file named by the first argument.
 */
import { writeFileSync } from "node:fs";
import * as pulumi from "@pulumi/pulumi";

const seen: Record<string, unknown> = {};
await pulumi.runtime.setMocks(
  {
    newResource: (args) => {
      seen[args.name] = args.inputs;
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: () => ({}),
  },
  "docs",
  "check",
  false,
);
const { docs } = await import("./docs.ts");
// Each resource is registered once its URN resolves.
await Promise.all(docs().map((r) => new Promise((resolve) => r.urn.apply(resolve))));
writeFileSync(process.argv[2], JSON.stringify(seen, null, 2));
