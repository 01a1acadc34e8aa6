/** Notifier: where monitors send alerts (one channel each). POST/GET/PUT/DELETE `/v2/notifiers[/{id}]`. */
import * as pulumi from "@pulumi/pulumi";
import { NotifierFieldsSchema } from "../schemas";
import {
  adoptableOptions,
  resourceProps,
  withSecretInputs,
  withSecretOutputs,
  type ArgsMatchSchema,
  type Assert,
} from "./common";
import { KindResource } from "./kind-resource";
import { OUTPUT_KEYS, SECRET_INPUTS, SECRET_OUTPUTS, declaration } from "./notifier-kind";

/** A custom webhook: `url` and `body` required; every field is a credential. */
export interface CustomWebhookChannel {
  /** Required: http(s) URL called; secret. */
  url: pulumi.Input<string>;
  /** Required: request body template. */
  body: pulumi.Input<string>;
  /** Extra request headers; secret. Defaults to none. */
  headers?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /** Headers holding credentials; secret. Defaults to none. */
  secretHeaders?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

/** Channel configuration: exactly one key may be set. Every credential is a secret output. */
export interface NotifierPropertiesArgs {
  /** Custom webhook (`url`, `body`, `headers`, `secretHeaders`). */
  customWebhook?: pulumi.Input<CustomWebhookChannel>;
  /** Discord bot: `discordChannel` and `discordToken` (secret), both non-empty. */
  discord?: pulumi.Input<{ discordChannel: pulumi.Input<string>; discordToken: pulumi.Input<string> }>;
  /** Discord webhook: `discordWebhookUrl`, an http(s) URL; secret. */
  discordWebhook?: pulumi.Input<{ discordWebhookUrl: pulumi.Input<string> }>;
  /** Email: `emails`, at least 1 address, no duplicates; order does not matter. */
  email?: pulumi.Input<{ emails: pulumi.Input<pulumi.Input<string>[]> }>;
  /** Microsoft Teams: `microsoftTeamsUrl`, an http(s) URL; secret. */
  microsoftTeams?: pulumi.Input<{ microsoftTeamsUrl: pulumi.Input<string> }>;
  /** Opsgenie: `apiKey` (secret, non-empty) and `isEU` (defaults to false). */
  opsgenie?: pulumi.Input<{ apiKey: pulumi.Input<string>; isEU?: pulumi.Input<boolean> }>;
  /** PagerDuty: `routingKey` (secret, non-empty) and optional `token` (secret). */
  pagerduty?: pulumi.Input<{ routingKey: pulumi.Input<string>; token?: pulumi.Input<string> }>;
  /** Slack: `slackUrl`, an http(s) incoming-webhook URL; secret. */
  slack?: pulumi.Input<{ slackUrl: pulumi.Input<string> }>;
  /** Plain webhook: `url`, an http(s) URL; secret. */
  webhook?: pulumi.Input<{ url: pulumi.Input<string> }>;
}

/** Inputs of a {@link Notifier}. */
export interface NotifierArgs {
  /** Required: human-readable name. */
  name: pulumi.Input<string>;
  /** Required: exactly one channel. Secret as a whole, input and output, since every channel but email holds credentials. */
  properties: pulumi.Input<NotifierPropertiesArgs>;
  /** RFC 3339 time until which the notifier is disabled. Defaults to none (enabled). */
  disabledUntil?: pulumi.Input<string>;
  /** Id (`notify_…`) of an existing notifier to take under management instead of creating one; changing it replaces. */
  adopt?: pulumi.Input<string>;
}

type _ArgsMatchSchema = Assert<ArgsMatchSchema<NotifierArgs, typeof NotifierFieldsSchema>>;

/**
 * A notifier's channel configuration, as outputs: one channel is set. A channel the service reports as not set
 * is null or absent. See {@link NotifierPropertiesArgs} for each field.
 */
export interface NotifierPropertiesOutput {
  customWebhook?: {
    url: string;
    body: string;
    headers?: Record<string, string>;
    secretHeaders?: Record<string, string>;
  } | null;
  discord?: { discordChannel: string; discordToken: string } | null;
  discordWebhook?: { discordWebhookUrl: string } | null;
  email?: { emails: string[] } | null;
  microsoftTeams?: { microsoftTeamsUrl: string } | null;
  opsgenie?: { apiKey: string; isEU?: boolean } | null;
  pagerduty?: { routingKey: string; token?: string } | null;
  slack?: { slackUrl: string } | null;
  webhook?: { url: string } | null;
}

/** A notification channel (Slack, email, PagerDuty, ...) that monitors alert through. */
export class Notifier extends KindResource {
  /** @internal The kind's declaration, which the dynamic provider's registry collects. */
  static readonly declaration = declaration;
  /** @internal Outputs always secret, and inputs always registered secret (see SECRET_INPUTS). */
  static readonly secretKeys = { outputs: SECRET_OUTPUTS, inputs: SECRET_INPUTS };

  /** Human-readable name. */
  declare readonly name: pulumi.Output<string>;
  /** The channel configuration; secret as a whole. */
  declare readonly properties: pulumi.Output<NotifierPropertiesOutput>;
  /** Disabled until this time, or null when enabled. */
  declare readonly disabledUntil: pulumi.Output<string | null | undefined>;
  /** When the service created the notifier (server-set). */
  declare readonly createdAt: pulumi.Output<string | undefined>;
  /** Who created the notifier (server-set). */
  declare readonly createdBy: pulumi.Output<string | undefined>;
  /** The adopted id, when the notifier was adopted. */
  declare readonly adopt: pulumi.Output<string | undefined>;

  /** Declares a notifier; `properties` is always a secret input and a secret output. */
  constructor(name: string, args: NotifierArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal What {@link Notifier.get} declares: no inputs, and the existing object's id in `opts`. */
  constructor(name: string, args: undefined, opts?: pulumi.CustomResourceOptions);
  constructor(name: string, args: NotifierArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    super(
      declaration,
      name,
      resourceProps(withSecretInputs(args, SECRET_INPUTS), OUTPUT_KEYS),
      withSecretOutputs(adoptableOptions(declaration.kind, name, args, opts), SECRET_OUTPUTS),
    );
  }

  /** Looks up an existing notifier by id (`notify_…`) without managing it. */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Notifier {
    return new Notifier(name, undefined, { ...opts, id });
  }
}
