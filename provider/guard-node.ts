/**
 * Imported first by the emulator and the CLI, which do not need @pulumi/pulumi: checks only Node.js, before
 * anything else loads, so an old Node gets one clear message instead of a crash inside a dependency.
 */
import { assertNode } from "./engines";

assertNode();
