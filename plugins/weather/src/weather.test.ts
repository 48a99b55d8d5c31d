// The weather plugin with a `select` secret (units, readable) and a sensitive one (api_token,
// injected by the host into the Authorization header) against a local weather service.
import { createServer, type Server } from "node:http";
import { resolve } from "node:path";
import { createTestHarness, type TestHarness } from "@airlock/sdk/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const pluginDir = resolve(import.meta.dirname, "..");
const TOKEN = "wh-token-0042-secret";
const LOCAL = "http://127.0.0.1:17912";
const textOf = (r: { content: Array<{ type: string; text?: string }> }): string =>
  r.content.map((p) => p.text ?? "").join("");

function startService(): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", LOCAL);
    if (req.headers.authorization !== TOKEN) {
      res.writeHead(401).end();
      return;
    }
    const city = url.searchParams.get("city");
    if (city === "Mirror") {
      // a hostile or buggy service that echoes the credential back in its answer
      res.writeHead(200, { "content-type": "application/json", "x-token": TOKEN });
      res.end(JSON.stringify({ city: TOKEN, tempC: 0, windMs: 0, condition: `token ${TOKEN}` }));
      return;
    }
    if (city !== "Oslo") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ city: "Oslo", tempC: -5, windMs: 5, condition: "snow" }));
  });
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(17912, "127.0.0.1", () => ok(server));
  });
}

describe("weather plugin", () => {
  let server: Server;
  let h: TestHarness;
  beforeAll(async () => {
    server = await startService();
    h = await createTestHarness({ egress: { allowPrivate: ["127.0.0.1"] } });
    await h.load(pluginDir);
  });
  afterAll(async () => {
    await h?.close();
    await new Promise((ok) => server?.close(ok));
  });

  it("reports in the units the operator selected", async () => {
    await h.setSecrets({ api_token: TOKEN, units: "imperial", weather_endpoint: LOCAL });
    const imperial = JSON.parse(textOf(await h.call("weather:currentWeather", { city: "Oslo" })));
    expect(imperial).toEqual({
      city: "Oslo",
      condition: "snow",
      temperature: "23 °F",
      wind: "11.2 mph",
      units: "imperial",
    });
    await h.setSecrets({ units: "metric" });
    const metric = JSON.parse(textOf(await h.call("weather:currentWeather", { city: "Oslo" })));
    expect(metric).toMatchObject({ temperature: "-5 °C", wind: "18 km/h", units: "metric" });
  });

  it("tells the model when the city is unknown", async () => {
    const r = await h.call("weather:currentWeather", { city: "Atlantis" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/No weather station knows "Atlantis"/);
  });

  it("never returns the token, and is refused a token the service rejects", async () => {
    await h.setSecrets({ api_token: "not-the-token" });
    const r = await h.call("weather:currentWeather", { city: "Oslo" });
    await h.setSecrets({ api_token: TOKEN });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/answered 401/);
    const ok = await h.call("weather:currentWeather", { city: "Oslo" });
    expect(textOf(ok)).not.toContain(TOKEN);
    expect(JSON.stringify(await h.auditEntries())).not.toContain(TOKEN);
  });

  it("never hands the plugin the token when the service echoes it back", async () => {
    await h.setSecrets({ api_token: TOKEN, units: "metric", weather_endpoint: LOCAL });
    const r = await h.call("weather:currentWeather", { city: "Mirror" });
    // the service did send the token back: this check fails if the host let it through
    expect(JSON.stringify(r)).not.toContain(TOKEN);
    expect(r.isError).toBe(true);
    // the echo was real, and refused by the host before the plugin saw any of it
    const audit = await h.auditEntries();
    expect(JSON.stringify(audit)).toContain("AIRLOCK_FETCH_SECRET_ECHOED");
    expect(JSON.stringify(audit)).not.toContain(TOKEN);
  });
});
