/**
 * Reads, from the TypeScript sources, what the package schema describes that zod cannot hold: each kind's
 * description (its Resource class's comment), each input's description (its Args interface, nested types
 * included), each declared output's description and type (the class's `declare readonly` fields), and the lookup
 * functions' and the configuration's descriptions. Run at build time (scripts/build-native.mts) and by the schema
 * tests; the plugin itself reads the schema the build wrote, so TypeScript is never needed at run time.
 */
import * as path from "node:path";
import * as ts from "typescript";
import type { KindDocs, OutputType, SourceDocs } from "./schema";

/** The text of a symbol's comment, whitespace folded. */
function docOf(checker: ts.TypeChecker, symbol: ts.Symbol | undefined): string | undefined {
  if (!symbol) return undefined;
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).replace(/\s+/g, " ").trim();
  return text || undefined;
}

/** `T` out of `pulumi.Input<T>`, `pulumi.Output<T>`, `Promise<T>` and `T | undefined | null`. */
function plainTypes(checker: ts.TypeChecker, type: ts.Type): ts.Type[] {
  const parts = type.isUnion() ? type.types : [type];
  const out: ts.Type[] = [];
  for (const t of parts) {
    if (t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)) continue;
    if (t.isIntersection()) {
      // `pulumi.Output<T>` is `OutputInstance<T> & Lifted<T>`: T is the OutputInstance's.
      const instance = t.types.find((m) => m.getSymbol()?.getName() === "OutputInstance");
      if (instance) {
        out.push(...plainTypes(checker, instance));
        continue;
      }
    }
    const name = t.getSymbol()?.getName() ?? t.aliasSymbol?.getName();
    if (name === "Promise" || name === "OutputInstance" || name === "Output" || name === "Input") {
      const args = checker.getTypeArguments(t as ts.TypeReference);
      if (args.length > 0) out.push(...plainTypes(checker, args[0]));
      continue;
    }
    out.push(t);
  }
  // `pulumi.Output<T>` of a union distributes into a union of intersections, each giving the same parts.
  return [...new Set(out)];
}

/** The type an object-typed value's properties come from: the first part that has properties. */
function objectPart(checker: ts.TypeChecker, type: ts.Type): ts.Type | undefined {
  return plainTypes(checker, type).find(
    (t) => !checker.isArrayType(t) && t.getProperties().length > 0 && !(t.flags & ts.TypeFlags.StringLike),
  );
}

/** Every property's description under `type`, by dotted path (list items and map values share their parent's). */
function collect(
  checker: ts.TypeChecker,
  type: ts.Type,
  prefix: string,
  out: Record<string, string>,
  depth = 0,
): void {
  if (depth > 8) return;
  const object = objectPart(checker, type);
  if (object) {
    for (const prop of object.getProperties()) {
      const at = prefix ? `${prefix}.${prop.getName()}` : prop.getName();
      const doc = docOf(checker, prop);
      if (doc) out[at] = doc;
      const decl = prop.valueDeclaration ?? prop.declarations?.[0];
      if (decl) collect(checker, checker.getTypeOfSymbolAtLocation(prop, decl), at, out, depth + 1);
    }
  }
  for (const t of plainTypes(checker, type)) {
    const inner = checker.isArrayType(t)
      ? checker.getTypeArguments(t as ts.TypeReference)[0]
      : checker.getIndexTypeOfType(t, ts.IndexKind.String);
    if (inner) collect(checker, inner, `${prefix}[]`, out, depth + 1);
  }
}

const PRIMITIVE_FLAGS = {
  string: ts.TypeFlags.StringLike,
  number: ts.TypeFlags.NumberLike,
  boolean: ts.TypeFlags.BooleanLike,
} as const;

