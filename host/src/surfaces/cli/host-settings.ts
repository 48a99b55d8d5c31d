// The settings of `airlock start` / `airlock serve`: every createHost option an operator may need
// (egress allowances for a local model or API, limits, tasks, the code cache, the public URL, …)
// and the server's own (port, log format, …), each settable three ways, highest first:
//   a flag (`--allow-private 127.0.0.1`), an environment variable (`AIRLOCK_EGRESS_ALLOW_PRIVATE`,
//   named from the key: AIRLOCK_ + the key in upper snake case), or a key of a JSON config file
//   (`{"egress": {"allowPrivate": ["127.0.0.1"]}}`): `--config FILE`, else $AIRLOCK_CONFIG, else
//   `airlock.config.json` beside the data dir when there is one.
// Invariants: every value is validated before anything starts; a bad one stops startup with
// AIRLOCK_CLI_CONFIG_INVALID naming where it came from and the field (`--limit-cpu-ms`,
// `AIRLOCK_LIMITS_CPU_MS`, `<file>: limits.cpuMs`); an unknown key of the file is refused, not
// ignored; the table below is the one list (help, docs/api.md "Settings" and the parser read it).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { ParseArgsOptionsConfig } from "node:util";
import { hasCode } from "@airlock/sdk/errors";
import type { HostOptions } from "../../config.ts";
import type { Parsed } from "./args.ts";
import { cliError } from "./errors.ts";
import type { CliIO } from "./types.ts";

export const CONFIG_FILE = "airlock.config.json";

/** What the server (not the host) is told: where to listen, what to print. */
export interface ServerSettings {
  port?: number;
  host?: string;
  allowedHosts?: string[];
  logFormat?: "text" | "json";
  verbose?: boolean;
  drainMs?: number;
}

type Kind =
  | "port"
  | "positive"
  | "count"
  | "bool"
  | "list"
  | "url"
  | "string"
  | "log-format"
  | "sandbox"
  | "on-off"
  | "host-patterns"
  | "tool-ms";

interface Setting {
  /** The config file key (dotted for nested objects). */
  key: string;
  /** The flag without `--`; none: file and environment only. */
  flag?: string;
  kind: Kind;
  help: string;
  apply(target: { host: HostOptions; server: ServerSettings }, value: unknown): void;
}

const limit =
  (name: keyof NonNullable<HostOptions["limits"]>) =>
  (t: { host: HostOptions }, v: unknown): void => {
    t.host.limits = { ...t.host.limits, [name]: v as number };
  };
const task =
  (name: keyof NonNullable<HostOptions["tasks"]>) =>
  (t: { host: HostOptions }, v: unknown): void => {
    t.host.tasks = { ...t.host.tasks, [name]: v };
  };
const replica =
  (name: keyof NonNullable<HostOptions["replica"]>) =>
  (t: { host: HostOptions }, v: unknown): void => {
    t.host.replica = { ...t.host.replica, [name]: v };
  };

