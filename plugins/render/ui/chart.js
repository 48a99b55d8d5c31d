// The render plugin's chart UI (MCP Apps): a bar chart of renderChart's values, drawn as SVG in
// the client's sandboxed iframe. It speaks the extension's postMessage JSON-RPC
// (`@airlock/sdk/apps`, bundled in by the build):
// ui/initialize, then the tool's input and result as notifications; the button calls
// renderChart again through the client (an ordinary tool call of the agent).

import { connect } from "@airlock/sdk/apps";
import { bars } from "./bars.js";

const status = document.getElementById("status");
const chart = document.getElementById("chart");
const caption = document.getElementById("caption");
const valueRow = document.getElementById("values");
const again = document.getElementById("again");
let values = [];

function draw(next) {
  values = next;
  chart.replaceChildren(
    ...bars(values, 320, 200).map((b) => {
      const rect = document.createElementNS("http://www.w3.org/2000/svg", "rect");
      for (const [k, v] of Object.entries(b)) rect.setAttribute(k, String(v));
      return rect;
    }),
  );
  // each bar's value under it, in a row of equal columns (SVG text would stretch with the chart)
  valueRow.replaceChildren(
    ...values.map((v) => {
      const item = document.createElement("li");
      item.textContent = String(v);
      return item;
    }),
  );
  status.textContent = `${values.length} value${values.length === 1 ? "" : "s"}`;
  again.hidden = values.length === 0;
}

const app = connect({ name: "render-chart", version: "1.0.0" }, (method, params) => {
  if (method === "ui/notifications/tool-input") {
    const input = params?.arguments?.values;
    if (Array.isArray(input)) draw(input.filter((v) => typeof v === "number"));
  } else if (method === "ui/notifications/tool-result") {
    const meta = params?.structuredContent;
    caption.textContent =
      params?.isError === true
        ? "The chart could not be rendered."
        : meta?.filename
          ? `${meta.filename} (${meta.bytes} bytes) is ready to hand on.`
          : "";
  }
});

// The tool as this server names it: the host context's toolInfo, else Airlock's agent endpoint name.
const toolName = app.ready.then((init) => init?.hostContext?.toolInfo?.tool?.name ?? "render__renderChart");

again.addEventListener("click", async () => {
  again.disabled = true;
  try {
    const result = await app.request("tools/call", {
      name: await toolName,
      arguments: { values, width: null, height: null, filename: null },
    });
    caption.textContent = result?.structuredContent?.filename
      ? `Rendered again: ${result.structuredContent.filename}`
      : "Rendered again.";
  } catch (error) {
    caption.textContent = `Could not render again: ${error.message}`;
  } finally {
    again.disabled = false;
  }
});