/** A declared output's type, as the schema can say it. */
function outputType(checker: ts.TypeChecker, type: ts.Type, depth = 0): OutputType {
  const parts = plainTypes(checker, type);
  if (depth > 4 || parts.length === 0) return { type: "any" };
  if (parts.every((t) => t.flags & ts.TypeFlags.StringLiteral))
    return { type: "enum", values: parts.map((t) => (t as ts.StringLiteralType).value) };
  if (parts.every((t) => t.flags & ts.TypeFlags.StringLike)) return { type: "string" };
  if (parts.every((t) => t.flags & ts.TypeFlags.NumberLike)) return { type: "number" };
  if (parts.every((t) => t.flags & ts.TypeFlags.BooleanLike)) return { type: "boolean" };
  // A value of several primitive types (a dashboard's version: a number, or a string of digits above 2^53).
  const primitives = (["string", "number", "boolean"] as const).filter((p) =>
    parts.some((t) => t.flags & PRIMITIVE_FLAGS[p]),
  );
  if (
    primitives.length > 1 &&
    parts.every((t) => t.flags & (PRIMITIVE_FLAGS.string | PRIMITIVE_FLAGS.number | PRIMITIVE_FLAGS.boolean))
  )
    return { type: "oneOf", of: primitives };
  if (parts.length === 1 && checker.isArrayType(parts[0]))
    return {
      type: "array",
      items: outputType(checker, checker.getTypeArguments(parts[0] as ts.TypeReference)[0], depth + 1),
    };
  const index = parts.length === 1 ? checker.getIndexTypeOfType(parts[0], ts.IndexKind.String) : undefined;
  if (index && parts[0].getProperties().length === 0)
    return { type: "map", values: outputType(checker, index, depth + 1) };
  return { type: "any" };
}

/** The components served beside the kinds, each a class and its Args in the module named here. */
export const COMPONENT_SOURCES: Readonly<Record<string, string>> = { Slo: "provider/slo/component.ts" };

/** Reads the sources under `root` (the repository): every kind of `kinds`, the components, the lookups and the configuration. */
export function sourceDocs(root: string, kinds: readonly string[]): SourceDocs {
  const resources = path.join(root, "provider", "resources", "index.ts");
  const lookups = path.join(root, "provider", "lookups.ts");
  const config = path.join(root, "provider", "config.ts");
  const components = Object.values(COMPONENT_SOURCES).map((file) => path.join(root, file));
  const program = ts.createProgram([resources, lookups, config, ...components], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const moduleOf = (file: string) => {
    const source = program.getSourceFile(file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`cannot read ${file}`);
    return new Map(checker.getExportsOfModule(symbol).map((s) => [s.getName(), s] as const));
  };
  const out: SourceDocs = { kinds: {}, functions: {}, config: {} };
  /** A resource class's description, its Args' input descriptions and its declared outputs. */
  const classDocs = (exports: Map<string, ts.Symbol>, name: string, where: string): KindDocs => {
    const cls = exports.get(name);
    const args = exports.get(`${name}Args`);
    if (!cls || !args) throw new Error(`${where} exports no class ${name} or interface ${name}Args`);
    const resolved = (s: ts.Symbol) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
    const clsSymbol = resolved(cls);
    const docs: KindDocs = { description: docOf(checker, clsSymbol), inputs: {}, outputs: {} };
    collect(checker, checker.getDeclaredTypeOfSymbol(resolved(args)), "", docs.inputs);
    for (const member of clsSymbol.members?.values() ?? []) {
      const decl = member.valueDeclaration;
      if (!decl || !ts.isPropertyDeclaration(decl)) continue;
      if (!decl.modifiers?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword)) continue;
      docs.outputs[member.getName()] = {
        description: docOf(checker, member),
        type: outputType(checker, checker.getTypeOfSymbolAtLocation(member, decl)),
      };
    }
    return docs;
  };
  const kindExports = moduleOf(resources);
  for (const kind of kinds) out.kinds[kind] = classDocs(kindExports, kind, "provider/resources");
  for (const [name, file] of Object.entries(COMPONENT_SOURCES))
    out.kinds[name] = classDocs(moduleOf(path.join(root, file)), name, file);
  for (const [name, symbol] of moduleOf(lookups)) {
    if (/^get[A-Z]/.test(name) && !name.endsWith("Output")) {
      const doc = docOf(checker, symbol);
      if (doc) out.functions[name] = doc.replace(/\{@link (\w+)\}/g, "`$1`");
    }
  }
  const settings = moduleOf(config).get("ProviderSettings");
  if (settings) {
    for (const prop of checker.getDeclaredTypeOfSymbol(settings).getProperties()) {
      const doc = docOf(checker, prop);
      if (doc) out.config[prop.getName()] = doc;
    }
  }
  return out;
}
