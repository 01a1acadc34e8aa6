/**
 * YAML: examples/yaml-flagship/Pulumi.yaml, run by the `pulumi` CLI through the YAML language host
 * (pulumi-language-yaml, built here from github.com/pulumi/pulumi-yaml: scripts/pulumi-yaml.mts), which reads each
 * type's schema from the plugin (GetSchema). The out-of-band dataset is taken over with the real `pulumi import`,
 * whose generated YAML is added to the program, as a user would.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { mustExec } from "../../scripts/shared/commands";
import { changesOf, describeFlagship, toolPath, type Harness } from "./flagship";

const host = toolPath("pulumi-yaml.mts");

/** `pulumi <args> --stack dev --non-interactive` in the program's folder. */
const pulumi = (h: Harness, args: string[], input?: string) =>
  mustExec(h.pulumi, [...args, "--stack", "dev", "--non-interactive"], { cwd: h.work, env: h.env, input });

describeFlagship(
  "YAML",
  {
    example: "yaml-flagship",
    extraPath: () => [host.path!],
    install: async (h) => {
      await mustExec(
        h.pulumi,
        ["stack", "init", "dev", "--secrets-provider", "passphrase", "--non-interactive"],
        {
          cwd: h.work,
          env: h.env,
        },
      );
      await pulumi(h, ["config", "set", "observability:url", h.em.url]);
      // Secrets on stdin: never in a process list.
      await pulumi(h, ["config", "set", "--secret", "observability:token"], h.em.token);
      await pulumi(h, ["config", "set", "--secret", "slackWebhookUrl"], h.slackUrl);
    },
    operation: async (h, op) =>
      changesOf(
        await pulumi(h, op === "preview" ? ["preview", "--json"] : [op, "--yes", "--skip-preview", "--json"]),
      ),
    edit: { file: "Pulumi.yaml", from: "threshold: 25", to: "threshold: 40" },
    importDataset: async (h, id) => {
      const generated = path.join(h.work, "imported.yaml");
      const changes = changesOf(
        await pulumi(h, [
          "import",
          "observability:index:Dataset",
          "legacy-logs",
          id,
          "--yes",
          "--skip-preview",
          "--json",
          "--protect=false",
          "--out",
          generated,
        ]),
      );
      // The declaration `pulumi import` wrote, added under the program's resources.
      const code = readFileSync(generated, "utf8");
      const declared = code.slice(code.indexOf("resources:\n") + "resources:\n".length);
      const program = path.join(h.work, "Pulumi.yaml");
      writeFileSync(
        program,
        readFileSync(program, "utf8").replace("resources:\n", `resources:\n${declared.trimEnd()}\n\n`),
      );
      return { changes, env: {} };
    },
    docs: async (h, programs) => {
      // Previewed by the engine: the YAML host types each property by the plugin's schema, and the provider
      // checks the inputs.
      const dir = path.join(path.dirname(h.work), "yaml-docs");
      mkdirSync(dir, { recursive: true });
      const resources = readFileSync(path.join(programs, "yaml", "resources.yaml"), "utf8");
      writeFileSync(
        path.join(dir, "Pulumi.yaml"),
        `name: yaml-docs\nruntime: yaml\nresources:\n${resources}`,
      );
      const run = (args: string[], input?: string) =>
        mustExec(h.pulumi, [...args, "--non-interactive"], { cwd: dir, env: h.env, input });
      await run(["stack", "init", "docs", "--secrets-provider", "passphrase"]);
      await run(["config", "set", "observability:url", h.em.url, "--stack", "docs"]);
      await run(["config", "set", "--secret", "observability:token", "--stack", "docs"], h.em.token);
      const preview = changesOf(await run(["preview", "--json", "--stack", "docs"]));
      // The stack and the thirteen kinds; the Slo, made through Construct in the preview too, with its children:
      // the example's two page monitors (its ticket pair is turned off) and its dashboard.
      expect(preview).toEqual({ create: 14 + 4 });
    },
  },
  host.path ? undefined : `no YAML language host: ${host.reason}`,
);
