// tools/list pagination cursors: an opaque token naming the offset of the next page in the
// listing's deterministic order (tools sorted by name). No state is kept: any replica can serve
// the next page. A cursor that is not one of ours decodes to undefined (the caller answers
// invalid params); no cursor at all is the first page.
export const PAGE_SIZE = 100;
const PREFIX = "airlock-tools:";
const MAX_OFFSET = 1_000_000;

export function encodeCursor(offset: number): string {
  return Buffer.from(`${PREFIX}${offset}`, "utf8").toString("base64url");
}

/** The offset a cursor names: 0 without one, undefined when it is not a cursor this server issued. */
export function decodeCursor(cursor: unknown): number | undefined {
  if (cursor === undefined) return 0;
  if (typeof cursor !== "string" || cursor.length > 64 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  if (!text.startsWith(PREFIX)) return undefined;
  const digits = text.slice(PREFIX.length);
  if (!/^(0|[1-9][0-9]{0,6})$/.test(digits)) return undefined;
  const offset = Number(digits);
  return offset > 0 && offset <= MAX_OFFSET ? offset : undefined;
}
