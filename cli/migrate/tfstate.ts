/**
 * A Terraform state, format 4, as `terraform.tfstate` holds it and `terraform state pull` prints it (the layout is
 * hashicorp/terraform internal/states/statefile/version4.go: `stateV4`, `resourceStateV4`, `instanceObjectStateV4`).
 * Read strictly where the migration depends on a field, and every refusal names the file and the field at fault,
 * since a user who pipes the wrong document in (a plan, `terraform show -json`, a format 3 state) must learn which.
 */
import { isPlainObject } from "../../provider/resources/values";

/** Where an instance's object stands in Terraform's state. */
export type InstanceStatus = "current" | "tainted" | "deposed";

/** One object of the state: a resource instance's current object, or one of its deposed ones. */
export interface StateInstance {
  /** The module's address, `""` in the root module (`module.a`, `module.team["x"].module.b`). */
  module: string;
  mode: "managed" | "data";
  type: string;
  name: string;
  /** The provider configuration's address as recorded (`provider["registry.terraform.io/axiomhq/axiom"].eu`). */
  provider: string;
  /** The count index or for_each key, when the resource has `count` or `for_each`. */
  indexKey?: number | string;
  status: InstanceStatus;
  /** The deposed object's key, for a deposed one. */
  deposed?: string;
  schemaVersion: number;
  attributes: Record<string, unknown>;
  /** Paths Terraform marks sensitive, as dotted attribute names (list indices dropped). */
  sensitivePaths: string[];
}

/** A parsed state: what it says about itself, and every object in it. */
export interface TerraformState {
  terraformVersion: string;
  serial: number;
  instances: StateInstance[];
}

/** A state that cannot be read; the message names the source and the field. */
export class StateFormatError extends Error {
  override readonly name = "StateFormatError";
}

const describe = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "an object" : typeof v;

/**
 * `s` as Terraform quotes a for_each key in an address (hashicorp/terraform internal/addrs/instance_key.go,
 * `toHCLQuotedString`): `\n`, `\r`, `\t`, `\"` and `\\` escaped, `${` and `%{` doubled to `$${` and `%%{` (else
 * they open a template), a character Go's `unicode.IsPrint` refuses as `\uXXXX` or `\UXXXXXXXX`, any other as it
 * is. `terraform state rm` parses the address back the same way.
 */
export function hclQuoted(s: string): string {
  let out = '"';
  const chars = [...s];
  chars.forEach((ch, k) => {
    const escapes: Record<string, string> = {
      "\n": "\\n",
      "\r": "\\r",
      "\t": "\\t",
      '"': '\\"',
      "\\": "\\\\",
    };
    if (ch in escapes) out += escapes[ch];
    else if ((ch === "$" || ch === "%") && chars[k + 1] === "{") out += ch + ch;
    else if (ch === " " || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch)) out += ch;
    else {
      const code = ch.codePointAt(0)!;
      out +=
        code < 0x10000
          ? `\\u${code.toString(16).padStart(4, "0")}`
          : `\\U${code.toString(16).padStart(8, "0")}`;
    }
  });
  return `${out}"`;
}

/** The key of a quoted index as Terraform wrote it ({@link hclQuoted} undone). */
export function hclUnquoted(quotedKey: string): string {
  return quotedKey.replace(
    /\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))|([$%])\4\{/gsu,
    (_m, u?: string, bigU?: string, esc?: string, introducer?: string) => {
      if (introducer) return `${introducer}{`;
      if (u || bigU) return String.fromCodePoint(parseInt((u ?? bigU)!, 16));
      return ({ n: "\n", r: "\r", t: "\t" } as Record<string, string>)[esc!] ?? esc!;
    },
  );
}

/** A Terraform address's index part: `[0]` or `["key"]`, the key quoted as Terraform quotes it. */
export function indexPart(key: number | string | undefined): string {
  if (key === undefined) return "";
  if (typeof key === "number") return `[${key}]`;
  return `[${hclQuoted(key)}]`;
}

/** The instance's address as Terraform's commands take it (`module.a.axiom_monitor.errors["prod"]`). */
export function addressOf(i: Pick<StateInstance, "module" | "mode" | "type" | "name" | "indexKey">): string {
  const local = `${i.mode === "data" ? "data." : ""}${i.type}.${i.name}${indexPart(i.indexKey)}`;
  return i.module ? `${i.module}.${local}` : local;
}

/**
 * The paths of a `sensitive_attributes` entry. Terraform writes each path as a list of cty steps
 * (`{"type": "get_attr", "value": "token"}`, `{"type": "index", "value": {...}}`); an index step is dropped, so
 * a path names the attribute whatever the element. Anything else is ignored: it only adds caution, never a value.
 */