export const SETTINGS: readonly Setting[] = [
  {
    key: "port",
    flag: "port",
    kind: "port",
    help: "Port to listen on (0 = any free port). Default: 4480",
    apply: (t, v) => {
      t.server.port = v as number;
    },
  },
  {
    key: "host",
    flag: "host",
    kind: "string",
    help: "Address to listen on. Default: 127.0.0.1",
    apply: (t, v) => {
      t.server.host = v as string;
    },
  },
  {
    key: "allowedHosts",
    flag: "allowed-host",
    kind: "list",
    help: "Also accept this host:port in Host/Origin (a proxy); repeatable.",
    apply: (t, v) => {
      t.server.allowedHosts = v as string[];
    },
  },
  {
    key: "publicUrl",
    flag: "public-url",
    kind: "url",
    help: "Where people's browsers reach this host (OAuth links, issuer, MCP resource URLs).",
    apply: (t, v) => {
      t.host.publicUrl = v as string;
    },
  },
  {
    key: "autoApprove",
    flag: "auto-approve",
    kind: "bool",
    help: "Run tools that are not read-only without an approval (development only).",
    apply: (t, v) => {
      t.host.autoApprove = v as boolean;
    },
  },
  {
    key: "logFormat",
    flag: "log-format",
    kind: "log-format",
    help: "text or json: each failed request, one line on stderr. Default: text",
    apply: (t, v) => {
      t.server.logFormat = v as "text" | "json";
    },
  },
  {
    key: "verbose",
    flag: "verbose",
    kind: "bool",
    help: "Also print the stack of an unexpected failure.",
    apply: (t, v) => {
      t.server.verbose = v as boolean;
    },
  },
  {
    key: "drainMs",
    flag: "drain-ms",
    kind: "positive",
    help: "On SIGTERM, how long calls in flight may finish (ms); those still running then end with AIRLOCK_HOST_CLOSED. Default: 10000",
    apply: (t, v) => {
      t.server.drainMs = v as number;
    },
  },
  {
    key: "sandbox",
    flag: "sandbox",
    kind: "sandbox",
    help: "workers (isolates in worker processes) or in-process. Default: workers",
    apply: (t, v) => {
      t.host.sandbox = { ...t.host.sandbox, mode: v as "workers" | "in-process" };
    },
  },
  {
    key: "registryUrl",
    flag: "registry",
    kind: "url",
    help: "Plugin registry for `name@range` installs (start: a local one).",
    apply: (t, v) => {
      t.host.registryUrl = v as string;
    },
  },
  {
    key: "workers",
    flag: "workers",
    kind: "positive",
    help: "Sandbox worker processes (workers mode). Default: the sandbox's",
    apply: (t, v) => {
      t.host.sandbox = { mode: t.host.sandbox?.mode ?? "workers", ...t.host.sandbox, workers: v as number };
    },
  },
  {
    key: "egress.allowPrivate",
    flag: "allow-private",
    kind: "list",
    help: "Let ctx.fetch reach this loopback/private address, CIDR or host name (a local model or API); repeatable.",
    apply: (t, v) => {
      t.host.egress = { ...t.host.egress, allowPrivate: v as string[] };
    },
  },
  {
    key: "egress.hosts",
    kind: "host-patterns",
    help: 'Per namespace, the hosts it may reach beyond nothing: {"ns": ["api.example.com", "*.example.com"]}.',
    apply: (t, v) => {
      t.host.egress = { ...t.host.egress, hosts: v as Record<string, string[]> };
    },
  },
  {
    key: "limits.cpuMs",
    flag: "limit-cpu-ms",
    kind: "positive",
    help: "Ceiling on a call's CPU time (ms).",
    apply: limit("cpuMs"),
  },
  {
    key: "limits.wallMs",
    flag: "limit-wall-ms",
    kind: "positive",
    help: "Ceiling on a call's wall-clock time (ms).",
    apply: limit("wallMs"),
  },
  {
    key: "limits.memoryMb",
    flag: "limit-memory-mb",
    kind: "positive",
    help: "Ceiling on a plugin isolate's heap (MB).",
    apply: limit("memoryMb"),
  },
  {
    key: "limits.maxInputBytes",
    flag: "limit-max-input-bytes",
    kind: "positive",
    help: "Ceiling on a call's input (bytes).",
    apply: limit("maxInputBytes"),
  },
  {
    key: "limits.maxResultBytes",
    flag: "limit-max-result-bytes",
    kind: "positive",
    help: "Ceiling on a call's result (bytes).",
    apply: limit("maxResultBytes"),
  },
  {
    key: "limits.concurrency",
    flag: "limit-concurrency",
    kind: "positive",
    help: "Ceiling on concurrent calls into one plugin.",
    apply: limit("concurrency"),
  },
  {
    key: "limits.capabilityCalls",
    flag: "limit-capability-calls",
    kind: "positive",
    help: "Ceiling on capability calls in one tool call.",
    apply: limit("capabilityCalls"),
  },
  {
    key: "tasks.ttlMs",
    flag: "task-ttl-ms",
    kind: "positive",
    help: "How long a task and its result are kept (ms). Default: 1 h",
    apply: task("ttlMs"),
  },
  {
    key: "tasks.wallMs",
    flag: "task-wall-ms",
    kind: "positive",
    help: "Wall-clock ceiling of a task call (ms). Default: 10 min",
    apply: task("wallMs"),
  },
  {
    key: "tasks.toolWallMs",
    kind: "tool-ms",
    help: 'Per-tool task ceilings: {"ns:tool": ms}.',
    apply: task("toolWallMs"),
  },
  {
    key: "tasks.pollIntervalMs",
    flag: "task-poll-interval-ms",
    kind: "positive",
    help: "Polling interval suggested to clients (ms). Default: 500",
    apply: task("pollIntervalMs"),
  },
  {
    key: "tasks.concurrency",
    flag: "task-concurrency",
    kind: "count",
    help: "Task calls this replica runs at once (0: none). Default: 4",
    apply: task("concurrency"),
  },
  {
    key: "tasks.resumeLimit",
    flag: "task-resume-limit",
    kind: "count",
    help: "Times a read-only tool's task is resumed after its replica died (0: never). Default: 2",
    apply: task("resumeLimit"),
  },
  {
    key: "remote.sessionIdleMs",
    flag: "remote-session-idle-ms",
    kind: "count",
    help: "How long an idle session to a remote MCP server is kept (ms). Default: 60000",
    apply: (t, v) => {
      t.host.remote = { sessionIdleMs: v as number };
    },
  },
  {
    key: "replica.id",
    kind: "string",
    help: "This replica's id (several replicas on one PostgreSQL).",
    apply: replica("id"),
  },
  {
    key: "replica.heartbeatMs",
    kind: "positive",
    help: "Replica heartbeat interval (ms). Default: 1000",
    apply: replica("heartbeatMs"),
  },
  {
    key: "replica.staleMs",
    kind: "positive",
    help: "After how long a silent replica counts as dead (ms). Default: 5000",
    apply: replica("staleMs"),
  },
  {
    key: "trust.allowUnsigned",
    flag: "allow-unsigned-from",
    kind: "list",
    help: "A source whose unsigned packages are accepted (a registry URL, file, file:<path>); repeatable.",
    apply: (t, v) => {
      t.host.trust = { ...t.host.trust, allowUnsigned: v as string[] };
    },
  },
  {
    key: "codeCache",
    flag: "code-cache",
    kind: "on-off",
    help: "V8 code caches of plugins on disk (<data-dir>/code-cache): on or off. Default: on",
    apply: (t, v) => {
      t.host.codeCache = v as boolean;
    },
  },
];

