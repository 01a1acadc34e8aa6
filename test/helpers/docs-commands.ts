/**
 * The command lines the user-facing pages give for getting the package's two installables: the plugin
 * (`pulumi plugin install resource observability …`) and the bin (`npx … observability …`). Read from `sh` blocks and
 * from inline code, with the page and line, so a test can hold each line to the rules and run it.
 *
 * Pages that run from a checkout of this repository (CONTRIBUTING.md, docs/languages.md, the examples' READMEs)
 * are left out: there the checkout itself provides the bin and the plugin's build.
 */
import { readFileSync, readdirSync } from "node:fs";
import * as path from "node:path";

/** One command line of a page. */
export interface DocsCommand {
  /** The page, relative to the repository's root. */
  page: string;
  /** 1-based line on the page. */
  line: number;
  /** The command as written, without a trailing comment or `&`. */
  command: string;
  kind: "plugin install" | "npx";
}

/** The pages a user reads outside a checkout. */
export function userPages(root: string): string[] {
  const docs = readdirSync(path.join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md") && f !== "languages.md")
    .map((f) => path.join("docs", f));
  const templates = readdirSync(path.join(root, "templates")).map((t) =>
    path.join("templates", t, "README.md"),
  );
  return ["README.md", ...docs, ...templates].sort();
}

const PLUGIN_INSTALL = /pulumi plugin install resource observability\b[^`#&|]*/;
const NPX = /\bnpx\b[^`#&|]*?\bobservability\b[^`#&|]*/;

/** Every plugin-install and npx line of the user pages. */
export function docsCommands(root: string): DocsCommand[] {
  const found: DocsCommand[] = [];
  for (const page of userPages(root)) {
    const lines = readFileSync(path.join(root, page), "utf8").split("\n");
    lines.forEach((text, i) => {
      for (const [kind, pattern] of [
        ["plugin install", PLUGIN_INSTALL],
        ["npx", NPX],
      ] as const) {
        const m = pattern.exec(text);
        // A bare `npx observability` right after the line installs the package is run in a project that depends on
        // it, where npm runs that project's copy (docs/migrating-from-terraform.md says so in one sentence).
        const installedFirst =
          kind === "npx" && text.slice(0, m?.index ?? 0).includes("npm install pulumi-observability");
        if (m && !installedFirst)
          found.push({ page, line: i + 1, command: m[0].trim().replace(/\s*\\$/, ""), kind });
      }
    });
  }
  return found;
}

/** The bin's commands, as `observability --help` lists them; anything else after the bin is a placeholder. */
export const BIN_COMMANDS = [
  "emulator",
  "annotate",
  "ingest",
  "query",
  "recover",
  "migrate",
  "test",
  "slo",
  "backtest",
];

/**
 * How a test runs a page's `npx -p pulumi-observability observability …` line without doing its command's work
 * (an emulator left running, a migration of a state the folder lacks: other tests'): the package's part of the line
 * (`-p pulumi-observability`), and the bin's arguments, `<command> --help` or, for a placeholder, `--version`.
 * Undefined when the line is not of that form.
 */
export function npxCheck(command: string): { sub?: string; bin: string[] } | undefined {
  const m = /^npx -p pulumi-observability observability(?: (\S+))?/.exec(command);
  if (!m) return undefined;
  const sub = BIN_COMMANDS.includes(m[1] ?? "") ? m[1] : undefined;
  return { sub, bin: ["observability", ...(sub ? [sub, "--help"] : ["--version"])] };
}
