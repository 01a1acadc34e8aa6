/**
 * The SDKs' half of `npm run release` (scripts/release.mts calls writeSdkArtifacts with its staging folder): the
 * committed, generated SDKs (sdk/) made into what a registry serves, each built in a temporary copy so the
 * checkout is never written.
 *
 * - TypeScript: `pulumi-observability-sdk-<version>.tgz`, the npm package @pulumi-observability/sdk, compiled here
 *   (JavaScript and typings in bin/, no source maps), so nothing compiles at install. `@pulumi/pulumi` is a peer
 *   dependency: the program's own copy is the one the SDK registers resources with.
 * - Python: `pulumi_observability-<version>-py3-none-any.whl` and `pulumi_observability-<version>.tar.gz`, from
 *   `python -m build`, which must print no warning, then `twine check --strict`. build, twine and setuptools come
 *   from PyPI at the pins of scripts/python-release-tools.txt into a virtual environment cached outside the
 *   repository (`${XDG_CACHE_HOME:-~/.cache}/pulumi-observability/python-release-tools/<hash>`).
 * - Go: `goproxy/`, a file-tree module proxy holding sdk/go at v<version> (engine/goproxy, on golang.org/x/mod's
 *   zip code), which `GOPROXY=file://<release>/goproxy` serves as the repository's tag `sdk/go/v<version>` will.
 *
 * `node scripts/release-sdks.mts <folder>` writes them into that folder (made if missing) alone.
 */
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { CommandError, commandLine, exec, mustExec, npm } from "./shared/commands.ts";
import { buildGoPackage, isExecutable, toolCacheDir } from "./go-build.mts";
import { repositoryPath } from "./sdkgen.mts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SDK = path.join(ROOT, "sdk");
const NODE = process.execPath;
const TSC = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
const GOPROXY_DIR = path.join(ROOT, "engine", "goproxy");
const PYTHON_TOOLS = path.join(ROOT, "scripts", "python-release-tools.txt");

/** One artifact written, with the seconds it took to build. */
export interface SdkArtifact {
  language: "typescript" | "python" | "go";
  /** Files or folders written, relative to the staging folder. */
  files: string[];
  seconds: number;
}

function readJson<T = Record<string, unknown>>(file: string): T {
  return JSON.parse(readFileSync(file, "utf8")) as T;
}

/** Throws unless the committed SDK states `version` (checkVersions names every place; this guards the copy). */
function expectVersion(what: string, stated: unknown, version: string): void {
  if (stated !== version)
    throw new Error(
      `${what} is ${JSON.stringify(stated)}, not ${version}: run npm run sdk:gen and commit sdk/`,
    );
}

/**
 * The npm package of sdk/nodejs: compiled in a copy whose node_modules is this checkout's (its @pulumi/pulumi and
 * @types/node), with a package.json for publishing: main and types in bin/, `@pulumi/pulumi` a peer dependency,
 * no install script, and TypeScript no longer a dependency.
 */
