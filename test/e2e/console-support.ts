// Support for the console's browser suite: Debian's chromium driven by playwright-core, a real
// host on a real socket with two plugins (the kit, and "maps" whose tools share a secret key
// and ask for a select key), screenshots under test/artifacts/console/ (gitignored).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { writePluginTarball } from "@airlock/sdk/package";
import { type Browser, chromium, type Page } from "playwright-core";
import {
  bundleSource,
  type FixturePlugin,
  fixtureManifest,
} from "../../host/src/engine/pipeline/test-fixtures.ts";
import { KIT } from "../../host/src/surfaces/http/test-support.ts";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = join(import.meta.dirname, "..", "artifacts", "console");
export const hasChromium = existsSync(CHROMIUM);

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-sync",
    ],
  });
}

export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
}

/**
 * Where the status line is, in document coordinates, against the top of the content (main):
 * a line that covers content has its bottom below main's top. `top` is its place in the viewport.
 */
export async function statusPlace(page: Page) {
  return (await page.evaluate(`(() => {
    const status = document.getElementById("status").getBoundingClientRect();
    const main = document.getElementById("main").getBoundingClientRect();
    return { scrollY: window.scrollY, top: status.top, bottom: status.bottom + window.scrollY, mainTop: main.top + window.scrollY };
  })()`)) as { scrollY: number; top: number; bottom: number; mainTop: number };
}

export function tarball(
  plugin: FixturePlugin,
  extra: { knowledge?: "read" | "write" | "manage"; padBytes?: number } = {},
) {
  // Padding (random, so it does not compress away) makes an upload long enough to report progress.
  const pad = extra.padBytes ? `\n// ${randomBytes(extra.padBytes).toString("base64")}\n` : "";
  const bundle = bundleSource(plugin) + pad;
  const manifest = { ...fixtureManifest(plugin, bundle), knowledge: extra.knowledge ?? null };
  return writePluginTarball({
    packageJson: JSON.stringify({ name: `@fixtures/${plugin.namespace}`, version: manifest.version }),
    manifest: JSON.stringify(manifest),
    bundle,
  });
}

const MAPS_KEY = {
  key: "maps_key",
  type: "text" as const,
  label: "Maps API key",
  description: "The key of your maps account (Settings › API).",
  optional: false,
  sensitive: true,
};
const REGION = {
  key: "region",
  type: "select" as const,
  label: "Region",
  description: "Which data centre answers.",
  choices: ["eu-west", "us-east", "ap-south"],
  optional: false,
  sensitive: false,
};

export const MAPS: FixturePlugin = {
  namespace: "maps",
  version: "2.0.0",
  egress: [{ host: "maps.example.com" }],
  tools: [
    {
      name: "geocode",
      description: "Turns an address into coordinates.",
      category: "maps",
      annotations: { title: "Geocode an address", readOnlyHint: true, openWorldHint: true },
      inputSchema: {
        type: "object",
        properties: { address: { type: "string", description: "A postal address." } },
        required: ["address"],
        additionalProperties: false,
      },
      requiredSecrets: [MAPS_KEY, REGION],
      code: 'async () => "0,0"',
    },
    {
      name: "route",
      description: "Plans a route between two places.",
      category: "maps",
      annotations: { title: "Plan a route", readOnlyHint: true },
      requiredSecrets: [MAPS_KEY],
      code: 'async () => "turn left"',
    },
  ],
};

/** kit 1.1.0: one tool dropped, one changed, one added with a new select secret, an egress host. */
export const KIT_NEXT: FixturePlugin = {
  ...KIT,
  version: "1.1.0",
  egress: [{ host: "api.example.com" }],
  tools: [
    ...KIT.tools
      .filter((t) => t.name !== "picture")
      .map((t) => (t.name === "echo" ? { ...t, description: "Echoes the text back, louder." } : t)),
    {
      name: "shout",
      description: "Shouts in a tone.",
      requiredSecrets: [
        { key: "tone", type: "select", choices: ["calm", "loud"], optional: false, sensitive: false },
      ],
      code: 'async () => "HEY"',
    },
  ],
};

/** A tool that tries a host its plugin never declared: the egress gate refuses (a denied capability call). */
export const PROBE: FixturePlugin = {
  namespace: "probe",
  version: "1.0.0",
  tools: [
    {
      name: "peek",
      description: "Tries to reach a host the plugin never declared.",
      category: "diagnostics",
      annotations: { readOnlyHint: true },
      code: 'async (input, ctx) => { try { await ctx.fetch("https://undeclared.example/x"); return "reached"; } catch (e) { return "refused: " + (e && e.code); } }',
    },
  ],
};
