/**
 * scripts/generated.mts writeOrCheck, the one way the generators of committed files (docs:registry,
 * docs:languages, sdk:gen and sdk:check, renamed-types) write them or check them: the check names each stale file
 * (missing, differing, or extra in a folder the generator owns) under the command to run and writes nothing; the
 * write makes the folder what was generated, leaving alone what `ignore` takes (an installed SDK's node_modules).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const SCRIPT = path.join(ROOT, "scripts", "generated.mts");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "obs-generated-"));
  const put = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  put("owned/same.txt", "same\n");
  put("owned/edited.txt", "edited by hand\n");
  put("owned/extra.txt", "no longer generated\n");
  put("owned/node_modules/kept.js", "installed\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** writeOrCheck on the temporary folder with three generated files; its exit code and what it printed. */
function run(check: boolean): { code: number; stderr: string } {
  const r = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { writeOrCheck } from ${JSON.stringify(SCRIPT)};
       process.exitCode = writeOrCheck(
         { "owned/same.txt": "same\\n", "owned/edited.txt": "generated\\n", "owned/new/missing.txt": "new\\n" },
         { check: ${check}, label: "gen", fix: "npm run gen", root: ${JSON.stringify(dir)}, shownRoot: "out",
           owns: ["owned"], ignore: (f) => f.startsWith("node_modules/") },
       );`,
    ],
    { encoding: "utf8" },
  );
  return { code: r.status ?? -1, stderr: r.stderr };
}

test("the check names each stale file under the command to run, and writes nothing", () => {
  expect(run(true)).toEqual({
    code: 1,
    stderr: [
      "gen: stale; run `npm run gen` and commit:",
      "  out/owned/edited.txt differs from what the schema gives",
      "  out/owned/new/missing.txt is missing",
      "  out/owned/extra.txt is not generated from the schema",
      "",
    ].join("\n"),
  });
  expect(readFileSync(path.join(dir, "owned", "edited.txt"), "utf8")).toBe("edited by hand\n");
  expect(existsSync(path.join(dir, "owned", "extra.txt"))).toBe(true);
});

test("the write makes the owned folder what was generated, and the check then passes silently", () => {
  expect(run(false)).toEqual({ code: 0, stderr: "" });
  expect(readFileSync(path.join(dir, "owned", "edited.txt"), "utf8")).toBe("generated\n");
  expect(readFileSync(path.join(dir, "owned", "new", "missing.txt"), "utf8")).toBe("new\n");
  expect(existsSync(path.join(dir, "owned", "extra.txt"))).toBe(false);
  expect(readFileSync(path.join(dir, "owned", "node_modules", "kept.js"), "utf8")).toBe("installed\n");
  expect(run(true)).toEqual({ code: 0, stderr: "" });
});
