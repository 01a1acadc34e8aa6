#!/usr/bin/env node
/**
 * The `observability` bin. It loads the command tree (cli/program.ts) only after its checks, so that neither an
 * old Node nor the bounded-heap restart of `ingest` pays for loading the client, zod and commander first.
 */
import { nodeProblem } from "../provider/engines";
import { execWithBoundedHeap } from "./heap";

// First: an old Node gets one clear line, not a stack trace from whatever module needs a newer one.
const tooOld = nodeProblem(process.versions.node, process.execPath);
if (tooOld) {
  process.stderr.write(`observability: ${tooOld}\n`);
  process.exit(1);
}
// A service token on the command line shows in `ps` and CI logs: refused before commander, whose error would
// echo it. (The emulator's own `--token` is the development token it accepts, not a credential of the service.)
const SERVICE_COMMANDS = ["annotate", "ingest", "query"];
const args = process.argv.slice(2);
if (SERVICE_COMMANDS.includes(args[0]) && args.some((a) => a === "--token" || a.startsWith("--token="))) {
  process.stderr.write(
    "observability: --token is not accepted (a command line shows in ps and in logs); set OBSERVABILITY_TOKEN, " +
      "or use --token-file FILE, or --token-file - to read it from standard input\n",
  );
  process.exit(2);
}
// Streaming a large file: keep the process's memory flat (see heap.ts); the other commands need no bound.
if (args[0] === "ingest") execWithBoundedHeap(process.argv);
// Required here, not imported at the top, so the process an execve replaces has loaded nothing it did not need.
const { main } = require("./program") as typeof import("./program");
void main();
