/**
 * Imported first by the package's root: checks Node.js and @pulumi/pulumi before anything else loads (undici
 * above all), so an unsupported runtime gets one clear message instead of a crash inside a dependency.
 */
import { assertNode, assertPulumi } from "./engines";

assertNode();
assertPulumi();
