/**
 * Builds a Go program of a wrapper module in this repository (engine/<name>/go.mod) into a cache outside the
 * repository, the way the Pulumi CLI is built (pulumi-cli.mts): `${XDG_CACHE_HOME:-~/.cache}/pulumi-observability/
 * <tool>/<key>/bin`, written to a fresh folder and moved into place when complete, with the build's output in
 * `build.log` beside it. The wrapper's go.sum is complete, so a build never rewrites it (`-mod=readonly`), and the
 * go.mod's go line decides the toolchain (`GOTOOLCHAIN=local`: none is downloaded instead).
 */
import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { exec } from "./shared/commands.ts";

/** Where Go lives on this project's machines when it is not on PATH. */
export const GO_FALLBACK = "/usr/local/go/bin/go";

/** The folder of one tool's build keyed by `key` (a version, or a hash of the sources). */
export function toolCacheDir(tool: string, key: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), ".cache");
  return path.join(base, "pulumi-observability", tool, key);
}

/**
 * The `go` to build with: `$GO` when set (as Makefiles name it), else one on PATH, else the machines'
 * /usr/local/go; undefined when there is none.
 */
export function findGo(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.GO !== undefined) return isExecutable(env.GO) ? env.GO : undefined;
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, "go");
    if (isExecutable(candidate)) return candidate;
  }
  return isExecutable(GO_FALLBACK) ? GO_FALLBACK : undefined;
}

/** Why there is no Go to build with, in one line. */
export function noGoReason(env: NodeJS.ProcessEnv = process.env): string {
  return env.GO !== undefined
    ? `no Go toolchain (GO=${env.GO} is not an executable)`
    : `no Go toolchain (no \`go\` on PATH, nor ${GO_FALLBACK})`;
}

/** Why a build could not be had, in one line; `module` names the Go module that could not be had, if one. */
export class CliBuildError extends Error {
  override readonly name = "CliBuildError";
  readonly module?: string;
  constructor(message: string, module?: string) {
    super(message);
    this.module = module;
  }
}

/** One Go package of a wrapper module to build. */
export interface GoBuild {
  /** What is built, for messages: "the Pulumi CLI v3.274.1". */
  what: string;
  /** The wrapper module's folder (holding go.mod and go.sum). */
  moduleDir: string;
  /** The main package's import path. */
  pkg: string;
  /** The cache folder (toolCacheDir); `bin/` lands in it. */
  cacheDir: string;
  /** Extra `-ldflags`, if any. */
  ldflags?: string;
  /** The file in bin/ whose presence shows another build finished first. */
  binary: string;
}

/**
 * Builds `build.pkg` into `<cacheDir>/bin` and resolves to that folder and the seconds it took; throws a
 * {@link CliBuildError} saying in one line why not (no Go, or which module could not be had).
 */
export async function buildGoPackage(
  build: GoBuild,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ binDir: string; seconds: number }> {
  const go = findGo(env);
  if (!go) throw new CliBuildError(noGoReason(env));
  mkdirSync(build.cacheDir, { recursive: true });
  // A fresh folder per build, moved into place when complete, so a concurrent or interrupted build never leaves
  // a half-written binary where the cache is looked up.
  const staging = path.join(build.cacheDir, `bin.building-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  const logFile = path.join(build.cacheDir, "build.log");
  const started = Date.now();
  const args = [
    "build",
    "-mod=readonly",
    "-trimpath",
    ...(build.ldflags ? ["-ldflags", build.ldflags] : []),
    "-o",
    staging + path.sep,
    build.pkg,
  ];
  const result = await exec(go, args, {
    env: { ...env, CGO_ENABLED: "0", GOTOOLCHAIN: "local" },
    cwd: build.moduleDir,
  });
  writeFileSync(logFile, `$ ${go} ${args.join(" ")}\n${result.stdout}${result.stderr}`);
  if (result.code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw describeGoFailure(result.stderr || result.stdout, build.what, logFile, build.moduleDir);
  }
  const binDir = path.join(build.cacheDir, "bin");
  rmSync(binDir, { recursive: true, force: true });
  try {
    renameSync(staging, binDir);
  } catch (err) {
    // Another build finished first: keep its folder.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(path.join(binDir, build.binary))) throw err;
  }
  return { binDir, seconds: Math.round((Date.now() - started) / 100) / 10 };
}

/**
 * One line from `go build`'s output: the module it could not download or verify when it names one (go prints
 * `go: <module>@<version>: <what went wrong>`), else its last line.
 */
export function describeGoFailure(
  output: string,
  what: string,
  logFile: string,
  moduleDir: string,
): CliBuildError {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const where = `(the build's output: ${logFile})`;
  for (const line of lines) {
    const m = /(?:^go: |: )((?:[a-z0-9.-]+\.[a-z]+\/)[^\s@:]+)@(v[^\s:]+): (.*)$/i.exec(line);
    if (m) {
      const reason = m[3]
        .replace(/reading https?:\/\/\S+: /, "")
        .replace(/\s+/g, " ")
        .trim();
      return new CliBuildError(
        `building ${what}: module ${m[1]}@${m[2]} could not be had: ${reason} ${where}`,
        `${m[1]}@${m[2]}`,
      );
    }
    const missing = /missing go\.sum entry for module providing package (\S+)/.exec(line);
    if (missing) {
      const goSum = path.join(path.relative(path.resolve(moduleDir, "..", ".."), moduleDir), "go.sum");
      return new CliBuildError(
        `building ${what}: ${goSum} has no entry for the module of ${missing[1]} ${where}`,
        missing[1],
      );
    }
  }
  return new CliBuildError(`building ${what} failed: ${lines.at(-1) ?? "no output"} ${where}`);
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
