// The Zod stand-in of sandbox bundles. A plugin built without `runtimeZod: true` gets this
// module wherever it (or a dependency) imports `zod`, `zod/v4`, `zod/mini`, ...: the build
// generates a module mirroring the real entry's export names, each bound to `zodMember(name)`.
// Contract:
//  - Schema DEFINITIONS evaluate: every factory (`z.object`, `z.iso.datetime`, `z.coerce.number`)
//    and every chain (`.min(1).nullable().describe(...)`) returns a recorder; objects keep
//    `.shape` (and extend/merge/pick/omit/keyof), enums `.options`/`.enum`, literals `.value`,
//    arrays `.element`, unions `.options`, wrappers `.unwrap()`, `.description` and `.meta()`.
//    `schema._zod.def.type` is Zod's type name ("object", "string", ...), which defineTool checks.
//  - Schema RUNTIME use throws: parse/safeParse/parseAsync/safeParseAsync/decode/encode (and
//    their safe/async forms, `~standard.validate`, top-level `z.parse`/`z.toJSONSchema`) throw
//    an AirlockError AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE saying how to opt in. The message starts
//    with the code too: the sandbox reports a tool's throw as AIRLOCK_SANDBOX_TOOL_THREW (the
//    thrown code only in details.errorCode), so the error result's text is where callers see it.
//  - `x instanceof z.ZodError` (any stub class) is false; no recorder is a thenable.
// Why this is safe: the host validates every input against the JSON Schema the build generated
// from the REAL Zod schema, and the build refuses schemas whose rules JSON Schema cannot carry.
// Bundle-safe: no node:* imports, no zod import.
import { sdkError } from "../error-codes.ts";

export const ZOD_RUNTIME_UNAVAILABLE = "AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE";

const RUNTIME_METHODS = new Set([
  "parse",
  "safeParse",
  "parseAsync",
  "safeParseAsync",
  "spa",
  "decode",
  "encode",
  "decodeAsync",
  "encodeAsync",
  "safeDecode",
  "safeEncode",
  "safeDecodeAsync",
  "safeEncodeAsync",
]);
const TOP_LEVEL_RUNTIME = new Set([...RUNTIME_METHODS, "toJSONSchema"]);
const OBJECT_FACTORIES = new Set(["object", "strictObject", "looseObject", "interface"]);
const WRAPPERS = new Set(["optional", "nullable", "nullish", "default", "prefault", "catch", "readonly"]);

type Shape = Record<string, unknown>;

/** What a recorder knows about its schema; copied (and amended) along a chain. */
interface Recorded {
  type: string;
  description?: string | undefined;
  meta?: Record<string, unknown> | undefined;
  shape?: Shape;
  options?: unknown[];
  enum?: Record<string, unknown>;
  value?: unknown;
  element?: unknown;
  inner?: unknown;
  coerce?: boolean;
}

function unavailable(what: string): never {
  throw sdkError(
    "AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE",
    `${ZOD_RUNTIME_UNAVAILABLE}: ${what}() is not available inside the sandbox: this plugin was built without Zod's runtime (the host validated the input against the tool's JSON Schema before the call). Validate by hand inside execute(), or set \`runtimeZod: true\` in definePlugin({...}) to bundle real Zod (bigger bundle, slower cold start, more memory per agent).`,
  );
}

const registry = new WeakMap<object, Recorded>();

function recordedOf(value: unknown): Recorded | undefined {
  return typeof value === "object" && value !== null ? registry.get(value) : undefined;
}

function shapeOf(value: unknown): Shape {
  return recordedOf(value)?.shape ?? (typeof value === "object" && value !== null ? (value as Shape) : {});
}

function enumOf(values: unknown[]): Recorded {
  const map: Record<string, unknown> = {};
  for (const v of values) map[String(v)] = v;
  return { type: "enum", options: values, enum: map };
}

function keysOf(mask: unknown): string[] {
  return typeof mask === "object" && mask !== null ? Object.keys(mask) : [];
}

/** The recorder of a schema: a Proxy whose unknown members are chain methods. */
function schema(rec: Recorded): object {
  const def: Record<string, unknown> = { type: rec.type };
  if (rec.shape !== undefined) def.shape = rec.shape;
  if (rec.element !== undefined) def.element = rec.element;
  if (rec.inner !== undefined) def.innerType = rec.inner;
  if (rec.options !== undefined) def.options = rec.options;
  if (rec.coerce === true) def.coerce = true;
  const target: Record<string, unknown> = {
    _zod: { def, stub: true },
    def,
    _def: def,
    type: rec.type,
    description: rec.description,
    "~standard": {
      version: 1,
      vendor: "airlock-zod-stub",
      validate: () => unavailable("~standard.validate"),
    },
  };
  for (const key of ["shape", "options", "enum", "value", "element"] as const) {
    if (rec[key] !== undefined) target[key] = rec[key];
  }
  const proxy: object = new Proxy(target, {
    get(t, prop, receiver) {
      if (typeof prop === "symbol") return Reflect.get(t, prop, receiver);
      if (prop in t) return Reflect.get(t, prop, receiver);
      if (RUNTIME_METHODS.has(prop)) return () => unavailable(prop);
      if (prop === "then") return undefined;
      return (...args: unknown[]) => chain(rec, proxy, prop, args);
    },
  });
  registry.set(proxy, rec);
  return proxy;
}