/** The environment variable of a key: `limits.cpuMs` → AIRLOCK_LIMITS_CPU_MS. */
export function envName(key: string): string {
  return `AIRLOCK_${key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/\./g, "_")
    .toUpperCase()}`;
}

/** The flags of the settings, for parseOptions. */
export const SETTING_FLAGS: ParseArgsOptionsConfig = Object.fromEntries([
  ["config", { type: "string" }],
  ...SETTINGS.filter((s) => s.flag !== undefined).map((s) => [
    s.flag as string,
    s.kind === "list"
      ? { type: "string", multiple: true }
      : { type: s.kind === "bool" ? "boolean" : "string" },
  ]),
]);

const METAVAR: Partial<Record<Kind, string>> = {
  port: "N",
  positive: "N",
  count: "N",
  url: "URL",
  list: "V",
  string: "V",
  "on-off": "on|off",
  "log-format": "text|json",
  sandbox: "MODE",
};

/** The help lines of the settings: flag (or file key), key and variable, then what it does. */
export function settingsHelp(): string {
  const lines = [
    "  --config FILE      A JSON file of the settings below (keys as shown). Default:",
    `                     $AIRLOCK_CONFIG, else ${CONFIG_FILE} beside the data dir.`,
  ];
  for (const s of SETTINGS) {
    const metavar = METAVAR[s.kind];
    const first =
      s.flag === undefined
        ? `  ${s.key} (file or $${envName(s.key)} only, as JSON)`
        : `  --${s.flag}${metavar === undefined ? "" : ` ${metavar}`}  (${s.key}, $${envName(s.key)})`;
    lines.push(first, `${" ".repeat(21)}${s.help}`);
  }
  return lines.join("\n");
}

function invalid(where: string, problem: string, raw: unknown): never {
  throw cliError(
    "AIRLOCK_CLI_CONFIG_INVALID",
    `${where}: ${problem} (got ${JSON.stringify(raw)?.slice(0, 80)})`,
  );
}

function integer(where: string, raw: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    invalid(
      where,
      `must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? " up" : ` to ${max}`}`,
      raw,
    );
  return value;
}

function stringList(where: string, raw: unknown, fromText: boolean): string[] {
  const list = fromText && typeof raw === "string" ? raw.split(",").map((s) => s.trim()) : raw;
  if (!Array.isArray(list) || list.some((s) => typeof s !== "string" || s === ""))
    invalid(
      where,
      fromText ? "must be a comma-separated list of values" : "must be an array of non-empty strings",
      raw,
    );
  return list as string[];
}

function parseJson(where: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    return invalid(where, `must be JSON (${error instanceof Error ? error.message : String(error)})`, text);
  }
}

