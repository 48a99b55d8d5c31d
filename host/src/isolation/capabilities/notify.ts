// ctx.progress and ctx.log on the host side: the `progress` and `log` capabilities deliver
// notifications to whoever made the call (grant.notify → MCP progress / logging).
// Invariants: numbers are finite, levels are the four known ones, messages are capped at
// MAX_NOTIFY_MESSAGE characters; these calls are not audited one by one (they carry no effect
// on host state and a chatty tool would flood the audit log) but still count against
// capabilityCalls.
import { bridgeError } from "../bridge/errors.ts";
import type { CallNotification, Capability } from "../bridge/types.ts";

export const MAX_NOTIFY_MESSAGE = 4000;
const LEVELS = new Set(["debug", "info", "warning", "error"]);

function finite(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw bridgeError("AIRLOCK_BRIDGE_ARGS_INVALID", `${what} must be a finite number`);
  }
  return value;
}

function message(value: unknown, what: string): string {
  if (typeof value !== "string") throw bridgeError("AIRLOCK_BRIDGE_ARGS_INVALID", `${what} must be a string`);
  return value.length > MAX_NOTIFY_MESSAGE ? value.slice(0, MAX_NOTIFY_MESSAGE) : value;
}

export function createNotifyCapabilities(): Capability[] {
  const notAudited = () => false;
  return [
    {
      name: "progress",
      auditedByBridge: notAudited,
      methods: {
        async report(grant, args) {
          const n: CallNotification = { type: "progress", progress: finite(args[0], "progress") };
          if (args[1] !== undefined && args[1] !== null) n.total = finite(args[1], "total");
          if (args[2] !== undefined && args[2] !== null) n.message = message(args[2], "message");
          grant.notify(n);
          return undefined;
        },
      },
    },
    {
      name: "log",
      auditedByBridge: notAudited,
      methods: {
        async write(grant, args) {
          const level = args[0];
          if (typeof level !== "string" || !LEVELS.has(level)) {
            throw bridgeError(
              "AIRLOCK_BRIDGE_ARGS_INVALID",
              "log level must be debug, info, warning or error",
            );
          }
          grant.notify({
            type: "log",
            level: level as "debug" | "info" | "warning" | "error",
            message: message(args[1], "message"),
          });
          return undefined;
        },
      },
    },
  ];
}
