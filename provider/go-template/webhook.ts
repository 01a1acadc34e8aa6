/**
 * The custom webhook's template language as the service parses it: Go's text/template with the two functions the
 * docs show (axiomhq/docs `content/docs/(documentation)/monitor-data/custom-webhook-notifier.mdx`). It lives with
 * the provider because two parts need it: the notifier's schema refuses a body Go cannot parse (at `pulumi
 * preview`, and in the emulator, which validates with the same schemas), and the emulator renders it for each
 * notification (emulator/alerting/notify/custom-webhook.ts). The emulator imports the provider, never the reverse.
 */
import { goJsonMarshal, type GoValue } from "./go-fmt";
import { GoTemplate, TemplateError, sourceTooLarge, type TemplateFunc } from "./go-template";

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

/**
 * Parsed templates by source, oldest first: a notifier's template is parsed once, not at every send. Bounded by
 * count and by the characters of the sources it keeps, since a parsed tree's size grows with its source: measured
 * (node --expose-gc, twenty distinct sources of each shape), a 64 KiB source of 16,000 `(.)` arguments holds
 * 10.7 MB with its tree, one of 32,000 `1`s 2.7 MB, 10,000 `{{.}}` 6.1 MB; about 170 bytes a source character at
 * worst. So at most {@link PARSED_CHARS} characters of source (eight sources at the bound, or 256 of 2 KiB): about
 * 90 MB at worst, a few hundred kilobytes for notifications' templates of a few hundred bytes. A source past
 * MAX_SOURCE_BYTES (go-template.ts) is refused before the cache is read and never kept (20 refused 30 MB sources held
 * 600 MB before); a source refused by the parser is kept with its error, within the same bounds.
 */
const parsed = new Map<string, GoTemplate | TemplateError>();
const PARSED_LIMIT = 256;
const PARSED_CHARS = 512 * 1024;
let parsedChars = 0;

/** Parses a webhook template; throws {@link TemplateError} naming the line and the problem, or the source bound. */
export function parseWebhookTemplate(source: string): GoTemplate {
  // Before the cache is read or written: a source past the bound is refused without being kept or parsed.
  const tooLarge = sourceTooLarge(source);
  if (tooLarge) throw new TemplateError(`template: ${TEMPLATE_NAME}: ${tooLarge}`, "parse", "source");
  let entry = parsed.get(source);
  if (entry === undefined) {
    try {
      entry = GoTemplate.parse(TEMPLATE_NAME, source, Object.keys(WEBHOOK_FUNCS));
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      entry = e;
    }
    for (const oldest of parsed.keys()) {
      if (parsed.size < PARSED_LIMIT && parsedChars + source.length <= PARSED_CHARS) break;
      parsed.delete(oldest);
      parsedChars -= oldest.length;
    }
    parsed.set(source, entry);
    parsedChars += source.length;
  }
  if (entry instanceof TemplateError) throw entry;
  return entry;
}

/** How many sources the parse cache holds, and their characters (tests read it: a source past the bound is never
 * among them, and the characters stay within their bound). */
export function parsedCacheSize(): { entries: number; chars: number } {
  return { entries: parsed.size, chars: parsedChars };
}

export { TemplateError };
