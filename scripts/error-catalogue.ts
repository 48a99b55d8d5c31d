// The one catalogue of Airlock error codes, assembled from each area's own catalogue file, and
// the generator of docs/errors.md (`node scripts/error-catalogue.ts --write`).
// Invariants (checked by test/conformance/error-catalogue.test.ts): a code is defined once,
// in one area; every AIRLOCK_* code the source throws is in the catalogue; docs/errors.md is
// exactly what this file generates.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ErrorCatalogue } from "@airlock/sdk/errors";
import { UI_ERRORS } from "../host/src/engine/apps/errors.ts";
import { CATALOGUE_ERRORS } from "../host/src/engine/catalogue/errors.ts";
import { CODE_MODE_ERRORS } from "../host/src/engine/code-mode/errors.ts";
import { INSTALL_ERRORS } from "../host/src/engine/install/errors.ts";
import { BROKER_ERRORS } from "../host/src/engine/oauth/errors.ts";
import { PEOPLE_ERRORS } from "../host/src/engine/people/errors.ts";
import { PIPELINE_ERRORS } from "../host/src/engine/pipeline/errors.ts";
import { REMOTE_ERRORS } from "../host/src/engine/remote/errors.ts";
import { SKILL_ERRORS } from "../host/src/engine/skills/errors.ts";
import { TASK_ERRORS } from "../host/src/engine/tasks/errors.ts";
import { BRIDGE_ERRORS } from "../host/src/isolation/bridge/errors.ts";
import { CAPABILITY_ERRORS } from "../host/src/isolation/capabilities/errors.ts";
import { FETCH_ERRORS } from "../host/src/isolation/egress/errors.ts";
import { SANDBOX_ERRORS } from "../host/src/isolation/sandbox/errors.ts";
import { AUTH_ERRORS } from "../host/src/state/auth/errors.ts";
import { BACKUP_ERRORS } from "../host/src/state/backup/errors.ts";
import { SECRETS_ERRORS } from "../host/src/state/secrets/errors.ts";
import { STORE_ERRORS } from "../host/src/state/store/errors.ts";
import { BOOTSTRAP_ERRORS } from "../host/src/surfaces/cli/bootstrap/errors.ts";
import { CLI_ERRORS } from "../host/src/surfaces/cli/errors.ts";
import { AUTHZ_ERRORS } from "../host/src/surfaces/http/authz/errors.ts";
import { CONSOLE_ERRORS } from "../host/src/surfaces/http/console/errors.ts";
import { API_ERRORS } from "../host/src/surfaces/http/errors.ts";
import { MCP_ERRORS } from "../host/src/surfaces/mcp/errors.ts";
import { REGISTRY_ERRORS } from "../registry/src/errors.ts";
import { DEV_ERRORS } from "../sdk/src/cli/dev.ts";
import { SDK_ERROR_CODES } from "../sdk/src/error-codes.ts";
import { MANIFEST_ERRORS } from "../sdk/src/manifest.ts";
import { PACKAGE_ERRORS } from "../sdk/src/package/errors.ts";
import { TESTING_ERRORS } from "../sdk/src/testing/errors.ts";

