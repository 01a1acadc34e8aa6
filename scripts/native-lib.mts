/** What the native provider's build, its `provider:*` scripts and the schema script share. */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { EXAMPLES, snippets } from "./docs-languages.mts";

export const ROOT = path.resolve(import.meta.dirname, "..");
/** The compiled plugin: main.js, server.js, schema.js and the generated schema.json. */
export const NATIVE_DIST = path.join(ROOT, "dist", "provider", "native");
/** The folder holding the launcher: what `npm run provider:dir` prints, and what goes first on PATH. */
export const PLUGIN_DIR = path.join(ROOT, "dist", "plugin");
/** The plugin's executable name, as the engine looks for it. */
export const PLUGIN_NAME = "pulumi-resource-observability";
/** The oldest Node the package runs on (package.json `engines`). */
export const MIN_NODE = [22, 19] as const;

const require = createRequire(import.meta.url);

export function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string })
    .version;
}

/**
 * `owner/name` of the GitHub repository package.json's `repository` names (`github:owner/name`, a
 * `https://github.com/owner/name` URL or `{ url }` of either); throws naming the field when it names no GitHub
 * repository. Its releases serve the plugin (the schema's `pluginDownloadURL`).
 */
export function githubRepository(): string {
  const { repository } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    repository?: string | { url?: string };
  };
  const url = typeof repository === "string" ? repository : repository?.url;
  const match = url
    ? /^(?:github:|(?:git\+)?(?:https|ssh|git):\/\/(?:git@)?github\.com\/)([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(
        url,
      )
    : null;
  if (!match)
    throw new Error(
      `package.json: "repository" must name a GitHub repository (github:owner/name), not ${JSON.stringify(url)}`,
    );
  return `${match[1]}/${match[2]}`;
}

/**
 * The schema, generated afresh from the built kinds and the TypeScript sources; `places` receives where the walk
 * met each type (scripts/renamed-types.mts).
 */
export function generateSchema(
  version = packageVersion(),
  places?: import("../dist/provider/native/schema.js").TypePlace[],
): unknown {
  const { packageSchema, withExamples } = require(
    path.join(NATIVE_DIST, "schema.js"),
  ) as typeof import("../dist/provider/native/schema.js");
  const { sourceDocs } = require(
    path.join(NATIVE_DIST, "docs.js"),
  ) as typeof import("../dist/provider/native/docs.js");
  const { KINDS } = require(path.join(ROOT, "dist", "provider", "resources", "registry.js")) as {
    KINDS: Map<string, unknown>;
  };
  const schema = packageSchema(
    sourceDocs(ROOT, [...KINDS.keys()]),
    { version, repository: githubRepository() },
    places,
  );
  // Each resource's example, rendered into each language from the schema as docs/resources shows it.
  const examples = Object.fromEntries(EXAMPLES.map((ex) => [ex.kind, snippets(schema, ex)]));
  return withExamples(schema, examples);
}

export function writeSchemaFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(generateSchema(), null, 2) + "\n");
}

/** Whether `node` answers with a version of at least {@link MIN_NODE}; the reason when it does not. */
export function nodeProblem(node: string): string | undefined {
  if (!fs.existsSync(node)) return `${node} does not exist`;
  let version: string;
  try {
    version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  } catch (e) {
    return `${node} --version failed: ${(e as Error).message.split("\n")[0]}`;
  }
  const [major, minor] = version.replace(/^v/, "").split(".").map(Number);
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return undefined;
  return `${node} is Node ${version}; the plugin needs ${MIN_NODE.join(".")} or newer`;
}

/**
 * The Node the launcher runs: the package's own (the `node` devDependency, node_modules/node/bin/node), resolved to
 * an absolute path; the Node running the build when that is missing. Throws when neither is new enough.
 */
export function nodeForPlugin(): string {
  const candidates = [path.join(ROOT, "node_modules", "node", "bin", "node"), process.execPath];
  const reasons: string[] = [];
  for (const candidate of candidates) {
    const problem = nodeProblem(candidate);
    if (!problem) return fs.realpathSync(candidate);
    reasons.push(problem);
  }
  throw new Error(`no Node for the plugin: ${reasons.join("; ")}`);
}
