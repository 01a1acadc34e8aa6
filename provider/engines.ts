/**
 * The runtimes the package needs, checked when it is first imported: on an older Node, undici fails deep inside
 * its own code with an error that names neither Node nor this package, and an @pulumi/pulumi below the peer
 * range (installed with --legacy-peer-deps or --force) lacks the dynamic-provider host features the provider
 * relies on. A clear message at import beats either.
 */

/**
 * The oldest Node.js the package runs on: undici 8 declares `>=22.19.0` (@pulumi/pulumi 3.249+ needs 22), and a
 * Node 22 below that would fail inside undici rather than here. package.json's engines says the same; a test
 * keeps them equal.
 */
export const NODE_NEEDED = "22.19.0";

/**
 * The oldest @pulumi/pulumi whose dynamic-provider host the provider works with: 3.216.0 is the first whose
 * Read passes the `inputs` a provider returns back to the engine, which keeps diffs accurate after a refresh
 * (`configure(req)`, also used, came in 3.139). package.json's peer range starts here; a test keeps them equal.
 */
export const PULUMI_NEEDED = "3.216.0";

/** The problem with running on Node.js `found` (e.g. "20.19.0"), or undefined when it is recent enough. */
export function nodeProblem(found: string, execPath = ""): string | undefined {
  if (compareVersions(found.replace(/^v/, ""), NODE_NEEDED) >= 0) return undefined;
  const where = execPath ? ` (${execPath})` : "";
  return `pulumi-observability needs Node.js ${NODE_NEEDED} or later, but this is Node.js ${found}${where}.`;
}

/** Compares two `major.minor.patch` versions (pre-release tags ignored): negative, zero or positive. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) =>
    v
      .split("-")[0]
      .split(".")
      .map((n) => Number(n) || 0);
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** The problem with the @pulumi/pulumi version `found` (at `where`), or undefined when it is recent enough. */
export function pulumiProblem(found: string, where: string): string | undefined {
  if (compareVersions(found, PULUMI_NEEDED) >= 0) return undefined;
  return (
    `pulumi-observability needs @pulumi/pulumi ${PULUMI_NEEDED} or later (its peer range is ^${PULUMI_NEEDED}), ` +
    `but found ${found} at ${where}. Run: npm install @pulumi/pulumi@^${PULUMI_NEEDED}`
  );
}

/** Throws when Node.js is too old. */
export function assertNode(): void {
  const problem = nodeProblem(process.versions.node, process.execPath);
  if (problem) throw new Error(problem);
}

/** Throws when the @pulumi/pulumi that this package resolves is missing or too old. */
export function assertPulumi(): void {
  let file: string;
  try {
    file = require.resolve("@pulumi/pulumi/package.json");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND") {
      throw new Error(
        `pulumi-observability needs @pulumi/pulumi ${PULUMI_NEEDED} or later beside it, and none is installed. ` +
          `Run: npm install @pulumi/pulumi@^${PULUMI_NEEDED}`,
      );
    }
    return; // A future @pulumi/pulumi that hides its package.json: the peer range already held at install.
  }
  const found = String((require(file) as { version?: unknown }).version);
  const problem = pulumiProblem(found, file.replace(/[\\/]package\.json$/, ""));
  if (problem) throw new Error(problem);
}
