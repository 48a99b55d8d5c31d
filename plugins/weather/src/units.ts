// Unit conversion for the weather plugin. The upstream API answers in SI units (°C, m/s);
// the operator's `units` choice decides what the model is told.
export const UNIT_CHOICES = ["metric", "imperial", "standard"] as const;
export type Units = (typeof UNIT_CHOICES)[number];

export function isUnits(value: unknown): value is Units {
  return typeof value === "string" && (UNIT_CHOICES as readonly string[]).includes(value);
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

export function convert(tempC: number, windMs: number, units: Units): { temperature: string; wind: string } {
  switch (units) {
    case "imperial":
      return { temperature: `${round1((tempC * 9) / 5 + 32)} °F`, wind: `${round1(windMs * 2.236936)} mph` };
    case "standard":
      return { temperature: `${round1(tempC + 273.15)} K`, wind: `${round1(windMs)} m/s` };
    default:
      return { temperature: `${round1(tempC)} °C`, wind: `${round1(windMs * 3.6)} km/h` };
  }
}
