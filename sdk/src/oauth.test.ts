import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin, type PluginDefinitionInput } from "./define-plugin.ts";
import { defineTool } from "./define-tool.ts";
import { parseManifest } from "./manifest.ts";
import { defineOAuthProvider, type OAuthProviderSpec, providerSecretSpecs, sameProvider } from "./oauth.ts";

const spec: OAuthProviderSpec = {
  name: "github",
  authorizationUrl: "https://github.com/login/oauth/authorize",
  tokenUrl: "https://github.com/login/oauth/access_token",
  scopes: ["read:user", "repo"],
  apiHosts: ["api.github.com"],
};
const tool = (secrets: string[] = []) =>
  defineTool({
    name: "me",
    description: "Who the account is.",
    requiredSecrets: secrets.map((key) => ({ key })),
    parameters: z.object({}),
    execute: async () => "ok",
  });
const plugin = (patch: Partial<PluginDefinitionInput>) =>
  definePlugin({
    namespace: "gh-tools",
    version: "1.0.0",
    engine: "^1.0.0",
    tools: [tool()],
    egress: [{ host: "api.github.com" }],
    ...patch,
  });
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as { code: string; message: string }).code;
  }
  return "accepted";
};

describe("defineOAuthProvider", () => {
  it("accepts https endpoints and http on loopback only", () => {
    expect(defineOAuthProvider(spec).name).toBe("github");
    expect(defineOAuthProvider({ ...spec, tokenUrl: "http://127.0.0.1:8080/token" }).tokenUrl).toContain(
      "127.0.0.1",
    );
    for (const tokenUrl of [
      "http://auth.example.com/token",
      "ftp://x/token",
      "https://u:p@x/token",
      "not a url",
    ]) {
      expect(
        codeOf(() => defineOAuthProvider({ ...spec, tokenUrl })),
        tokenUrl,
      ).toBe("AIRLOCK_SDK_PLUGIN_INVALID");
    }
  });

  it("refuses bad names, scopes, API hosts and rawToken without a reason", () => {
    for (const bad of [
      { name: "GitHub" },
      { name: "x".repeat(40) },
      { scopes: ["has space"] },
      { apiHosts: [] },
      { apiHosts: ["API.github.com"] },
      { rawToken: { reason: "" } },
    ]) {
      expect(
        codeOf(() => defineOAuthProvider({ ...spec, ...bad } as OAuthProviderSpec)),
        JSON.stringify(bad),
      ).toBe("AIRLOCK_SDK_PLUGIN_INVALID");
    }
  });

  it("compares declarations by endpoints, scopes and hosts", () => {
    expect(sameProvider(spec, { ...spec, scopes: ["repo", "read:user"] })).toBe(true);
    expect(sameProvider(spec, { ...spec, tokenUrl: "https://evil.example/token" })).toBe(false);
    expect(providerSecretSpecs(spec).map((s) => [s.key, s.sensitive])).toEqual([
      ["github_oauth_client_id", false],
      ["github_oauth_client_secret", true],
    ]);
  });
});

describe("definePlugin with oauth and models", () => {
  it("carries providers and the models reason", () => {
    const p = plugin({ oauth: [defineOAuthProvider(spec)], models: { reason: "summaries" } });
    expect(p.oauth).toEqual([spec]);
    expect(p.models).toEqual({ reason: "summaries" });
  });

  it("refuses an apiHost that is not an egress host, a duplicate provider, and a raw spec", () => {
    expect(codeOf(() => plugin({ oauth: [defineOAuthProvider(spec)], egress: [] }))).toBe(
      "AIRLOCK_SDK_PLUGIN_INVALID",
    );
    expect(codeOf(() => plugin({ oauth: [defineOAuthProvider(spec), defineOAuthProvider(spec)] }))).toBe(
      "AIRLOCK_SDK_PLUGIN_INVALID",
    );
    expect(codeOf(() => plugin({ oauth: [spec as never] }))).toBe("AIRLOCK_SDK_PLUGIN_INVALID");
    expect(codeOf(() => plugin({ models: { reason: "" } }))).toBe("AIRLOCK_SDK_PLUGIN_INVALID");
  });

  it("refuses a tool declaring a provider's client credentials or raw-token switch", () => {
    for (const key of ["github_oauth_client_secret", "other_oauth_client_id", "github_oauth_raw_token"]) {
      expect(
        codeOf(() => plugin({ tools: [tool([key])] })),
        key,
      ).toBe("AIRLOCK_SDK_PLUGIN_INVALID");
    }
  });
});

describe("manifest oauth checks", () => {
  const manifest = (oauth: unknown[], egress = [{ host: "api.github.com" }]) => ({
    manifestVersion: 1,
    namespace: "gh-tools",
    version: "1.0.0",
    description: "",
    engine: "^1.0.0",
    sdk: "1.0.0",
    bundle: { file: "index.js", integrity: `sha512-${"A".repeat(86)}==`, size: 1 },
    tools: [
      {
        name: "me",
        description: "d",
        category: "c",
        inputSchema: {},
        annotations: {},
        requiredSecrets: [],
        inputExamples: [],
        harness: null,
      },
    ],
    knowledge: null,
    egress,
    limits: {},
    oauth,
  });

  it("accepts a valid provider and refuses a metadata host, an uncovered apiHost and a marker", () => {
    expect(parseManifest(manifest([spec])).oauth).toEqual([spec]);
    expect(
      codeOf(() => parseManifest(manifest([{ ...spec, tokenUrl: "https://metadata.google.internal/t" }]))),
    ).toBe("AIRLOCK_MANIFEST_INVALID");
    expect(codeOf(() => parseManifest(manifest([spec], [])))).toBe("AIRLOCK_MANIFEST_INVALID");
    expect(codeOf(() => parseManifest(manifest([{ ...spec, kind: "airlock.oauthProvider" }])))).toBe(
      "AIRLOCK_MANIFEST_INVALID",
    );
    expect(codeOf(() => parseManifest(manifest([spec, spec])))).toBe("AIRLOCK_MANIFEST_INVALID");
  });
});
