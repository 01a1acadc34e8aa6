/**
 * A YAML document parsed by js-yaml, the parser Pulumi's Node.js SDK reads Pulumi.yaml with (@pulumi/pulumi
 * automation/localWorkspace.js): loaded from that SDK's own dependencies, so the tests read a project file as
 * Pulumi's SDK does, with no YAML parser of this package's own.
 */
import { createRequire } from "node:module";

const fromPulumi = createRequire(require.resolve("@pulumi/pulumi"));
const jsYaml = fromPulumi("js-yaml") as { load(text: string): unknown };

/** `text` parsed as one YAML document. */
export function parseYaml(text: string): unknown {
  return jsYaml.load(text);
}
