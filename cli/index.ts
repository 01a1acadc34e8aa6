#!/usr/bin/env node
/**
 * The `observability` bin. It loads the command tree (cli/program.ts) only after two checks, so that neither an
 * old Node nor the bounded-heap restart of `ingest` pays for loading the client, zod and commander first.
 */
// First: an old Node gets one clear message, not a crash in whatever module needs a newer one.
import "../provider/guard-node";
import { execWithBoundedHeap } from "./heap";

// Streaming a large file: keep the process's memory flat (see heap.ts); the other commands need no bound.
if (process.argv[2] === "ingest") execWithBoundedHeap(process.argv);
// Required here, not imported at the top, so the process an execve replaces has loaded nothing it did not need.
const { main } = require("./program") as typeof import("./program");
void main();
