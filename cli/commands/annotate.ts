/** `observability annotate`: marks an event such as a deploy on the charts of one or more datasets. */
import { Command } from "commander";
import { AnnotationInputSchema, type AnnotationCreate } from "../../provider/schemas/annotation";
import { validate } from "../../provider/schemas/common";
import { addConnectionOptions, connect, TOKEN_HELP, type ConnectionFlags } from "../connection";
import { action, UsageError } from "../exit";

interface AnnotateFlags extends Omit<ConnectionFlags, "url"> {
  apiUrl?: string;
  dataset: string[];
  type?: string;
  title?: string;
  description?: string;
  url?: string;
  time?: string;
  endTime?: string;
  json?: boolean;
}

/** The flag that sets each field of the annotation, so a validation failure names what the user typed. */
const FLAG_OF: Record<string, string> = {
  datasets: "--dataset",
  type: "--type",
  title: "--title",
  description: "--description",
  url: "--url",
  time: "--time",
  endTime: "--end-time",
};

/** `--dataset a --dataset b,c` gives `[a, b, c]`. */
function collectDatasets(value: string, previous: string[]): string[] {
  return previous.concat(value.split(",").map((d) => d.trim()));
}

const EXAMPLE = `
Example (a deploy marker from CI; prints the annotation's id):
  $ observability annotate --dataset http-logs,traces --type production-deploy \\
      --title "Deploy $GITHUB_SHA" --url "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID"
${TOKEN_HELP}`;

/** The annotation the flags describe, checked by the same schema as the Annotation resource. */
export function annotationFromFlags(flags: AnnotateFlags): AnnotationCreate {
  const input: Record<string, unknown> = { datasets: flags.dataset, type: flags.type };
  for (const key of ["title", "description", "url", "time", "endTime"] as const) {
    if (flags[key] !== undefined) input[key] = flags[key];
  }
  const parsed = validate(AnnotationInputSchema, input);
  if (!parsed.ok) {
    const reasons = parsed.failures.map((f) => {
      const [, field, rest] = /^(\w+)(.*)$/.exec(f.property) ?? [undefined, f.property, ""];
      return `${FLAG_OF[field] ?? field}${rest}: ${f.reason}`;
    });
    throw new UsageError(`invalid annotation: ${reasons.join("; ")}`);
  }
  return parsed.value;
}

/** Adds the `annotate` subcommand. */
export function registerAnnotateCommand(program: Command): void {
  const command = program
    .command("annotate")
    .description("Create an annotation (e.g. a deploy) on the charts of one or more datasets; prints its id.")
    .option(
      "--dataset <names>",
      "dataset to annotate; repeat it or join names with commas",
      collectDatasets,
      [],
    )
    .option("--type <type>", "kind of event, lower case letters, digits and dashes (e.g. production-deploy)")
    .option("--title <text>", "short title, at most 256 characters")
    .option("--description <text>", "longer text, at most 512 characters")
    .option(
      "--url <link>",
      "link to open from the annotation, e.g. the CI run (the service URL is --api-url)",
    )
    .option("--time <rfc3339>", "when it happened (default: now)")
    .option("--end-time <rfc3339>", "when it ended, for an annotation that spans a range")
    .option("--json", "print the whole annotation as JSON instead of its id");
  addConnectionOptions(command, "--api-url")
    .addHelpText("after", EXAMPLE)
    .action(
      action("annotate", async (flags: AnnotateFlags) => {
        const body = annotationFromFlags(flags);
        const client = await connect({ ...flags, url: flags.apiUrl });
        try {
          const created = await client.annotations.create(body);
          process.stdout.write(flags.json ? `${JSON.stringify(created, null, 2)}\n` : `${created.id}\n`);
        } finally {
          await client.close();
        }
      }),
    );
}
