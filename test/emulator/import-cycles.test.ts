/**
 * No import circle among the emulator's modules: each file of emulator/ is read with TypeScript's own import
 * scanner (ts.preProcessFile: `import`, `import type`, `export … from` and `require`), its relative imports
 * resolved to files of emulator/, and the graph's strongly connected components found (Tarjan); any component of
 * more than one file, or a file importing itself, is named with one circle through it. Type-only imports count: a
 * type circle still ties two modules into one (the HTTP toolkit once typed its routes with auth.ts's RouteAccess,
 * which imported the toolkit back).
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

const EMULATOR = path.resolve(__dirname, "..", "..", "emulator");

/** Every .ts file under `dir`, absolute. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => path.join(dir, f))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && statSync(f).isFile())
    .sort();
}

/** The file a relative specifier of `from` names (`./x` as x.ts or x/index.ts), if it is one of `known`. */
function resolve(from: string, specifier: string, known: Set<string>): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = path.resolve(path.dirname(from), specifier.replace(/\.js$/, ""));
  for (const candidate of [base, `${base}.ts`, path.join(base, "index.ts")])
    if (known.has(candidate) && existsSync(candidate)) return candidate;
  return undefined;
}

/** Each file's imports of other files in the set. */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = info.importedFiles
      .map((f) => resolve(file, f.fileName, known))
      .filter((f): f is string => f !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The circles of a graph: one path per strongly connected component that loops, `a → b → a`. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v))
      out.push(loopThrough(v, new Set(component), graph));
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return out;
}

/** A shortest path from `start` back to itself inside `component` (breadth first). */
function loopThrough(start: string, component: Set<string>, graph: Map<string, string[]>): string[] {
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const loop = [v];
        for (let u = v; u !== start;) loop.unshift((u = from.get(u)!));
        return [...loop, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

test("rule: no module of emulator/ imports itself back, through any chain", () => {
  const named = circles(importGraph(sources(EMULATOR))).map((loop) =>
    loop.map((f) => path.relative(EMULATOR, f)).join(" → "),
  );
  expect(named).toEqual([]);
});

test("the walk finds a circle, types included, and names it", () => {
  const graph = new Map([
    ["auth.ts", ["http/index.ts"]],
    ["http/index.ts", ["http/router.ts"]],
    ["http/router.ts", ["auth.ts"]],
    ["index.ts", ["lifecycle.ts", "auth.ts"]],
    ["lifecycle.ts", ["index.ts"]],
    ["state.ts", []],
  ]);
  expect(
    circles(graph)
      .map((c) => c.join(" → "))
      .sort(),
  ).toEqual(["auth.ts → http/index.ts → http/router.ts → auth.ts", "index.ts → lifecycle.ts → index.ts"]);
});

test("the scanner reads `import type` and re-exports as imports", () => {
  const info = ts.preProcessFile(
    'import type { A } from "./a";\nexport { B } from "./b";\nexport type { C } from "./c";\n',
    true,
    true,
  );
  expect(info.importedFiles.map((f) => f.fileName)).toEqual(["./a", "./b", "./c"]);
});
