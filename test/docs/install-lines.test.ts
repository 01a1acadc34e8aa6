/**
 * The pages' lines that install or run the package outside a checkout work as written (issue: a new user's first
 * commands failed on them):
 * - `pulumi plugin install resource observability …` without `--server` asks the Pulumi Registry, which does not hold
 *   this plugin, so each line names where the plugin comes from: `--server` or `--file`;
 * - `npx observability …` in a folder whose project does not depend on this package makes npm fetch the npm
 *   registry's unrelated package named `observability` (npm exec resolves a bare command to the package of that
 *   name), so each line names the package: `npx -p pulumi-observability observability …`.
 * test/e2e-native/docs-commands.test.ts runs each line against the release.
 */
import * as path from "node:path";
import { docsCommands } from "../helpers/docs-commands";

const ROOT = path.resolve(__dirname, "..", "..");
const COMMANDS = docsCommands(ROOT);
const where = (c: { page: string; line: number }) => `${c.page}:${c.line}`;

test("the pages hold such lines (the reader finds them)", () => {
  expect(COMMANDS.filter((c) => c.kind === "plugin install").length).toBeGreaterThanOrEqual(4);
  expect(COMMANDS.filter((c) => c.kind === "npx").length).toBeGreaterThanOrEqual(8);
});

test.each(COMMANDS.filter((c) => c.kind === "plugin install").map((c) => [where(c), c.command]))(
  "%s: the plugin's source is named (--server or --file): %s",
  (_where, command) => {
    expect(command).toMatch(/ --(server|file) \S+/);
  },
);

test.each(COMMANDS.filter((c) => c.kind === "npx").map((c) => [where(c), c.command]))(
  "%s: npx names this package, never the registry's `observability`: %s",
  (_where, command) => {
    expect(command).toMatch(/^npx -p pulumi-observability observability( |$)/);
  },
);
