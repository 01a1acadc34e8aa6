/**
 * The package's public surface, as the build ships it: the root's runtime exports, the subpath exports, and
 * root typings that never reach zod (scripts/build-typings.mts fails the build otherwise; this re-walks them).
 */
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");
const DIST = path.join(ROOT, "dist");

/** Every registered kind, as the built package registers them. */
const KIND_NAMES: string[] = [
  ...(
    require(path.join(DIST, "provider", "resources", "registry.js")) as { KINDS: Map<string, unknown> }
  ).KINDS.keys(),
];
/** Every kind's lookups: getX, getXOutput and the plural (OrganizationName's are the organization's). */
const LOOKUPS = KIND_NAMES.map((kind) => (kind === "OrganizationName" ? "Organization" : kind)).flatMap(
  (name) => [
    `get${name}`,
    `get${name}Output`,
    `get${name.endsWith("y") ? name.slice(0, -1) + "ies" : name + "s"}`,
  ],
);

it("the root exports the resources, the Slo component, their lookups, the client, its errors and MAX_BATCH_EVENTS, and nothing internal", () => {
  const root = require(path.join(DIST, "provider", "index.js")) as Record<string, unknown>;
  expect(Object.keys(root).sort()).toEqual(
    [
      ...KIND_NAMES,
      "Slo",
      "ObservabilityClient",
      "ApiError",
      "AbortError",
      "BadRequestError",
      "ConfigError",
      "ConflictError",
      "ConnectionError",
      "ForbiddenError",
      "InvalidResponseError",
      "NotFoundError",
      "QuotaExceededError",
      "RateLimitError",
      "ServerError",
      "TimeoutError",
      "UnprocessableEntityError",
      "PreconditionFailedError",
      "PathParameterError",
      "PaginationStalledError",
      "MAX_BATCH_EVENTS",
      ...LOOKUPS,
    ].sort(),
  );
});

it("the emulator, the schemas and the dynamic entry point are subpath exports, with typings for node10 resolution", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    exports: Record<string, { types: string; default: string } | string>;
    typesVersions: Record<string, Record<string, string[]>>;
  };
  expect(Object.keys(pkg.exports).sort()).toEqual([
    ".",
    // The kinds' shim modules, which installed programs' states require by this path (scripts/build-shims.mts).
    "./dist/provider/shims/*",
    "./dynamic",
    "./emulator",
    "./package.json",
    "./schemas",
  ]);
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === "string") continue;
    expect(fs.existsSync(path.join(ROOT, target.default))).toBe(true);
    expect(fs.existsSync(path.join(ROOT, target.types))).toBe(true);
    // `moduleResolution: node` ignores `exports`: typesVersions must name the same typings.
    if (subpath !== ".") expect(pkg.typesVersions["*"][subpath.slice(2)]).toEqual([target.types.slice(2)]);
  }
});

it.each([
  ["the root", "provider/index.d.ts"],
  // A program importing the emulator type-checks under the template's tsconfig too (test/consumer): zod's own
  // typings need esModuleInterop there.
  ["the emulator subpath", "emulator/index.d.ts"],
])("no typings reachable from %s import zod or the schemas", (_entry, entry) => {
  const seen = new Set<string>();
  const offenders: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = fs.readFileSync(file, "utf8");
    for (const [, spec] of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"']+)["']/g)) {
      if (spec === "zod" || spec.startsWith("zod/")) offenders.push(`${path.relative(DIST, file)} → ${spec}`);
      if (!spec.startsWith(".")) continue;
      const base = path.resolve(path.dirname(file), spec);
      const target = [`${base}.d.ts`, path.join(base, "index.d.ts")].find((f) => fs.existsSync(f))!;
      if (target.startsWith(path.join(DIST, "provider", "schemas")))
        offenders.push(`${path.relative(DIST, file)} → ${spec}`);
      else visit(target);
    }
  };
  visit(path.join(DIST, entry));
  expect(offenders).toEqual([]);
  expect(seen.size).toBeGreaterThan(10); // the walk really followed the imports
});
