// CSV writing per RFC 4180: fields with a comma, quote, CR or LF are quoted and quotes doubled;
// lines end with CRLF. Pure JS, runs in the isolate.

function field(value: string | number | boolean | null): string {
  if (value === null) return "";
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(
  columns: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | boolean | null>>,
): string {
  const lines = [columns.map(field).join(",")];
  for (const row of rows) lines.push(columns.map((_, i) => field(row[i] ?? null)).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
