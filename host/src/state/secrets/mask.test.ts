import type { PluginManifest } from "@airlock/sdk/manifest";
import { describe, expect, it } from "vitest";
import { isSensitive, maskSecret, presentSecret, secretSensitivity } from "./mask.ts";

const tool = (secrets: Array<{ key: string; type: "text" | "select"; sensitive: boolean }>) => ({
  requiredSecrets: secrets.map((s) => ({ ...s, optional: false })),
});
const plugin = (tools: ReturnType<typeof tool>[]) => ({ tools }) as unknown as PluginManifest;

describe("secret masking", () => {
  it("masks short values entirely and shows at most the last two characters of long ones", () => {
    expect(maskSecret("abc")).toBe("••••");
    expect(maskSecret("12345678901")).toBe("••••");
    expect(maskSecret("sk-abcdefghijklmnXY")).toBe("••••XY");
  });

  it("treats text secrets as sensitive and select or sensitive:false ones as readable", () => {
    const m = secretSensitivity([
      plugin([
        tool([
          { key: "api_key", type: "text", sensitive: true },
          { key: "region", type: "select", sensitive: false },
          { key: "base_url", type: "text", sensitive: false },
        ]),
      ]),
    ]);
    expect(Object.fromEntries(m)).toEqual({ api_key: true, region: false, base_url: false });
    expect(presentSecret(m, "base_url", "https://eu.example.com")).toBe("https://eu.example.com");
    expect(presentSecret(m, "api_key", "short")).toBe("••••");
  });

  it("makes a key sensitive for all tools when any one tool declares it sensitive", () => {
    const readable = tool([{ key: "token", type: "text", sensitive: false }]);
    const secret = tool([{ key: "token", type: "text", sensitive: true }]);
    expect(secretSensitivity([plugin([readable]), plugin([secret])]).get("token")).toBe(true);
    expect(secretSensitivity([plugin([secret, readable])]).get("token")).toBe(true);
  });

  it("treats a key no tool declares as sensitive", () => {
    expect(isSensitive(new Map(), "orphan")).toBe(true);
  });
});
