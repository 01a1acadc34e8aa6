/**
 * Where a running emulator keeps its data, in words, from its command line: `npm run demo` says this of an
 * emulator it reuses rather than starts, since the emulator answers nothing about its data file over HTTP.
 * Imports nothing of the repository's, so the demo (Node's type stripping) and ts-jest load the same file.
 */
import * as path from "node:path";

/**
 * `argv` and `cwd` are the emulator process's (/proc/<pid>/cmdline and cwd); a `--data` path is relative to that
 * folder, and shown relative to `root` when it lies inside it.
 */
export function emulatorDataOf(pid: number, argv: readonly string[], cwd: string, root: string): string {
  const at = argv.findIndex((a) => a === "--data" || a.startsWith("--data="));
  if (at === -1) return `memory only (pid ${pid} was started without --data): gone when it stops`;
  const file = argv[at] === "--data" ? argv[at + 1] : argv[at].slice("--data=".length);
  if (!file) return `not known (pid ${pid} has --data without a file)`;
  const absolute = path.resolve(cwd, file);
  const relative = path.relative(root, absolute);
  return `${relative.startsWith("..") || path.isAbsolute(relative) ? absolute : relative} (pid ${pid})`;
}
