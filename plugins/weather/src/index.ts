// The `weather` plugin: current conditions from the declared weather API, shown as a card
// (ui/card.html, MCP Apps) in clients that render UIs.
// Secrets: `units` is a readable select (metric | imperial | standard) the tool reads with
// ctx.secrets.get; `api_token` is a sensitive credential that only travels as
// ctx.secrets.ref in the Authorization header, so its value never enters the isolate.
import { definePlugin, defineTool, hasCode } from "@airlock/sdk";
import { z } from "zod";
import { convert, isUnits, UNIT_CHOICES } from "./units.ts";

export const WEATHER_HOST = "api.weatherhub.dev";
/** The hosted service, or a local one on loopback (for development; the operator must allow it). */
// The loopback endpoint (local use, tests) is on a port below Linux's ephemeral range
// (32768–60999), so a server bound to it never collides with an outgoing connection's port.
export const ENDPOINTS = [`https://${WEATHER_HOST}`, "http://127.0.0.1:17912"] as const;

interface Upstream {
  city: string;
  tempC: number;
  windMs: number;
  condition: string;
}

function isUpstream(v: unknown): v is Upstream {
  const o = v as Record<string, unknown> | null;
  return (
    typeof o === "object" &&
    o !== null &&
    typeof o.city === "string" &&
    typeof o.tempC === "number" &&
    typeof o.windMs === "number" &&
    typeof o.condition === "string"
  );
}

export const currentWeather = defineTool({
  name: "currentWeather",
  description: "Current temperature, wind and conditions for a city, in the units the operator chose.",
  category: "web",
  requiredSecrets: [
    {
      key: "units",
      type: "select",
      choices: [...UNIT_CHOICES],
      label: "Units",
      description: "How values are reported.",
    },
    {
      key: "api_token",
      type: "text",
      sensitive: true,
      label: "WeatherHub token",
      description: "From weatherhub.dev.",
    },
    {
      key: "weather_endpoint",
      type: "select",
      choices: [...ENDPOINTS],
      optional: true,
      label: "Service",
      description: "The hosted service (default) or a local one.",
    },
  ],
  annotations: { title: "Current weather", readOnlyHint: true, openWorldHint: true },
  uses: {
    fetch: [
      { host: WEATHER_HOST, methods: ["GET"] },
      { host: "127.0.0.1", methods: ["GET"] },
    ],
  },
  presentation: { label: "Weather", icon: "cloud-sun", group: "web" },
  // MCP Apps: clients that render UIs show the answer as a card (ui/card.html, docs/apps.md)
  ui: "card",
  inputExamples: [{ label: "city", input: { city: "Oslo" } }],
  parameters: z.object({ city: z.string().min(1).max(100).describe("City name, e.g. 'Oslo'.") }),
  output: z.object({
    city: z.string().describe("The city the station reports for."),
    condition: z.string().describe("Conditions, e.g. 'light rain'."),
    temperature: z.string().describe("Temperature with its unit, e.g. '4.5 °C'."),
    wind: z.string().describe("Wind speed with its unit, e.g. '18 km/h'."),
    units: z.enum(UNIT_CHOICES).describe("The units the operator chose."),
  }),
  execute: async (input, ctx) => {
    const chosen = await ctx.secrets.get("units");
    const units = isUnits(chosen) ? chosen : "metric";
    const endpoint = await ctx.secrets.get("weather_endpoint");
    const base = ENDPOINTS.find((e) => e === endpoint) ?? ENDPOINTS[0];
    let res: Awaited<ReturnType<typeof ctx.fetch>>;
    try {
      res = await ctx.fetch(`${base}/v1/current?city=${encodeURIComponent(input.city)}`, {
        headers: { authorization: ctx.secrets.ref("api_token"), accept: "application/json" },
      });
    } catch (err) {
      return {
        success: false,
        error: `The weather service is unreachable (${hasCode(err) ? err.code : "network"}).`,
      };
    }
    if (res.status === 404) return { success: false, error: `No weather station knows "${input.city}".` };
    if (res.status !== 200) return { success: false, error: `The weather service answered ${res.status}.` };
    const data = await res.json();
    if (!isUpstream(data))
      return { success: false, error: "The weather service answered in an unknown format." };
    const { temperature, wind } = convert(data.tempC, data.windMs, units);
    return {
      success: true,
      result: { city: data.city, condition: data.condition, temperature, wind, units },
    };
  },
});

export default definePlugin({
  namespace: "weather",
  version: "1.0.0",
  engine: "^1.0.0",
  description: "Current weather from weatherhub.dev in metric, imperial or standard units.",
  egress: [
    { host: WEATHER_HOST, secrets: ["api_token"] },
    { host: "127.0.0.1", schemes: ["http"], ports: [17912], secrets: ["api_token"] },
  ],
  tools: [currentWeather],
  ui: [
    {
      name: "card",
      file: "ui/card.html",
      title: "Weather card",
      description: "currentWeather's answer as a card: city, temperature, conditions, wind and units.",
      prefersBorder: true,
    },
  ],
});
