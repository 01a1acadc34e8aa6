/**
 * The names `observability migrate terraform` gives each object in the import file: `name`, the identifier the
 * generated program declares it by, and `logicalName`, the name in its URN.
 *
 * `name` starts from Pulumi's own converter (pulumi/pulumi-converter-terraform pkg/convert/tf_state.go,
 * `TranslateState`): the Terraform name, `-<index>` for count and `-<key>` for for_each, its special characters
 * made `_`. It must then be an identifier to every generator `pulumi import` hands it to:
 * - PCL first (pulumi/pulumi pkg/importer/language.go, `GenerateLanguageDefinitions`): the name is printed raw as
 *   the root of a reference (`errors_0.id`) and the text parsed again as HCL, so a name that is not an HCL
 *   identifier breaks the parse (a `?` reads as a conditional: "Missing false expression in conditional"). HCL
 *   identifiers are Unicode ID_Start/ID_Continue and `-` (hashicorp/hcl hclsyntax `ValidIdentifier`); `true`,
 *   `false`, `null` read as literals and `for`, `in`, `if` open expressions.
 * - then each language's program generator (pkg/codegen/nodejs, python, go `makeValidIdentifier`), which map what
 *   their language refuses to `_`, each differently (Go refuses the Unicode marks JavaScript and Python take), and
 *   prefix their own reserved words.
 * The one set all of them take unchanged is ASCII letters, digits and `_`, not starting with a digit: every other
 * character is mapped (the converter's special characters to `_`, as it does) or encoded by its code point
 * (`?` is `_u3f_`), so the name is the same in every language and two keys that differ stay apart.
 *
 * Names must be unique in the program, across types too: a resource in a module gets its module path in front where
 * one of its instances would otherwise share a name with another resource's (every instance of that resource then
 * carries it, whatever happens to its siblings), and what still clashes is numbered in the state's order. Names are
 * worked out over every object of the state, taken or not, so skipping one never renames another.
 *
 * `logicalName`, the name in the URN, is the object's Terraform address with its keys bare
 * (`module.team[a].axiom_notifier.oncall[pager.duty]`, `axiom_monitor.errors[0]`): what `terraform state` commands
 * name it by, but for the quotes. It must be a string literal to every generator, and not all of them escape one:
 * - the Node.js and Python generators write it between double quotes as it is (pkg/codegen/nodejs and python,
 *   `makeResourceName`: `"%s"`), so a `"` ends the string early and a `\` or a line break changes it; the quotes
 *   of the address are therefore left out, and a key holding `"`, `\` or a character Go's `unicode.IsPrint`
 *   refuses (a tab, a line break) cannot be written at all;
 * - Pulumi YAML reads `${` as an interpolation and `$$` as an escaped `$`, and its code generator
 *   (pulumi-language-yaml v1.25.0) writes the name without escaping either: no `$`;
 * - a URN separates its parts with `::`; and `[` or `]` in a bare key would make two addresses alike.
 * An object whose address holds one of those takes its `name` as its logical name, as does one whose logical name
 * another object of its type already has; a name is unique and never holds a `.`, which an address always does.
 */
import { hclUnquoted, type StateInstance } from "./tfstate";

/** What a key of a logical name may not hold (see above): `"`, `\\`, `$`, brackets, `::`, what Go does not print. */
const UNSAFE_IN_KEY = /["\\$[\]]|::|[^ \p{L}\p{M}\p{N}\p{P}\p{S}]/u;

/** The address with its keys bare, or undefined where a key holds what a logical name cannot (see above). */
function bareAddress(i: Nameable): string | undefined {
  let unsafe = false;
  const bare = (key: string) => {
    if (UNSAFE_IN_KEY.test(key)) unsafe = true;
    return `[${key}]`;
  };
  const module = i.module.replace(
    /\[(?:"((?:[^"\\]|\\.)*)"|(\d+))\]/g,
    (_m, s: string | undefined, n: string | undefined) => (s !== undefined ? bare(hclUnquoted(s)) : `[${n}]`),
  );
  const index =
    i.indexKey === undefined ? "" : typeof i.indexKey === "number" ? `[${i.indexKey}]` : bare(i.indexKey);
  const local = `${i.mode === "data" ? "data." : ""}${i.type}.${i.name}${index}`;
  return unsafe ? undefined : module ? `${module}.${local}` : local;
}