export async function packTypeScript(stagingDir: string, version: string, work: string): Promise<string[]> {
  const src = path.join(SDK, "nodejs");
  const generated = readJson<Record<string, any>>(path.join(src, "package.json")); // eslint-disable-line @typescript-eslint/no-explicit-any
  expectVersion("sdk/nodejs/package.json's version", generated.version, version);
  const copy = path.join(work, "nodejs");
  cpSync(src, copy, { recursive: true, filter: (f) => !/[/\\](node_modules|bin)$/.test(f) });
  symlinkSync(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"), "dir");
  await mustExec(NODE, [TSC, "-p", "tsconfig.json", "--sourceMap", "false", "--declarationMap", "false"], {
    cwd: copy,
  });
  rmSync(path.join(copy, "node_modules"));
  const pulumiRange = generated.dependencies?.["@pulumi/pulumi"];
  if (!pulumiRange) throw new Error("sdk/nodejs/package.json does not depend on @pulumi/pulumi");
  const repo = repositoryPath();
  const published = {
    name: generated.name,
    version,
    description: generated.description,
    keywords: generated.keywords,
    license: generated.license,
    ...(repo ? { repository: { type: "git", url: `git+https://${repo}.git`, directory: "sdk/nodejs" } } : {}),
    main: "bin/index.js",
    types: "bin/index.d.ts",
    files: ["bin/", "README.md"],
    peerDependencies: { "@pulumi/pulumi": pulumiRange },
    pulumi: generated.pulumi,
  };
  const text = JSON.stringify(published, null, 2) + "\n";
  writeFileSync(path.join(copy, "package.json"), text);
  // The SDK reads its own version from the package.json beside its compiled code (utilities.ts getVersion).
  writeFileSync(path.join(copy, "bin", "package.json"), text);
  const [cmd, args] = npm(["pack", "--json", "--pack-destination", stagingDir, "--loglevel=error"]);
  const stdout = await mustExec(cmd, args, {
    cwd: copy,
    env: { ...process.env, npm_config_ignore_scripts: "true" },
  });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  const paths = packed.files.map((f) => f.path);
  const stray = paths.filter((p) => !/^(package\.json|README\.md|bin\/.*\.(js|d\.ts|json))$/.test(p));
  if (stray.length > 0) throw new Error(`the npm tarball holds files it should not: ${stray.join(", ")}`);
  if (!paths.includes("bin/index.js") || !paths.includes("bin/index.d.ts"))
    throw new Error("the npm tarball lacks bin/index.js or bin/index.d.ts");
  return [packed.filename];
}

/** The virtual environment holding build, twine and setuptools at their pins: cached, else made now. */
export async function pythonTools(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const pins = readFileSync(PYTHON_TOOLS);
  const key = createHash("sha256").update(pins).digest("hex").slice(0, 16);
  const dir = toolCacheDir("python-release-tools", key, env);
  const python = path.join(dir, "bin", "python");
  // A venv's scripts name its folder, so it is made in place (not moved there); `complete` is written last, so
  // an interrupted install is made again rather than used.
  const complete = path.join(dir, "complete");
  if (existsSync(complete) && isExecutable(python)) return python;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  try {
    await mustExec(env.PYTHON ?? "python3", ["-m", "venv", dir], { cwd: ROOT, env });
    await mustExec(
      python,
      ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", PYTHON_TOOLS],
      { cwd: ROOT, env },
    );
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  writeFileSync(complete, pins);
  return python;
}

/** Python's wheel and sdist of sdk/python: built with no warning, then checked by `twine check --strict`. */
export async function buildPython(stagingDir: string, version: string, work: string): Promise<string[]> {
  const src = path.join(SDK, "python");
  const pyproject = readFileSync(path.join(src, "pyproject.toml"), "utf8");
  expectVersion(
    "sdk/python/pyproject.toml's version",
    /^\s*version\s*=\s*"([^"]*)"/m.exec(pyproject)?.[1],
    version,
  );
  const python = await pythonTools();
  const copy = path.join(work, "python");
  cpSync(src, copy, {
    recursive: true,
    filter: (f) => !/[/\\](build|dist|__pycache__|[^/\\]*\.egg-info)$/.test(f),
  });
  const out = path.join(work, "python-dist");
  // Without isolation: the backend is the tools' pinned setuptools, and the build downloads nothing.
  // PYTHONDONTWRITEBYTECODE, when the caller's environment sets it, makes setuptools warn that it skips
  // byte-compiling (which a wheel never holds anyway): left out, so any warning left is the package's.
  const { PYTHONDONTWRITEBYTECODE: _, ...env } = process.env;
  const buildArgs = ["-m", "build", "--no-isolation", "--outdir", out, "."];
  const built = await exec(python, buildArgs, { cwd: copy, env: { ...env, PYTHONWARNINGS: "default" } });
  if (built.code !== 0) throw new CommandError(commandLine(python, buildArgs), built, false);
  const warnings = `${built.stdout}\n${built.stderr}`.split("\n").filter((l) => /warn/i.test(l));
  if (warnings.length > 0) throw new Error(`python -m build warned:\n${warnings.slice(0, 10).join("\n")}`);
  const files = readdirSync(out).sort();
  const wheel = files.find((f) => f === `pulumi_observability-${version}-py3-none-any.whl`);
  const sdist = files.find((f) => f === `pulumi_observability-${version}.tar.gz`);
  if (!wheel || !sdist)
    throw new Error(`python -m build wrote ${files.join(", ")}, not a wheel and an sdist`);
  const twine = path.join(path.dirname(python), "twine");
  await mustExec(twine, ["check", "--strict", path.join(out, wheel), path.join(out, sdist)], { cwd: copy });
  for (const f of [wheel, sdist]) renameSync(path.join(out, f), path.join(stagingDir, f));
  return [wheel, sdist];
}

