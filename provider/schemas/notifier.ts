/** Notifier: the API reference's Notifier object and its channels (axiom.co/docs/restapi). Endpoints: `/v2/notifiers`. */
import { z } from "zod";
import { MAX_SOURCE_BYTES, sourceTooLarge } from "../go-template/go-template";
import { parseWebhookTemplate, TemplateError } from "../go-template/webhook";
import {
  DateTimeSchema,
  NonEmptyStringSchema,
  StringMapSchema,
  absentWhenUnset,
  refinedBy,
  serviceDefault,
  uniqueList,
  type CrossFieldIssue,
} from "./common";

const httpUrl = () =>
  z
    .string({ error: "must be a string" })
    .refine((s) => /^https?:\/\//i.test(s) && URL.canParse(s), { error: "must be an http(s) URL" });
const secretString = () => NonEmptyStringSchema;

/**
 * A custom webhook's body is a Go text/template (axiomhq/docs custom-webhook-notifier). One that Go's parser
 * refuses (`{{if}}`, an unclosed action, a function other than Go's builtins and the page's jsonObject and
 * jsonArray) could never render, so every notification through it would fail. The service's docs do not say
 * whether it refuses one when the notifier is saved; refusing it here is ours: `pulumi preview` names the field
 * and Go's error, and the emulator answers 422 (docs/emulator.md).
 */
const goTemplate = () =>
  z.string({ error: "must be a string" }).superRefine((source, ctx) => {
    // Our bound on a template's source (docs/emulator.md, "Custom webhook templates: our bounds"), checked before
    // anything is parsed: a 31.5 MB body held the emulator's event loop for 6.6 s while it was parsed.
    if (sourceTooLarge(source)) {
      ctx.addIssue({
        code: "custom",
        message: `must be at most ${MAX_SOURCE_BYTES / 1024} KiB (${MAX_SOURCE_BYTES} bytes of UTF-8), our bound on a custom webhook's template: a notification's body is small JSON`,
      });
      return;
    }
    try {
      parseWebhookTemplate(source);
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      ctx.addIssue({ code: "custom", message: `must be a Go template the service can parse (${e.message})` });
    }
  });

/** The channels, keyed as the service keys them (axiom-go `axiom/notifiers.go`, `NotifierProperties`). */
export const ChannelSchemas = {
  customWebhook: z.object({
    /** Required; the URL called. */
    url: httpUrl(),
    /** Required; the request body template, Go text/template syntax. */
    body: goTemplate(),
    headers: StringMapSchema.optional(),
    secretHeaders: StringMapSchema.optional(),
  }),
  discord: z.object({ discordChannel: NonEmptyStringSchema, discordToken: secretString() }),
  discordWebhook: z.object({ discordWebhookUrl: httpUrl() }),
  email: z.object({
    emails: uniqueList(z.email({ error: "must be an email address" })).min(
      1,
      "must contain at least 1 address",
    ),
  }),
  microsoftTeams: z.object({ microsoftTeamsUrl: httpUrl() }),
  opsgenie: z.object({ apiKey: secretString(), isEU: z.boolean({ error: "must be a boolean" }).optional() }),
  pagerduty: z.object({ routingKey: secretString(), token: secretString().optional() }),
  slack: z.object({ slackUrl: httpUrl() }),
  webhook: z.object({ url: httpUrl() }),
} as const;

export type ChannelKey = keyof typeof ChannelSchemas;
export const CHANNEL_KEYS = Object.keys(ChannelSchemas) as ChannelKey[];

/** Fields of each channel that are credentials: secret outputs, never logged. */
export const SECRET_CHANNEL_FIELDS: Record<ChannelKey, readonly string[]> = {
  customWebhook: ["url", "headers", "secretHeaders"],
  discord: ["discordToken"],
  discordWebhook: ["discordWebhookUrl"],
  email: [],
  microsoftTeams: ["microsoftTeamsUrl"],
  opsgenie: ["apiKey"],
  pagerduty: ["routingKey", "token"],
  slack: ["slackUrl"],
  webhook: ["url"],
};

/**
 * The rule across the channels: exactly one is configured. A value that is not an object is left to the
 * field's own rule.
 */
export function notifierChannelIssues(properties: unknown): CrossFieldIssue[] {
  if (!properties || typeof properties !== "object" || Array.isArray(properties)) return [];
  const props = properties as Record<string, unknown>;
  const set = CHANNEL_KEYS.filter((k) => props[k] !== undefined && props[k] !== null);
  if (set.length === 1) return [];
  return [
    {
      path: "",
      message:
        set.length === 0
          ? `must configure exactly one channel (one of ${CHANNEL_KEYS.join(", ")})`
          : `must configure exactly one channel, got ${set.length} (${set.join(", ")})`,
    },
  ];
}

/** The notifier's cross-field rule, reported on `properties`, for the provider's `check`. */
export function notifierCrossFieldIssues(inputs: Record<string, unknown>): CrossFieldIssue[] {
  return notifierChannelIssues(inputs.properties).map((i) => ({ ...i, path: "properties" }));
}

/** The channels as an object; `withRule` adds the exactly-one-channel rule (the provider runs it separately). */
function propertiesSchema(strict: boolean, withRule = true) {
  const channels = Object.fromEntries(
    Object.entries(ChannelSchemas).map(([k, s]) => [
      k,
      (strict ? z.strictObject(s.shape) : s).nullable().optional(),
    ]),
  ) as { [K in ChannelKey]: z.ZodOptional<z.ZodNullable<(typeof ChannelSchemas)[K]>> };
  const base = strict ? z.strictObject(channels) : z.object(channels);
  return withRule ? refinedBy(base, notifierChannelIssues) : base;
}

/** Accepts the spellings official clients send: `URL`/`Headers`/`Body` for a custom webhook, zero time. */
function tolerateClientSpellings(body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  if (out.disabledUntil === "") delete out.disabledUntil;
  const props = out.properties as Record<string, unknown> | undefined;
  const hook = props?.customWebhook as Record<string, unknown> | undefined | null;
  if (hook && typeof hook === "object") {
    const fixed: Record<string, unknown> = { ...hook };
    for (const [alias, name] of [
      ["URL", "url"],
      ["Headers", "headers"],
      ["Body", "body"],
      ["SecretHeaders", "secretHeaders"],
    ]) {
      // A null alias is Go's nil map or empty field (the struct has no JSON tags): it sets nothing.
      if (fixed[name] === undefined && fixed[alias] !== undefined && fixed[alias] !== null)
        fixed[name] = fixed[alias];
      delete fixed[alias];
    }
    out.properties = { ...props, customWebhook: fixed };
  }
  return out;
}

const notifierFields = (strict: boolean, withRule = true) => ({
  /** Required; human-readable. */
  name: NonEmptyStringSchema,
  /** Required; exactly one channel. */
  properties: propertiesSchema(strict, withRule),
  /** RFC 3339; null when enabled. */
  disabledUntil: serviceDefault(DateTimeSchema.nullable().optional(), null),
});

/** Body of `POST /v2/notifiers` and `PUT /v2/notifiers/{id}`. Unknown and read-only fields are ignored. */
export const NotifierCreateSchema = z.preprocess(
  tolerateClientSpellings,
  absentWhenUnset(z.object(notifierFields(false)), { zeroIsAbsent: true }),
);
export const NotifierUpdateSchema = NotifierCreateSchema;
/** The fields a user declares, each with its own rules: unknown fields are refused, at every level. The
 * provider's `check` runs this and then {@link notifierCrossFieldIssues}, once each. */
export const NotifierFieldsSchema = z.strictObject(notifierFields(true, false));
/** What a user declares, the exactly-one-channel rule included. */
export const NotifierInputSchema = z.strictObject(notifierFields(true));

export type NotifierProperties = { [K in ChannelKey]?: z.input<(typeof ChannelSchemas)[K]> | null };
export type NotifierCreate = { name: string; properties: NotifierProperties; disabledUntil?: string | null };
export type NotifierUpdate = NotifierCreate;

/** A channel as the service returns it: its fields are typed as declared but each may be absent, null reads as
 * absent (Go's nil `Headers`), a value of an unexpected type is kept as sent (drift for the provider, not an
 * error), and unknown fields are kept. */
function channelRead<Shape extends z.ZodRawShape>(channel: z.ZodObject<Shape>) {
  return absentWhenUnset(z.looseObject(channel.partial().shape), { keepMismatched: true }).nullable();
}
// Spelled out per channel so each keeps its own field types; `satisfies` makes a missing or unknown channel a
// compile error.
const ChannelReadSchemas = {
  customWebhook: channelRead(ChannelSchemas.customWebhook),
  discord: channelRead(ChannelSchemas.discord),
  discordWebhook: channelRead(ChannelSchemas.discordWebhook),
  email: channelRead(ChannelSchemas.email),
  microsoftTeams: channelRead(ChannelSchemas.microsoftTeams),
  opsgenie: channelRead(ChannelSchemas.opsgenie),
  pagerduty: channelRead(ChannelSchemas.pagerduty),
  slack: channelRead(ChannelSchemas.slack),
  webhook: channelRead(ChannelSchemas.webhook),
} satisfies Record<ChannelKey, z.ZodType>;

/** A notifier as the service returns it; unknown fields (and channels) survive, a field of an unexpected type is
 * kept as sent (drift for the provider, not an error). */
export const NotifierSchema = absentWhenUnset(
  z
    .looseObject({
      name: z.string(),
      properties: z.looseObject(ChannelReadSchemas).partial(),
      createdAt: z.string(),
      createdBy: z.string(),
      disabledUntil: z.string().nullable(),
    })
    .partial()
    .extend({ id: z.string() }),
  { zeroIsAbsent: true, keepMismatched: true },
);
export type Notifier = z.output<typeof NotifierSchema>;
