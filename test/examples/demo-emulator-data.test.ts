/**
 * What `npm run demo` says of an emulator's data when it reuses one already serving its port (issue: it printed
 * `Emulator data: .demo/emulator.json` of an emulator it had not started, and that file was never written). The
 * demo reads the emulator process's command line and folder from /proc; this is the reading of them.
 */
import { emulatorDataOf } from "../../scripts/shared/emulator-data";

const ROOT = "/work/repo";

test.each([
  [
    "--data FILE, relative to the emulator's folder, inside the checkout",
    ["node", "cli.js", "emulator", "--data", ".demo/emulator.json"],
    ROOT,
    ".demo/emulator.json (pid 42)",
  ],
  [
    "--data=FILE, from another folder of the checkout",
    ["node", "cli.js", "emulator", "--data=state.json"],
    `${ROOT}/examples`,
    "examples/state.json (pid 42)",
  ],
  [
    "--data outside the checkout: the absolute path",
    ["observability", "emulator", "--data", "/var/lib/em.json"],
    ROOT,
    "/var/lib/em.json (pid 42)",
  ],
  [
    "--data relative, the folder outside the checkout",
    ["observability", "emulator", "--data", "em.json"],
    "/tmp/elsewhere",
    "/tmp/elsewhere/em.json (pid 42)",
  ],
  [
    "no --data: memory only",
    ["observability", "emulator", "--port", "8787"],
    ROOT,
    "memory only (pid 42 was started without --data): gone when it stops",
  ],
  [
    "--data as the last argument, without its file",
    ["observability", "emulator", "--data"],
    ROOT,
    "not known (pid 42 has --data without a file)",
  ],
])("%s", (_rule, argv, cwd, said) => {
  expect(emulatorDataOf(42, argv, cwd, ROOT)).toBe(said);
});
