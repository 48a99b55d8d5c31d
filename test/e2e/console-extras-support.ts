// Support for the console-extras suites: a real registry (registry/, on a loopback socket) with
// "weather" published in two signed versions — 2.0.0 changes a description and asks for a new
// secret, a new egress host and a knowledge level, so an upgrade has a diff to show — and a host
// that resolves `name@range` against it and trusts the signing key.
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningRegistry, startRegistry } from "@airlock/registry";
import type { PluginManifest } from "@airlock/sdk/manifest";
import {
  publishDocument,
  samplePluginFiles,
  samplePluginTarball,
  sha512Integrity,
} from "@airlock/sdk/package";
import { generateKeyPair, signIntegrity } from "@airlock/sdk/signing";
import { request } from "undici";

export const WEATHER_NEXT_DESCRIPTION = "Echoes its input back as text, with the forecast.";

/** weather 2.0.0's changes against 1.0.0. */
export function weatherNext(m: PluginManifest): void {
  const tool = m.tools[0];
  if (tool !== undefined) {
    tool.description = WEATHER_NEXT_DESCRIPTION;
    tool.requiredSecrets = [{ key: "forecast_key", type: "text", optional: false, sensitive: true }];
  }
  m.egress = [{ host: "api.weather.example" }];
  m.knowledge = "read";
}

export interface TestRegistry {
  registry: RunningRegistry;
  publicKeyPem: string;
  publish(namespace: string, version: string, patch?: (m: PluginManifest) => void): Promise<void>;
  close(): Promise<void>;
}

export async function startTestRegistry(): Promise<TestRegistry> {
  const dataDir = mkdtempSync(join(tmpdir(), "airlock-console-reg-"));
  const registry = await startRegistry({ dataDir, port: 0 });
  const publisher = registry.storage.createToken("acme").token;
  const key = generateKeyPair();
  const publish = async (namespace: string, version: string, patch?: (m: PluginManifest) => void) => {
    const options = { namespace, version, ...(patch === undefined ? {} : { patch }) };
    const bytes = samplePluginTarball(options);
    const doc = publishDocument(bytes, samplePluginFiles(options).parsed, [
      signIntegrity(sha512Integrity(bytes), key.privateKeyPem),
    ]);
    const res = await request(`${registry.url}/${namespace}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${publisher}`, "content-type": "application/json" },
      body: JSON.stringify(doc),
    });
    const body = await res.body.text();
    if (res.statusCode !== 201) throw new Error(`publish ${namespace}@${version} failed: ${body}`);
  };
  return {
    registry,
    publicKeyPem: key.publicKeyPem,
    publish,
    async close() {
      await registry.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
