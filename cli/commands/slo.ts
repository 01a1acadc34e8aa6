/** `observability slo convert FILE…`: OpenSLO v1 SLO documents as the `Slo` component, in YAML or TypeScript. */
import { readFileSync } from "node:fs";
import { Command, InvalidArgumentError } from "commander";
import { action, CommandError, UsageError } from "../exit";
import { convertOpenSloFiles, OpenSloError, type OpenSloConversion, type OpenSloFile } from "../slo/openslo";
import { LANGUAGES, printProgram, type Language } from "../slo/print";

const EXAMPLE = `
Reads OpenSLO v1 files (several documents, or a list of objects; the files read together) and prints the Slo
resources equivalent to their SLOs whose indicator is a ratio of APL queries (a metricSource of type Axiom, or
a metricSourceRef to a DataSource of type Axiom, whose spec.query is ['<dataset>'] | where <predicate>). Every
other object (SLI, DataSource, Service, AlertPolicy, ...) is read or skipped, one line each on stderr. Whatever
cannot be mapped (timeslice budgeting, another metric source, a calendar window) is refused, naming the field;
nothing is printed then.

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
        const texts: OpenSloFile[] = [];
        for (const file of files) {
          try {
            // `-` is standard input, so a file can be piped in (`… | observability slo convert -`).
            texts.push({ name: file, text: readFileSync(file === "-" ? 0 : file, "utf8") });
          } catch (e) {
            throw new UsageError(
              `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
            );
          }
        }
        let converted: OpenSloConversion;
        try {
          // Read together: an SLO's indicatorRef and metricSourceRef reach the other files.
          converted = convertOpenSloFiles(texts);
        } catch (e) {
          if (!(e instanceof OpenSloError)) throw e;
          throw new CommandError(`cannot convert: ${e.problems.join("; ")}`);
        }
        const slos = converted.slos;
        const names = slos.map((s) => s.name);
        const twice = names.filter((n, i) => names.indexOf(n) !== i);
        if (twice.length > 0)
          throw new CommandError(
            `cannot convert: two SLOs are named ${[...new Set(twice)].join(", ")}: resource names must differ`,
          );
        // What became of every other object, one line each, on stderr: the program alone goes to stdout.
        for (const note of converted.notes) process.stderr.write(`${note}\n`);
        process.stdout.write(printProgram(slos, flags.language));
      }),
    );
}
