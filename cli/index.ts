#!/usr/bin/env node
/**
 * The `observability` bin. It loads the command tree (cli/program.ts) only after its checks, so that neither an
 * old Node nor the bounded-heap restart of `ingest` pays for loading the client, zod and commander first.
 */
import { nodeProblem } from "../provider/engines";
import { execWithBoundedHeap } from "./heap";
import { tokenFlagProblem } from "./token-flag";

// First: an old Node gets one clear line, not a stack trace from whatever module needs a newer one.
const tooOld = nodeProblem(process.versions.node, process.execPath);
if (tooOld) {
  process.stderr.write(`observability: ${tooOld}\n`);
  process.exit(1);
}
// A reader that goes away early (`observability --help | head`) closes the pipe: end quietly, as shell tools do,
// not with an unhandled EPIPE's stack trace. Output that handles its own closed pipe (cli/output.ts) listens too,
// and then decides.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    if (stream.listenerCount("error") === 1) process.exit(0);
  });
}
const args = process.argv.slice(2);
const tokenProblem = tokenFlagProblem(args);
if (tokenProblem) {
  process.stderr.write(`observability: ${tokenProblem}\n`);
  process.exit(2);
}
// Streaming a large file: keep the process's memory flat (see heap.ts); the other commands need no bound.
if (args[0] === "ingest") execWithBoundedHeap(process.argv);
// Required here, not imported at the top, so the process an execve replaces has loaded nothing it did not need.
const { main } = require("./program") as typeof import("./program");
void main();
