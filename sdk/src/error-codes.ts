// The catalogue of the SDK's own error codes (AIRLOCK_SDK_*): definition-time checks in
// defineTool/definePlugin, the strict-mode lint, the build, pack, keys and publish.
// Pure data (bundle-safe). Every code is thrown only through `sdkError`, so each is listed here once.
import { AirlockError, type AirlockErrorOptions, defineErrorCodes } from "./errors.ts";

export const SDK_ERROR_CODES = defineErrorCodes({
  AIRLOCK_SDK_TOOL_INVALID: {
    status: 400,
    description: "A defineTool() field is wrong; the message names it.",
  },
  AIRLOCK_SDK_TOOL_NAME: {
    status: 400,
    description: "A tool name is neither camelCase nor snake_case (`^[a-z][a-zA-Z0-9_]{0,63}$`).",
  },
  AIRLOCK_SDK_SECRET_INVALID: {
    status: 400,
    description: "A requiredSecrets entry is wrong (key not snake_case, select without choices, ...).",
  },
  AIRLOCK_SDK_PRESENTATION_INVALID: {
    status: 400,
    description: "A tool's presentation is not {label, icon, tone?, group?}.",
  },
  AIRLOCK_SDK_PLUGIN_INVALID: {
    status: 400,
    description: "A definePlugin() field is wrong; the message names it.",
  },
  AIRLOCK_SDK_NAMESPACE_INVALID: {
    status: 400,
    description:
      "The namespace does not match ^[a-z][a-z0-9-]{1,31}$, is reserved, or makes a wire name over 64.",
  },
  AIRLOCK_SDK_LINT_FAILED: {
    status: 422,
    description: "A tool schema breaks a strict-mode rule; each violation names path and fix.",
  },
  AIRLOCK_SDK_BUILD_FORBIDDEN_IMPORT: {
    status: 422,
    description:
      "The plugin imports a Node built-in or a module that cannot be resolved; bundles must be self-contained.",
  },
  AIRLOCK_SDK_BUILD_FAILED: {
    status: 422,
    description: "esbuild could not bundle the plugin; the message carries its errors.",
  },
  AIRLOCK_SDK_BUILD_ENTRY: {
    status: 422,
    description: "The plugin entry is missing or does not default-export a definePlugin() result.",
  },
  AIRLOCK_SDK_BUILD_SCHEMA: {
    status: 422,
    description: "A tool's Zod schema cannot be turned into JSON Schema.",
  },
  AIRLOCK_SDK_BUILD_USES_EXCEEDED: {
    status: 422,
    description:
      "A tool's `uses` asks for more than its plugin declares (a knowledge level above the plugin's, a fetch host no egress rule covers, a secret no tool declares, models or an OAuth provider the plugin does not declare); the message lists each with its JSON path.",
  },
  AIRLOCK_SDK_BUILD_UI_MISSING: {
    status: 422,
    description:
      "A UI declared in definePlugin's `ui` names a file that does not exist in the plugin folder.",
  },
  AIRLOCK_SDK_BUILD_UI_CSP: {
    status: 422,
    description:
      "A UI's CSP (connectDomains / resourceDomains) names an origin that is not https:// or wss:// on one of the plugin's egress hosts.",
  },
  AIRLOCK_SDK_BUILD_UI_UNKNOWN: {
    status: 422,
    description: "A tool's `ui` names a UI the plugin does not declare, or two UIs share a name.",
  },
  AIRLOCK_SDK_BUILD_UI_ASSET: {
    status: 422,
    description:
      "A UI's HTML references a local file the build cannot inline (not a script or stylesheet, or missing), its scripts or styles fail to bundle, or the built file is over the size cap.",
  },
  AIRLOCK_SDK_SKILL_INVALID: {
    status: 422,
    description:
      "A skills/<id>/SKILL.md is malformed (no front matter, name over 64 or description over 1024 characters, empty body) or a skill file is not plain UTF-8 text in its folder.",
  },
  AIRLOCK_SDK_EXAMPLE_INVALID: {
    status: 422,
    description: "An inputExamples entry does not match the tool's parameters.",
  },
  AIRLOCK_SDK_INPUT_INVALID: {
    status: 400,
    description: "A tool was called with input that its Zod parameters refuse.",
  },
  AIRLOCK_SDK_SCHEMA_UNENFORCEABLE: {
    status: 422,
    description:
      "A tool schema uses a rule JSON Schema cannot carry (refine, transform, pipe, coerce, default, catch) without runtimeZod.",
  },
  AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE: {
    status: 500,
    description:
      "Plugin code called parse()/safeParse() in the sandbox of a plugin built without runtimeZod: true.",
  },
  AIRLOCK_SDK_NOT_BUILT: {
    status: 400,
    description: "dist/ is missing or stale: run `airlock-plugin build` first.",
  },
  AIRLOCK_SDK_KEY_INVALID: { status: 400, description: "A signing key is not an ed25519 PEM key." },
  AIRLOCK_SDK_INIT_EXISTS: {
    status: 409,
    description: "`init` refuses to write into a non-empty directory.",
  },
  AIRLOCK_SDK_TEST_RUNNER_MISSING: {
    status: 500,
    description: "`airlock-plugin test` found vitest neither in the plugin nor beside the SDK.",
  },
  AIRLOCK_SDK_USAGE: {
    status: 400,
    description: "A CLI command was called with wrong arguments; see its --help.",
  },
  AIRLOCK_SDK_UNKNOWN_COMMAND: {
    status: 404,
    description: "No `airlock-plugin` command has this name; the error names the nearest, --help lists them.",
  },
  AIRLOCK_SDK_PUBLISH_FAILED: {
    status: 502,
    description: "The registry refused the upload or could not be reached.",
  },
});

export type SdkErrorCode = keyof typeof SDK_ERROR_CODES;

/** An AirlockError with a catalogued SDK code and that code's status. */
export function sdkError(
  code: SdkErrorCode,
  message: string,
  options: Omit<AirlockErrorOptions, "status"> = {},
): AirlockError {
  return new AirlockError(code, message, { ...options, status: SDK_ERROR_CODES[code].status });
}