/** Pulumi's converter's special characters, each made `_` (tf_state.go, `specialRunes`). */
const CONVERTER_SPECIAL = new Set(" -./\\$@#%^&*()\"'<>|");

/** Names HCL reads as something other than a reference (literals, and the keywords of `for` expressions). */
const HCL_KEYWORDS = new Set(["true", "false", "null", "for", "in", "if", "else", "endif", "endfor"]);

/**
 * `readable` as an identifier every generator takes unchanged: ASCII letters, digits and `_`; the converter's
 * special characters become `_`, any other character `_u<code point in hex>_`; a leading digit or an HCL keyword
 * gets a `_` in front.
 */
export function identifierOf(readable: string): string {
  let out = "";
  for (const ch of readable) {
    if (/^[A-Za-z0-9_]$/.test(ch)) out += ch;
    else if (CONVERTER_SPECIAL.has(ch)) out += "_";
    else out += `_u${ch.codePointAt(0)!.toString(16)}_`;
  }
  if (out === "" || /^[0-9]/.test(out) || HCL_KEYWORDS.has(out)) out = `_${out}`;
  return out;
}

/** Whether `name` is an identifier as {@link identifierOf} makes them. */
export const isIdentifier = (name: string): boolean =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !HCL_KEYWORDS.has(name);

/** The module path as a name's prefix, keys kept: `module.team["a"].module.x` is `team-a-x`. */
export function modulePrefix(module: string): string {
  return module
    .split(/\.?module\./)
    .filter((p) => p !== "")
    .map((p) =>
      p.replace(
        /\[(?:"((?:[^"\\]|\\.)*)"|(\d+))\]/g,
        (_m, s: string | undefined, n: string | undefined) => `-${s !== undefined ? hclUnquoted(s) : n}`,
      ),
    )
    .join("-");
}

/** The names of one object. */
export interface Names {
  name: string;
  logicalName: string;
  /**
   * Why the name is not the converter's: `module`, its module path put in front to tell it from another's;
   * `numbered`, a number added where even that left two alike.
   */
  renamed?: "module" | "numbered";
}

type Nameable = Pick<StateInstance, "module" | "mode" | "type" | "name" | "indexKey">;

/** The resource an instance belongs to (its address without the index). */
const resourceOf = (i: Nameable) => `${i.module}\u0000${i.type}\u0000${i.name}`;

/**
 * The names of `instances` (every object of the state that could be taken: managed, current or tainted, of this
 * provider), in their order. Unique across types: `name` in the program, `logicalName` in URNs.
 */
export function nameAll(instances: readonly Nameable[]): Names[] {
  const plain = instances.map((i) =>
    identifierOf(i.indexKey === undefined ? i.name : `${i.name}-${i.indexKey}`),
  );
  // Which plain names more than one resource holds.
  const holders = new Map<string, Set<string>>();
  plain.forEach((p, k) => {
    const set = holders.get(p) ?? new Set<string>();
    set.add(resourceOf(instances[k]));
    holders.set(p, set);
  });
  // A resource in a module takes its module path if any of its instances would share a name with another resource.
  const prefixed = new Set<string>();
  plain.forEach((p, k) => {
    if (instances[k].module !== "" && holders.get(p)!.size > 1) prefixed.add(resourceOf(instances[k]));
  });
  const wanted = plain.map((p, k) =>
    prefixed.has(resourceOf(instances[k]))
      ? identifierOf(
          `${modulePrefix(instances[k].module)}-${instances[k].indexKey === undefined ? instances[k].name : `${instances[k].name}-${instances[k].indexKey}`}`,
        )
      : p,
  );
  // What still clashes (two keys alike once made identifiers, two module paths alike) is numbered in order.
  const taken = new Set<string>();
  const logicalTaken = new Set<string>();
  return instances.map((i, k) => {
    let name = wanted[k];
    for (let n = 2; taken.has(name); n++) name = `${wanted[k]}_${n}`;
    taken.add(name);
    const bare = bareAddress(i);
    const logicalName = bare !== undefined && !logicalTaken.has(`${i.type}\u0000${bare}`) ? bare : name;
    logicalTaken.add(`${i.type}\u0000${logicalName}`);
    const renamed = name !== wanted[k] ? "numbered" : wanted[k] !== plain[k] ? "module" : undefined;
    return { name, logicalName, ...(renamed ? { renamed } : {}) };
  });
}
