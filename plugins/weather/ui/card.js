// The weather plugin's card (MCP Apps): currentWeather's answer as a small card in the client's
// sandboxed iframe: the city, the temperature large, the conditions, the wind and the units the
// operator chose. It only shows what the call returned (the client sends the call's arguments and
// its result); it fetches nothing and calls no tool.
import { connect } from "@airlock/sdk/apps";

const $ = (id) => document.getElementById(id);

function show(weather) {
  $("city").textContent = weather.city;
  $("status").textContent = "";
  $("temperature").textContent = weather.temperature;
  $("condition").textContent = weather.condition;
  $("wind").textContent = weather.wind;
  $("units").textContent = weather.units;
  $("details").hidden = false;
}

function isWeather(v) {
  return (
    typeof v === "object" &&
    v !== null &&
    ["city", "condition", "temperature", "wind", "units"].every((k) => typeof v[k] === "string")
  );
}

connect({ name: "weather-card", version: "1.0.0" }, (method, params) => {
  if (method === "ui/notifications/tool-input") {
    const city = params?.arguments?.city;
    if (typeof city === "string") $("status").textContent = `Asking about ${city}…`;
  } else if (method === "ui/notifications/tool-result") {
    if (params?.isError !== true && isWeather(params?.structuredContent)) {
      show(params.structuredContent);
      return;
    }
    const said = params?.content?.find?.((c) => c?.type === "text")?.text;
    $("status").textContent = typeof said === "string" ? said : "The weather could not be read.";
  }
});
