// Bar geometry of the chart UI: one rect per value in a width × height box, scaled to the
// largest absolute value, with a 2-unit gap; negative values draw as height 0 bars.
export function bars(values, width, height) {
  if (values.length === 0) return [];
  const top = Math.max(...values.map((v) => Math.abs(v)), 1e-9);
  const step = width / values.length;
  return values.map((v, i) => {
    const h = Math.max(0, (v / top) * (height - 4));
    return {
      x: +(i * step + 1).toFixed(2),
      y: +(height - h).toFixed(2),
      width: +Math.max(1, step - 2).toFixed(2),
      height: +h.toFixed(2),
    };
  });
}
