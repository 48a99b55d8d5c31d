import { describe, expect, it } from "vitest";
import { convert, isUnits } from "./units.ts";

describe("convert", () => {
  it("reports metric in °C and km/h, imperial in °F and mph, standard in K and m/s", () => {
    expect(convert(20, 10, "metric")).toEqual({ temperature: "20 °C", wind: "36 km/h" });
    expect(convert(20, 10, "imperial")).toEqual({ temperature: "68 °F", wind: "22.4 mph" });
    expect(convert(20, 10, "standard")).toEqual({ temperature: "293.2 K", wind: "10 m/s" });
  });

  it("recognises only the three declared choices", () => {
    expect(["metric", "imperial", "standard", "kelvin", undefined].map(isUnits)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});
