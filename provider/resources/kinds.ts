/**
 * Every kind's declaration, without its Resource class: what the native provider plugin serves. Each kind's
 * declaration lives in `<kind>-kind.ts`, which imports the lifecycle engine, the client and the schemas but not
 * @pulumi/pulumi, whose index takes most of a second to load; the plugin starts once per `pulumi up`, `preview`
 * and `refresh`. registry.ts collects the same declarations from the Resource classes for the dynamic provider;
 * test/provider/registry.test.ts holds the two lists equal.
 */
import * as annotation from "./annotation-kind";
import * as apiToken from "./api-token-kind";
import * as dashboard from "./dashboard-kind";
import * as dataset from "./dataset-kind";
import * as group from "./group-kind";
import type { DeclaredKind } from "./lifecycle";
import * as monitor from "./monitor-kind";
import * as notifier from "./notifier-kind";
import * as organizationName from "./organization-name-kind";
import * as role from "./role-kind";
import * as starredQuery from "./starred-query-kind";
import * as user from "./user-kind";
import * as view from "./view-kind";
import * as virtualField from "./virtual-field-kind";

const MODULES = [
  annotation,
  monitor,
  notifier,
  role,
  starredQuery,
  organizationName,
  view,
  group,
  user,
  virtualField,
  apiToken,
  dashboard,
  dataset,
];

/** The name of a kind whose declaration the plugin serves. */
export type DeclaredKindName = (typeof MODULES)[number]["declaration"]["kind"];

/** Keys of a kind whose values are always secret: in its outputs, and in its inputs. */
export interface SecretKeys {
  readonly outputs: readonly string[];
  readonly inputs: readonly string[];
}

/** Every declared kind, by name. */
export const DECLARATIONS: ReadonlyMap<DeclaredKindName, DeclaredKind<DeclaredKindName>> = new Map(
  MODULES.map((m) => [m.declaration.kind, m.declaration] as const),
);

/** The secret keys of every kind, by name; none for most. */
export const SECRET_KEYS: ReadonlyMap<DeclaredKindName, SecretKeys> = new Map(
  MODULES.map((m) => [
    m.declaration.kind,
    {
      outputs: "SECRET_OUTPUTS" in m ? m.SECRET_OUTPUTS : [],
      inputs: "SECRET_INPUTS" in m ? m.SECRET_INPUTS : [],
    },
  ]),
);
