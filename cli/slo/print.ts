/**
 * The converted SLOs as a program: a Pulumi YAML `resources:` block of `observability:Slo` (the native provider's
 * component), or TypeScript declaring `obs.Slo` of `pulumi-observability`. The notifiers are left for the reader to
 * wire, with a comment saying how: OpenSLO's alert policies do not map to them.
 */
import { stringify } from "yaml";
import type { ConvertedSlo } from "./openslo";

/** The languages `slo convert` prints. */
export const LANGUAGES = ["yaml", "typescript"] as const;
export type Language = (typeof LANGUAGES)[number];

const WIRE = "wire the notifiers by id: pageNotifierIds and ticketNotifierIds (docs/slo.md)";

/** A YAML program's resources. */
function yamlProgram(slos: readonly ConvertedSlo[]): string {
  const resources = Object.fromEntries(
    slos.map((s) => [s.name, { type: "observability:Slo", properties: s.inputs }] as const),
  );
  return `# Converted from OpenSLO by observability slo convert; ${WIRE}.\n${stringify({ resources }, { lineWidth: 0 })}`;
}

/** A TypeScript identifier from a resource name: `checkout-availability` → `checkoutAvailability`. */
function identifier(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const id = words
    .map((w, i) =>
      i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1),
    )
    .join("");
  return /^[A-Za-z_]/.test(id) ? id : `slo${id.charAt(0).toUpperCase()}${id.slice(1)}`;
}

/** A TypeScript program's declarations. */
function typescriptProgram(slos: readonly ConvertedSlo[]): string {
  const taken = new Set<string>();
  const lines = [
    'import * as obs from "pulumi-observability";',
    "",
    `// Converted from OpenSLO by observability slo convert; ${WIRE}.`,
  ];
  for (const s of slos) {
    let id = identifier(s.name);
    while (taken.has(id)) id = `${id}_`;
    taken.add(id);
    lines.push(
      `export const ${id} = new obs.Slo(${JSON.stringify(s.name)}, ${JSON.stringify(s.inputs, null, 2)});`,
    );
  }
  return lines.join("\n") + "\n";
}

/** The program text in `language`. */
export function printProgram(slos: readonly ConvertedSlo[], language: Language): string {
  return language === "yaml" ? yamlProgram(slos) : typescriptProgram(slos);
}