/** The generator of file-tree module proxies (engine/goproxy): cached by a hash of its sources, else built. */
async function goproxyTool(): Promise<string> {
  const hash = createHash("sha256");
  for (const name of readdirSync(GOPROXY_DIR).sort())
    hash
      .update(name)
      .update("\0")
      .update(readFileSync(path.join(GOPROXY_DIR, name)))
      .update("\0");
  const cacheDir = toolCacheDir("goproxy", hash.digest("hex").slice(0, 16));
  const binary = path.join(cacheDir, "bin", "goproxy");
  if (isExecutable(binary)) return binary;
  await buildGoPackage({
    what: "the module proxy writer (engine/goproxy)",
    moduleDir: GOPROXY_DIR,
    pkg: ".",
    cacheDir,
    binary: "goproxy",
  });
  return binary;
}

/** The last commit's time (RFC 3339), the version's time in the proxy; now when there is no git history. */
async function commitTime(): Promise<string> {
  const r = await exec("git", ["log", "-1", "--format=%cI"], { cwd: ROOT });
  const t = r.code === 0 ? new Date(r.stdout.trim()) : new Date();
  return (Number.isNaN(t.getTime()) ? new Date() : t).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** `goproxy/`, serving sdk/go at v<version>. */
export async function writeGoProxy(stagingDir: string, version: string): Promise<string[]> {
  const dir = path.join(SDK, "go");
  if (!existsSync(path.join(dir, "go.sum")))
    throw new Error("sdk/go has no go.sum: run npm run sdk:gen and commit sdk/");
  const tool = await goproxyTool();
  await mustExec(
    tool,
    [
      "-dir",
      dir,
      "-version",
      `v${version}`,
      "-out",
      path.join(stagingDir, "goproxy"),
      "-time",
      await commitTime(),
    ],
    { cwd: ROOT },
  );
  return ["goproxy/"];
}

/**
 * Writes the SDKs' artifacts of `version` into `stagingDir`; resolves to what each language wrote and how long
 * it took. Throws, naming the language and why, when one cannot be built; what it wrote before stays in the
 * staging folder, which the caller discards.
 */
export async function writeSdkArtifacts(stagingDir: string, version: string): Promise<SdkArtifact[]> {
  mkdirSync(stagingDir, { recursive: true });
  const work = mkdtempSync(path.join(os.tmpdir(), "obs-release-sdks-"));
  const artifacts: SdkArtifact[] = [];
  const timed = async (language: SdkArtifact["language"], build: () => Promise<string[]>) => {
    const t0 = performance.now();
    try {
      const files = await build();
      artifacts.push({ language, files, seconds: Math.round((performance.now() - t0) / 100) / 10 });
    } catch (err) {
      throw new Error(`the ${language} SDK: ${(err as Error).message}`);
    }
  };
  try {
    await timed("typescript", () => packTypeScript(stagingDir, version, work));
    await timed("python", () => buildPython(stagingDir, version, work));
    await timed("go", () => writeGoProxy(stagingDir, version));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return artifacts;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  const { version } = readJson<{ version: string }>(path.join(ROOT, "package.json"));
  if (!out) {
    console.error("usage: node scripts/release-sdks.mts <folder>");
    process.exit(2);
  }
  writeSdkArtifacts(path.resolve(out), version).then(
    (artifacts) => {
      for (const a of artifacts)
        console.error(`release-sdks: ${a.language}: ${a.files.join(", ")} (${a.seconds} s)`);
    },
    (err: Error) => {
      console.error(`release-sdks: ${err.message}`);
      process.exit(1);
    },
  );
}