/** `<schema>.<method>(...args)`: a new recorder, keeping what the method does not change. */
function chain(rec: Recorded, self: object, method: string, args: unknown[]): unknown {
  const [a0] = args;
  switch (method) {
    case "describe":
      return schema({ ...rec, description: typeof a0 === "string" ? a0 : undefined });
    case "meta": {
      if (args.length === 0) return rec.meta;
      const meta = { ...rec.meta, ...(a0 as Record<string, unknown>) };
      const description = typeof meta.description === "string" ? meta.description : rec.description;
      return schema({ ...rec, meta, description });
    }
    case "unwrap":
    case "removeDefault":
      return rec.inner ?? rec.element ?? self;
    case "isOptional":
      return rec.type === "optional" || rec.type === "nullish";
    case "isNullable":
      return rec.type === "nullable" || rec.type === "nullish";
    case "extend":
    case "safeExtend":
      return schema({ ...rec, shape: { ...rec.shape, ...shapeOf(a0) } });
    case "merge":
      return schema({ ...rec, shape: { ...rec.shape, ...shapeOf(a0) } });
    case "pick":
    case "omit": {
      const keys = new Set(keysOf(a0));
      const entries = Object.entries(rec.shape ?? {}).filter(([k]) => keys.has(k) === (method === "pick"));
      return schema({ ...rec, shape: Object.fromEntries(entries) });
    }
    case "keyof":
      return schema(enumOf(Object.keys(rec.shape ?? {})));
    case "extract":
    case "exclude": {
      const keys = new Set(Array.isArray(a0) ? a0 : []);
      return schema(enumOf((rec.options ?? []).filter((v) => keys.has(v) === (method === "extract"))));
    }
    case "array":
      return schema({ type: "array", element: self });
    case "or":
      return schema({ type: "union", options: [self, a0] });
    case "and":
      return schema({ type: "intersection" });
  }
  if (WRAPPERS.has(method)) return schema({ type: method, inner: self, description: rec.description });
  return schema({ ...rec });
}

/** `z.<name>(...args)`: the recorder a factory returns. */
function create(path: string[], args: unknown[]): object {
  const name = path[path.length - 1] ?? "unknown";
  const [a0, a1] = args;
  const coerce = path.includes("coerce");
  if (OBJECT_FACTORIES.has(name)) return schema({ type: "object", shape: shapeOf(a0) });
  if (name === "enum" || name === "nativeEnum") {
    const values = Array.isArray(a0) ? a0 : Object.values((a0 ?? {}) as Record<string, unknown>);
    const rec = enumOf(values);
    if (!Array.isArray(a0) && typeof a0 === "object" && a0 !== null) rec.enum = { ...a0 };
    return schema(rec);
  }
  if (name === "literal") {
    const values = Array.isArray(a0) ? a0 : [a0];
    return schema({ type: "literal", value: values[0], options: values });
  }
  if (name === "array") return schema({ type: "array", element: a0 });
  if (name === "union" || name === "xor")
    return schema({ type: "union", options: Array.isArray(a0) ? a0 : [] });
  if (name === "discriminatedUnion") return schema({ type: "union", options: Array.isArray(a1) ? a1 : [] });
  if (WRAPPERS.has(name)) return schema({ type: name, inner: a0 });
  if (name === "int" || name.startsWith("int") || name.startsWith("float"))
    return schema({ type: "number", coerce });
  return schema({ type: name, coerce });
}

function member(path: string[]): unknown {
  const name = path[path.length - 1] ?? "";
  if (path.length === 1 && TOP_LEVEL_RUNTIME.has(name)) return (..._args: unknown[]) => unavailable(name);
  const target = function zodStub() {
    return undefined; // never called: the Proxy's apply/construct traps answer
  };
  return new Proxy(target, {
    get(t, prop) {
      if (prop === Symbol.hasInstance) return () => false;
      if (typeof prop === "symbol" || prop === "prototype") return Reflect.get(t, prop);
      if (prop === "then") return undefined;
      if (prop === "name") return name;
      return member([...path, prop]);
    },
    apply: (_t, _this, args: unknown[]) => create(path, args),
    construct: (_t, args: unknown[]) => create(path, args),
  });
}

/** The namespace object (`z`, `import * as z`, the default export). */
export const zodNamespace: Record<string, unknown> = new Proxy(
  {},
  {
    get(_t, prop) {
      if (prop === Symbol.toStringTag) return "Module";
      if (typeof prop === "symbol" || prop === "then") return undefined;
      return member([prop]);
    },
  },
);

/** One named export of the stand-in module (`import { object } from "zod"`). */
export function zodMember(name: string): unknown {
  if (name === "z" || name === "default" || name === "core" || name === "mini") return zodNamespace;
  return member([name]);
}

/** True for a recorder built by this module (so tests and the runtime can tell it from real Zod). */
export function isSchemaStub(value: unknown): boolean {
  return recordedOf(value) !== undefined;
}
