// The pieces of the scale-out suite: replica processes of `airlock serve --store postgres://…`
// (startable again on the same port and data directory, killable with any signal), a real nginx
// from Debian's packages with its own prefix and config on loopback, a crafted plugin with a
// CPU-bound tool, and a bounded closed-loop load generator.
// Contract: nothing here leaves a process behind once `stop()` has resolved; nginx runs with
// `daemon off` as our child, never as the system service.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { MANIFEST_VERSION, PLUGIN_GLOBAL, SDK_VERSION } from "@airlock/sdk/manifest";
import { sha512Integrity, writePluginTarball } from "@airlock/sdk/package";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { createHost } from "../../host/src/host.ts";
import { PG_URL } from "../support/postgres.ts";
import { BIN, ROOT } from "./cli-support.ts";

export const NGINX = ["/usr/sbin/nginx", "/usr/local/sbin/nginx"].find(
  (p) => spawnSync(p, ["-v"], { stdio: "ignore" }).status === 0,
);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The short-lived host a replica test sets its shared store up with (agents, tokens, plugins)
 * through the library API before the `airlock serve` replicas start: same schema, same master key.
 */
export function openSetupHost(root: string, schema: string, masterKey: string): Promise<AirlockHost> {
  return createHost({
    dataDir: join(root, "setup"),
    store: { kind: "postgres", url: PG_URL, schema },
    sandbox: { mode: "in-process" },
    masterKey,
    onInternalError: () => undefined,
  });
}

export interface Replica {
  readonly id: string;
  readonly port: number;
  readonly url: string;
  start(): Promise<void>;
  /** SIGTERM (graceful drain) or SIGKILL; resolves once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  log(): string;
  /** How the last process ended (null while it runs or before it started). */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | null;
}

export function replica(options: {
  id: string;
  port: number;
  dataDir: string;
  store: string;
  allowedHost: string;
  env: Record<string, string>;
}): Replica {
  let proc: ChildProcess | undefined;
  let output = "";
  let exited: Promise<void> = Promise.resolve();
  let ended: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const url = `http://127.0.0.1:${options.port}`;
  return {
    id: options.id,
    port: options.port,
    url,
    log: () => output,
    exit: () => ended,
    start() {
      ended = null;
      const child = spawn(
        process.execPath,
        [
          "--no-node-snapshot",
          BIN.airlock,
          "serve",
          "--store",
          options.store,
          "--data-dir",
          options.dataDir,
          "--port",
          String(options.port),
          "--sandbox",
          "in-process",
          "--allowed-host",
          options.allowedHost,
        ],
        {
          cwd: ROOT,
          env: { ...process.env, NO_COLOR: "1", AIRLOCK_REPLICA_ID: options.id, ...options.env },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      proc = child;
      exited = new Promise((done) =>
        child.once("close", (code, signal) => {
          ended = { code, signal };
          done();
        }),
      );
      return new Promise((ok, fail) => {
        const onClose = (status: number | null) =>
          fail(new Error(`replica ${options.id} exited ${status} before it was ready\n${output}`));
        child.once("close", onClose);
        const onData = (c: Buffer) => {
          output += c.toString("utf8");
          if (/Press Ctrl\+C to stop/.test(output)) {
            child.off("close", onClose);
            ok();
          }
        };
        child.stdout?.on("data", onData);
        child.stderr?.on("data", (c: Buffer) => {
          output += c.toString("utf8");
        });
      });
    },
    async stop(signal = "SIGTERM") {
      if (proc !== undefined && proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
}

export interface Nginx {
  readonly url: string;
  stop(): Promise<void>;
}

/** The configuration docs/deploy.md shows, on loopback, with its own prefix. */
export function nginxConfig(dir: string, port: number, upstreams: readonly number[]): string {
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  upstream airlock {
${upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join("\n")}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 64m;
    location / {
      proxy_pass http://airlock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout;
      proxy_intercept_errors off;
      error_page 502 504 = @replica_lost;
    }
    location @replica_lost {
      default_type application/json;
      return 502 '{"error":{"code":"AIRLOCK_API_REPLICA_LOST","message":"the replica serving this request stopped before answering; the call may or may not have run: look it up in the audit before retrying"}}';
    }
  }
}
`;
}

export async function startNginx(dir: string, port: number, upstreams: readonly number[]): Promise<Nginx> {
  if (NGINX === undefined) throw new Error("nginx is not installed");
  mkdirSync(join(dir, "tmp"), { recursive: true });
  chmodSync(join(dir, "tmp"), 0o777);
  writeFileSync(join(dir, "nginx.conf"), nginxConfig(dir, port, upstreams));
  const child = spawn(NGINX, ["-p", dir, "-c", join(dir, "nginx.conf")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr?.on("data", (c: Buffer) => {
    output += c.toString("utf8");
  });
  const exited = new Promise<void>((done) => child.once("close", () => done()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${output}`);
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (i > 200) throw new Error(`nginx did not answer: ${output}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill("SIGQUIT");
      await exited;
    },
  };
}

/** A plugin with `echo` (read-only), `spin` (read-only, burns `ms` of CPU) and `change` (needs an approval). */
export function scalePluginTarball(namespace: string, version = "1.0.0"): Uint8Array {
  const bundle = `globalThis[${JSON.stringify(PLUGIN_GLOBAL)}] = { namespace: ${JSON.stringify(namespace)}, version: ${JSON.stringify(version)}, tools: {
  echo: (input) => ({ content: [{ type: "text", text: "echo: " + input.text }] }),
  spin: (input) => { const end = Date.now() + input.ms; let n = 0; while (Date.now() < end) n++; return { content: [{ type: "text", text: "spun" }] }; },
  change: (input) => ({ content: [{ type: "text", text: "changed " + input.text }] }),
} };\n`;
  const bytes = new TextEncoder().encode(bundle);
  const tool = (name: string, readOnly: boolean, properties: Record<string, unknown>) => ({
    name,
    description: `The ${name} tool.`,
    category: "utility",
    inputSchema: {
      type: "object",
      properties,
      required: Object.keys(properties),
      additionalProperties: false,
    },
    annotations: readOnly ? { readOnlyHint: true } : {},
    requiredSecrets: [],
    inputExamples: [],
    harness: null,
  });
  const manifest = {
    manifestVersion: MANIFEST_VERSION,
    namespace,
    version,
    description: `scale-out test plugin ${namespace}`,
    engine: ">=0.1.0",
    sdk: SDK_VERSION,
    bundle: { file: "index.js", integrity: sha512Integrity(bytes), size: bytes.length },
    tools: [
      tool("echo", true, { text: { type: "string" } }),
      tool("spin", true, { ms: { type: "integer" } }),
      tool("change", false, { text: { type: "string" } }),
    ],
    knowledge: null,
    egress: [],
    limits: {},
  };
  return writePluginTarball({
    packageJson: JSON.stringify({ name: namespace, version, private: true }),
    manifest: JSON.stringify(manifest),
    bundle,
  });
}

export interface LoadResult {
  calls: number;
  errors: number;
  seconds: number;
  callsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** `concurrency` closed loops calling `once()` for `seconds`. */
export async function load(
  once: () => Promise<boolean>,
  concurrency: number,
  seconds: number,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const ok = await once().catch(() => false);
        latencies.push(performance.now() - t);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    calls: latencies.length,
    errors,
    seconds: elapsed,
    callsPerSecond: latencies.length / elapsed,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  };
}