/** Each area's catalogue, with the file that defines it (the docs link there). */
export const AREAS: ReadonlyArray<{ area: string; file: string; codes: ErrorCatalogue }> = [
  { area: "SDK (definitions, build, CLI)", file: "sdk/src/error-codes.ts", codes: SDK_ERROR_CODES },
  { area: "Plugin manifest", file: "sdk/src/manifest.ts", codes: MANIFEST_ERRORS },
  { area: "SDK test harness", file: "sdk/src/testing/errors.ts", codes: TESTING_ERRORS },
  { area: "Plugin tarballs", file: "sdk/src/package/errors.ts", codes: PACKAGE_ERRORS },
  { area: "airlock-plugin dev", file: "sdk/src/cli/dev.ts", codes: DEV_ERRORS },
  { area: "Registry", file: "registry/src/errors.ts", codes: REGISTRY_ERRORS },
  { area: "Install lifecycle", file: "host/src/engine/install/errors.ts", codes: INSTALL_ERRORS },
  { area: "Sandbox", file: "host/src/isolation/sandbox/errors.ts", codes: SANDBOX_ERRORS },
  { area: "Bridge", file: "host/src/isolation/bridge/errors.ts", codes: BRIDGE_ERRORS },
  { area: "Store, artifacts, knowledge", file: "host/src/state/store/errors.ts", codes: STORE_ERRORS },
  { area: "Secrets", file: "host/src/state/secrets/errors.ts", codes: SECRETS_ERRORS },
  { area: "Outbound HTTP (ctx.fetch)", file: "host/src/isolation/egress/errors.ts", codes: FETCH_ERRORS },
  {
    area: "OAuth broker and model connections",
    file: "host/src/engine/oauth/errors.ts",
    codes: BROKER_ERRORS,
  },
  {
    area: "ctx.oauth and ctx.models",
    file: "host/src/isolation/capabilities/errors.ts",
    codes: CAPABILITY_ERRORS,
  },
  { area: "Catalogue", file: "host/src/engine/catalogue/errors.ts", codes: CATALOGUE_ERRORS },
  { area: "Remote MCP servers", file: "host/src/engine/remote/errors.ts", codes: REMOTE_ERRORS },
  { area: "Skills", file: "host/src/engine/skills/errors.ts", codes: SKILL_ERRORS },
  { area: "Plugin UIs (MCP Apps)", file: "host/src/engine/apps/errors.ts", codes: UI_ERRORS },
  { area: "Invocation pipeline", file: "host/src/engine/pipeline/errors.ts", codes: PIPELINE_ERRORS },
  { area: "Code mode", file: "host/src/engine/code-mode/errors.ts", codes: CODE_MODE_ERRORS },
  { area: "People in the loop", file: "host/src/engine/people/errors.ts", codes: PEOPLE_ERRORS },
  { area: "Tokens", file: "host/src/state/auth/errors.ts", codes: AUTH_ERRORS },
  {
    area: "OAuth authorization server (MCP clients)",
    file: "host/src/surfaces/http/authz/errors.ts",
    codes: AUTHZ_ERRORS,
  },
  { area: "HTTP admin API", file: "host/src/surfaces/http/errors.ts", codes: API_ERRORS },
  { area: "MCP server", file: "host/src/surfaces/mcp/errors.ts", codes: MCP_ERRORS },
  { area: "Operator console", file: "host/src/surfaces/http/console/errors.ts", codes: CONSOLE_ERRORS },
  { area: "Tasks (long-running calls)", file: "host/src/engine/tasks/errors.ts", codes: TASK_ERRORS },
  { area: "airlock CLI", file: "host/src/surfaces/cli/errors.ts", codes: CLI_ERRORS },
  { area: "Backup and restore", file: "host/src/state/backup/errors.ts", codes: BACKUP_ERRORS },
  {
    area: "airlock start bootstrap",
    file: "host/src/surfaces/cli/bootstrap/errors.ts",
    codes: BOOTSTRAP_ERRORS,
  },
];

/** Codes defined in more than one place (must be empty: a code is never reused). */
export function duplicateCodes(): string[] {
  const seen = new Map<string, string>();
  const dups: string[] = [];
  for (const { area, codes } of AREAS) {
    for (const code of Object.keys(codes)) {
      const other = seen.get(code);
      if (other !== undefined && other !== area) dups.push(`${code} (${other}; ${area})`);
      seen.set(code, area);
    }
  }
  return dups;
}

export function allCodes(): Set<string> {
  return new Set(AREAS.flatMap(({ codes }) => Object.keys(codes)));
}

export function errorsDoc(): string {
  const parts = [
    "# Error codes",
    "",
    "Every error Airlock reports carries a stable `code`. This page lists every code, area by area,",
    "with the HTTP status it has when it crosses the admin API or the registry. A code names one",
    "failure and is never reused. Recognise errors by `code`, never by message text.",
    "",
    "Generated by `node scripts/error-catalogue.ts --write` from the catalogue files named below.",
    "`test/conformance/error-catalogue.test.ts` fails when this page is stale.",
    "",
  ];
  for (const { area, file, codes } of AREAS) {
    parts.push(
      `## ${area}`,
      "",
      `Defined in \`${file}\`.`,
      "",
      "| code | status | meaning |",
      "|---|---|---|",
    );
    for (const [code, spec] of Object.entries(codes)) {
      parts.push(`| \`${code}\` | ${spec.status} | ${spec.description.replaceAll("|", "\\|")} |`);
    }
    parts.push("");
  }
  return parts.join("\n");
}

if (import.meta.main && process.argv.includes("--write")) {
  writeFileSync(join(import.meta.dirname, "..", "docs", "errors.md"), errorsDoc());
}