function sensitivePathsOf(raw: unknown): string[] {
  if (!Array.isArray(raw)) return [];
  const out: string[] = [];
  for (const path of raw) {
    if (!Array.isArray(path)) continue;
    const names = path
      .filter((s): s is { type: string; value: string } => isPlainObject(s) && s.type === "get_attr")
      .map((s) => String(s.value));
    if (names.length > 0) out.push(names.join("."));
  }
  return out;
}

/** Why a document that is not a state was given, when it looks like another of Terraform's outputs. */
function notAState(doc: Record<string, unknown>): string | undefined {
  if ("format_version" in doc && ("values" in doc || "planned_values" in doc || "resource_changes" in doc))
    return "this is the JSON of `terraform show -json` or of a plan, not a state: pass terraform.tfstate, or pipe `terraform state pull` into `-`";
  return undefined;
}

/**
 * Parses `text` (from `source`, a path or "standard input") as a format 4 state. Throws {@link StateFormatError}
 * naming the field at fault.
 */
export function parseState(text: string, source: string): TerraformState {
  if (text.trim() === "") {
    throw new StateFormatError(
      source === "standard input"
        ? "standard input is empty: pipe in `terraform state pull`, or pass the state file's path"
        : `${source} is empty`,
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    // Only where it broke: V8's message quotes the text around that place, which may be a secret of the state.
    const at = /position (\d+)/.exec((e as Error).message);
    const where = at ? ` at line ${lineColumn(text, Number(at[1]))}` : "";
    throw new StateFormatError(`${source} is not JSON${where}: is it a Terraform state?`);
  }
  const fail = (field: string, problem: string): never => {
    throw new StateFormatError(`${source}: ${field}: ${problem}`);
  };
  if (!isPlainObject(doc)) fail("the document", `must be a JSON object, not ${describe(doc)}`);
  const top = doc as Record<string, unknown>;
  const other = notAState(top);
  if (other) throw new StateFormatError(`${source}: ${other}`);
  if (!("version" in top)) fail("version", "missing: is this a Terraform state?");
  if (top.version !== 4) {
    const v = top.version;
    const hint =
      typeof v === "number" && v < 4
        ? "it was written by Terraform 0.11 or older; run `terraform apply -refresh-only` with Terraform 0.12 or newer to rewrite it as format 4"
        : "this command reads format 4, which Terraform 0.12 to 1.x write";
    fail("version", `format ${JSON.stringify(v)} is not read here: ${hint}`);
  }
  const terraformVersion = typeof top.terraform_version === "string" ? top.terraform_version : "unknown";
  const serial = typeof top.serial === "number" ? top.serial : 0;
  const resources = top.resources ?? [];
  if (!Array.isArray(resources)) fail("resources", `must be a list, not ${describe(resources)}`);

  const instances: StateInstance[] = [];
  (resources as unknown[]).forEach((r, ri) => {
    const at = `resources[${ri}]`;
    if (!isPlainObject(r)) fail(at, `must be an object, not ${describe(r)}`);
    const res = r as Record<string, unknown>;
    for (const key of ["type", "name", "provider"] as const) {
      if (typeof res[key] !== "string" || res[key] === "")
        fail(`${at}.${key}`, res[key] === undefined ? "missing" : `must be a non-empty string`);
    }
    if (res.mode !== "managed" && res.mode !== "data")
      fail(`${at}.mode`, `must be "managed" or "data", not ${JSON.stringify(res.mode)}`);
    if (res.module !== undefined && (typeof res.module !== "string" || !res.module.startsWith("module.")))
      fail(`${at}.module`, `must be a module address such as "module.a", not ${JSON.stringify(res.module)}`);
    if (res.each !== undefined && res.each !== "list" && res.each !== "map")
      fail(`${at}.each`, `must be "list" (count) or "map" (for_each), not ${JSON.stringify(res.each)}`);
    if (!Array.isArray(res.instances))
      fail(`${at}.instances`, `must be a list, not ${describe(res.instances)}`);
    const base = {
      module: (res.module as string | undefined) ?? "",
      mode: res.mode as "managed" | "data",
      type: res.type as string,
      name: res.name as string,
      provider: res.provider as string,
    };
    (res.instances as unknown[]).forEach((inst, ii) => {
      const iat = `${at}.instances[${ii}]`;
      if (!isPlainObject(inst)) fail(iat, `must be an object, not ${describe(inst)}`);
      const o = inst as Record<string, unknown>;
      // Older releases wrote `each` beside count and for_each; today's writer (version4.go `writeStateV4`) leaves
      // it out, so the key's own type says which it is.
      const key = o.index_key;
      if (key !== undefined) {
        const isIndex = typeof key === "number" && Number.isInteger(key) && key >= 0;
        if (!isIndex && typeof key !== "string")
          fail(
            `${iat}.index_key`,
            `must be a count index (a whole number) or a for_each key (a string), not ${JSON.stringify(key)}`,
          );
        if (res.each === "list" && !isIndex)
          fail(`${iat}.index_key`, `must be a count index (a whole number), not ${JSON.stringify(key)}`);
        if (res.each === "map" && typeof key !== "string")
          fail(`${iat}.index_key`, `must be a for_each key (a string), not ${JSON.stringify(key)}`);
      }
      if (o.attributes === undefined && o.attributes_flat !== undefined)
        fail(
          `${iat}.attributes`,
          "missing: this object is recorded in the flat form of Terraform 0.11 (attributes_flat); run `terraform apply -refresh-only` to rewrite it",
        );
      if (!isPlainObject(o.attributes))
        fail(`${iat}.attributes`, `must be an object, not ${describe(o.attributes)}`);
      if (o.schema_version !== undefined && typeof o.schema_version !== "number")
        fail(`${iat}.schema_version`, `must be a number, not ${describe(o.schema_version)}`);
      if (o.status !== undefined && o.status !== "tainted")
        fail(`${iat}.status`, `must be "tainted" or absent, not ${JSON.stringify(o.status)}`);
      if (o.deposed !== undefined && (typeof o.deposed !== "string" || o.deposed === ""))
        fail(`${iat}.deposed`, `must be a deposed object's key (a string), not ${JSON.stringify(o.deposed)}`);
      instances.push({
        ...base,
        ...(key !== undefined ? { indexKey: key as number | string } : {}),
        status: o.deposed !== undefined ? "deposed" : o.status === "tainted" ? "tainted" : "current",
        ...(o.deposed !== undefined ? { deposed: o.deposed as string } : {}),
        schemaVersion: (o.schema_version as number | undefined) ?? 0,
        attributes: o.attributes as Record<string, unknown>,
        sensitivePaths: sensitivePathsOf(o.sensitive_attributes),
      });
    });
  });
  return { terraformVersion, serial, instances };
}

/**
 * The provider of a provider configuration's address: `registry.terraform.io/axiomhq/axiom` and the alias
 * (`eu`) of `provider["registry.terraform.io/axiomhq/axiom"].eu`; `module`, the module that declares the
 * configuration, when one does (`module.x.provider[...]`; a module that inherits its caller's records the caller's).
 * A legacy address (`provider.axiom`, from Terraform 0.12) has no source: `-/axiom`.
 */
export function parseProviderAddress(
  address: string,
): { source: string; alias?: string; module?: string } | undefined {
  const prefix = /^((?:module\.[^.[]+(?:\[(?:"(?:[^"\\]|\\.)*"|\d+)\])?\.)+)/.exec(address)?.[1];
  const local = prefix ? address.slice(prefix.length) : address;
  const module = prefix ? { module: prefix.slice(0, -1) } : {};
  const m = /^provider\["([^"]+)"\](?:\.([A-Za-z0-9_-]+))?$/.exec(local);
  if (m) return { source: m[1], ...(m[2] ? { alias: m[2] } : {}), ...module };
  const legacy = /^provider\.([A-Za-z0-9_-]+)(?:\.([A-Za-z0-9_-]+))?$/.exec(local);
  if (legacy) return { source: `-/${legacy[1]}`, ...(legacy[2] ? { alias: legacy[2] } : {}), ...module };
  return undefined;
}

/** Strings found at a dotted path of `attributes`; lists on the way are walked through (a block is a list). */
export function stringsAt(attributes: unknown, path: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown, rest: string[]): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, rest);
      return;
    }
    if (rest.length === 0) {
      if (typeof v === "string" && v !== "") out.push(v);
      else if (isPlainObject(v)) for (const x of Object.values(v)) walk(x, []);
      return;
    }
    if (!isPlainObject(v)) return;
    const [head, ...tail] = rest;
    const keys = head === "*" ? Object.keys(v) : [head];
    for (const k of keys) if (k in v) walk(v[k], tail);
  };
  walk(attributes, path.split("."));
  return out;
}

/** `line L, column C` (from 1) of a character's offset in `text`. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `${before.length}, column ${before[before.length - 1].length + 1}`;
}
