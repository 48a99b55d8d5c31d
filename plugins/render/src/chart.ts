// Rasterises a bar chart into RGBA pixels, for encodePng. Pure JS, runs in the isolate.
// Contract: one bar per value, scaled to the largest value (negative values clamp to 0),
// drawn on a white canvas with a grey baseline; bar colours cycle through PALETTE.

export interface Canvas {
  width: number;
  height: number;
  pixels: Uint8Array;
}

const PALETTE: ReadonlyArray<readonly [number, number, number]> = [
  [37, 99, 235],
  [22, 163, 74],
  [234, 88, 12],
  [147, 51, 234],
  [220, 38, 38],
];

function fillRect(c: Canvas, x0: number, y0: number, w: number, h: number, rgb: readonly number[]): void {
  for (let y = Math.max(0, y0); y < Math.min(c.height, y0 + h); y++) {
    for (let x = Math.max(0, x0); x < Math.min(c.width, x0 + w); x++) {
      const i = (y * c.width + x) * 4;
      c.pixels[i] = rgb[0] as number;
      c.pixels[i + 1] = rgb[1] as number;
      c.pixels[i + 2] = rgb[2] as number;
      c.pixels[i + 3] = 255;
    }
  }
}

/** Draws `values` as vertical bars on a width × height canvas. */
export function barChart(values: readonly number[], width: number, height: number): Canvas {
  const canvas: Canvas = { width, height, pixels: new Uint8Array(width * height * 4) };
  fillRect(canvas, 0, 0, width, height, [255, 255, 255]);
  const margin = 8;
  const plotH = height - 2 * margin;
  const slot = (width - 2 * margin) / Math.max(1, values.length);
  const max = Math.max(1e-9, ...values.map((v) => Math.max(0, v)));
  values.forEach((v, i) => {
    const h = Math.round((Math.max(0, v) / max) * plotH);
    const x = Math.round(margin + i * slot + slot * 0.15);
    const w = Math.max(1, Math.round(slot * 0.7));
    fillRect(canvas, x, margin + plotH - h, w, h, PALETTE[i % PALETTE.length] as readonly number[]);
  });
  fillRect(canvas, margin, height - margin, width - 2 * margin, 1, [120, 120, 120]);
  return canvas;
}
