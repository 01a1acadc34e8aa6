/** `observability slo convert FILE…`: OpenSLO v1 SLO documents as the `Slo` component, in YAML or TypeScript. */
import { readFileSync } from "node:fs";
import { Command, InvalidArgumentError } from "commander";
import { action, CommandError, UsageError } from "../exit";
import { convertOpenSlo, OpenSloError, type ConvertedSlo } from "../slo/openslo";
import { LANGUAGES, printProgram, type Language } from "../slo/print";

const EXAMPLE = `
Reads OpenSLO v1 SLO documents (and the SLIs they refer to) whose indicator is a ratio of APL queries (a
metricSource of type Axiom whose spec.query is ['<dataset>'] | where <predicate>), and prints the equivalent
Slo resources. Whatever cannot be mapped (timeslice budgeting, another metric source, alert policies, a
calendar window) is refused, naming the field; nothing is printed then.

Example:
  $ observability slo convert checkout.openslo.yaml > Pulumi.slo.yaml
  $ observability slo convert checkout.openslo.yaml --language typescript >> index.ts
`;

function language(value: string): Language {
  if (!(LANGUAGES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`must be one of ${LANGUAGES.join(", ")}`);
  return value as Language;
}

/** Adds the `slo` command and its `convert` subcommand. */
export function registerSloCommand(program: Command): void {
  const slo = program
    .command("slo")
    .description("Service-level objectives: convert OpenSLO to the Slo component.");
  slo
    .command("convert")
    .description("Print the Slo resources equivalent to OpenSLO v1 SLO documents (YAML, or TypeScript).")
    .argument("<files...>", "OpenSLO YAML files (- reads standard input)")
    .option("--language <language>", `the program's language: ${LANGUAGES.join(" or ")}`, language, "yaml")
    .addHelpText("after", EXAMPLE)
    .action(
      action("slo convert", async (files: string[], flags: { language: Language }) => {
        const slos: ConvertedSlo[] = [];
        const problems: string[] = [];
        for (const file of files) {
          let text: string;
          try {
            // `-` is standard input, so a file can be piped in (`… | observability slo convert -`).
            text = readFileSync(file === "-" ? 0 : file, "utf8");
          } catch (e) {
            throw new UsageError(
              `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
            );
          }
          try {
            slos.push(...convertOpenSlo(text));
          } catch (e) {
            if (!(e instanceof OpenSloError)) throw e;
            problems.push(...e.problems.map((p) => `${file}: ${p}`));
          }
        }
        const names = slos.map((s) => s.name);
        const twice = names.filter((n, i) => names.indexOf(n) !== i);
        if (twice.length > 0)
          problems.push(`two SLOs are named ${[...new Set(twice)].join(", ")}: resource names must differ`);
        if (problems.length > 0) throw new CommandError(`cannot convert: ${problems.join("; ")}`);
        process.stdout.write(printProgram(slos, flags.language));
      }),
    );
}
