/**
 * The custom webhook's template language as the service parses it: Go's text/template with the two functions the
 * docs show (axiomhq/docs `content/docs/(documentation)/monitor-data/custom-webhook-notifier.mdx`). It lives with
 * the provider because two parts need it: the notifier's schema refuses a body Go cannot parse (at `pulumi
 * preview`, and in the emulator, which validates with the same schemas), and the emulator renders it for each
 * notification (emulator/alerting/notify/custom-webhook.ts). The emulator imports the provider, never the reverse.
 */
import { goJsonMarshal, type GoValue } from "./go-fmt";
import { GoTemplate, TemplateError, type TemplateFunc } from "./go-template";

/** The name errors carry (`template: webhook:3: …`). The service's own name is not published. */
export const TEMPLATE_NAME = "webhook";

/**
 * jsonObject and jsonArray: the docs show them writing `.MatchedEvent`, `.GroupKeys` and `.GroupValues` as JSON
 * (`null` when absent). Inferred: both are Go's json.Marshal of their argument (so a map's keys come out sorted,
 * and `<`, `>`, `&` as `\u003c` …), which is what the sample's `null`s show for nil values.
 */
export const WEBHOOK_FUNCS: Record<string, TemplateFunc> = {
  jsonObject: (args) => marshalOne("jsonObject", args),
  jsonArray: (args) => marshalOne("jsonArray", args),
};

function marshalOne(name: string, args: GoValue[]): string {
  if (args.length !== 1) throw new Error(`wrong number of args for ${name}: want 1 got ${args.length}`);
  return goJsonMarshal(args[0]);
}

/** Parsed templates by source, newest last: a notifier's template is parsed once, not at every send. */
const parsed = new Map<string, GoTemplate | TemplateError>();
const PARSED_LIMIT = 256;

/** Parses a webhook template; throws {@link TemplateError} naming the line and the problem. */
export function parseWebhookTemplate(source: string): GoTemplate {
  let entry = parsed.get(source);
  if (entry === undefined) {
    try {
      entry = GoTemplate.parse(TEMPLATE_NAME, source, Object.keys(WEBHOOK_FUNCS));
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      entry = e;
    }
    if (parsed.size >= PARSED_LIMIT) parsed.delete(parsed.keys().next().value as string);
    parsed.set(source, entry);
  }
  if (entry instanceof TemplateError) throw entry;
  return entry;
}

export { TemplateError };