/** Turns a raw value (a flag's text, an env var's text, or a JSON value) into the setting's value. */
function coerce(setting: Setting, where: string, raw: unknown, fromText: boolean): unknown {
  switch (setting.kind) {
    case "port":
      return integer(where, raw, 0, 65535);
    case "positive":
      return integer(where, raw, 1);
    case "count":
      return integer(where, raw, 0);
    case "bool":
      if (typeof raw === "boolean") return raw;
      if (fromText && /^(1|true|yes|on)$/i.test(String(raw))) return true;
      if (fromText && /^(0|false|no|off)$/i.test(String(raw))) return false;
      return invalid(where, "must be true or false", raw);
    case "on-off":
      if (typeof raw === "boolean") return raw;
      if (raw === "on" || raw === "off") return raw === "on";
      return invalid(where, "must be on or off", raw);
    case "sandbox":
      if (raw === "workers" || raw === "in-process") return raw;
      return invalid(where, "must be workers or in-process", raw);
    case "log-format":
      if (raw === "text" || raw === "json") return raw;
      return invalid(where, "must be text or json", raw);
    case "list":
      return stringList(where, raw, fromText);
    case "url": {
      if (typeof raw !== "string" || !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(raw))
        invalid(where, "must be an http(s) URL", raw);
      return (raw as string).replace(/\/+$/, "");
    }
    case "string":
      if (typeof raw !== "string" || raw.trim() === "") invalid(where, "must be a non-empty string", raw);
      return raw;
    case "host-patterns":
    case "tool-ms": {
      if (fromText && typeof raw === "string") raw = parseJson(where, raw);
      if (typeof raw !== "object" || raw === null || Array.isArray(raw))
        invalid(where, "must be an object", raw);
      return Object.fromEntries(
        Object.entries(raw as Record<string, unknown>).map(([name, value]) => [
          name,
          setting.kind === "tool-ms"
            ? integer(`${where}.${name}`, value, 1)
            : stringList(`${where}.${name}`, value, false),
        ]),
      );
    }
  }
}

/** The file's settings as `key → value`, refusing keys no setting has. */
function flatten(file: string, json: unknown): Map<string, unknown> {
  if (typeof json !== "object" || json === null || Array.isArray(json))
    invalid(file, "must hold one JSON object of settings", typeof json);
  const known = new Set(SETTINGS.map((s) => s.key));
  const groups = new Set([...known].filter((k) => k.includes(".")).map((k) => k.split(".")[0] as string));
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(json as Record<string, unknown>)) {
    if (groups.has(key) && typeof value === "object" && value !== null && !Array.isArray(value)) {
      for (const [inner, v] of Object.entries(value)) {
        if (!known.has(`${key}.${inner}`)) unknownKey(file, `${key}.${inner}`, known);
        out.set(`${key}.${inner}`, v);
      }
    } else if (known.has(key)) out.set(key, value);
    else unknownKey(file, key, known);
  }
  return out;
}

function unknownKey(file: string, key: string, known: Set<string>): never {
  throw cliError(
    "AIRLOCK_CLI_CONFIG_INVALID",
    `${file}: ${key}: no such setting (settings: ${[...known].join(", ")}; \`airlock start --help\`)`,
  );
}

/** The config file named by --config / $AIRLOCK_CONFIG, else the one beside the data dir if present. */
function readConfigFile(
  parsed: Parsed,
  io: CliIO,
  dataDir: string,
): { path: string; values: Map<string, unknown> } | null {
  const named = (parsed.values.config as string | undefined) ?? io.env.AIRLOCK_CONFIG;
  const path =
    named === undefined || named === "" ? join(dirname(dataDir), CONFIG_FILE) : resolve(io.cwd, named);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (named === undefined && hasCode(error, "ENOENT")) return null;
    throw cliError(
      "AIRLOCK_CLI_CONFIG_INVALID",
      `${path}: cannot be read (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw cliError(
      "AIRLOCK_CLI_CONFIG_INVALID",
      `${path}: not JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  return { path, values: flatten(path, json) };
}

/**
 * Applies every setting given by flag, environment or config file (in that order of precedence)
 * to `host` (from hostOptionsFrom: data dir, store, sandbox mode, registry) and returns the
 * server's settings. Returns the config file used, if any.
 */
export function applySettings(
  parsed: Parsed,
  io: CliIO,
  host: HostOptions,
): { server: ServerSettings; file: string | null } {
  const file = readConfigFile(parsed, io, host.dataDir as string);
  const target = { host, server: {} as ServerSettings };
  for (const setting of SETTINGS) {
    const flag = setting.flag === undefined ? undefined : parsed.values[setting.flag];
    const env = io.env[envName(setting.key)];
    if (flag !== undefined && !(Array.isArray(flag) && flag.length === 0)) {
      setting.apply(target, coerce(setting, `--${setting.flag}`, flag, true));
    } else if (env !== undefined && env !== "") {
      setting.apply(target, coerce(setting, envName(setting.key), env, true));
    } else if (file?.values.has(setting.key)) {
      setting.apply(
        target,
        coerce(setting, `${file.path}: ${setting.key}`, file.values.get(setting.key), false),
      );
    }
  }
  return { server: target.server, file: file?.path ?? null };
}
