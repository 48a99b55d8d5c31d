// A byte-exact ustar writer. Two uses: `writePluginTarball` builds a well-formed plugin
// tarball (npm layout, `package/` prefix, fixed mtime and modes, so the same files always give
// the same bytes), and tests use `tarEntry` to craft archives no sane packer would emit
// (traversal, links, devices, duplicates, pax overrides) to prove the reader refuses them.
// Invariant: no I/O; the output is a pure function of the input.
import { gzipSync } from "node:zlib";

/** ustar type flags: 0 file, 1 hard link, 2 symlink, 3 char device, 4 block device, 5 dir, 6 fifo, x pax. */
export type TarTypeFlag = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "x" | "g" | "L" | "7" | "Z";

export interface CraftedEntry {
  path: string;
  type?: TarTypeFlag;
  body?: Uint8Array | string;
  linkpath?: string;
  mode?: number;
  /** Overrides the size written in the header (to lie about it); defaults to the body length. */
  size?: number;
}

const encoder = new TextEncoder();
const BLOCK = 512;

function writeString(block: Uint8Array, offset: number, length: number, value: string): void {
  const bytes = encoder.encode(value);
  if (bytes.length > length) throw new RangeError(`tar field overflow: "${value}" exceeds ${length} bytes`);
  block.set(bytes, offset);
}

function writeOctal(block: Uint8Array, offset: number, length: number, value: number): void {
  writeString(block, offset, length, `${value.toString(8).padStart(length - 1, "0")}\0`);
}

function header(entry: CraftedEntry, size: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  writeString(block, 0, 100, entry.path);
  writeOctal(block, 100, 8, entry.mode ?? (entry.type === "5" ? 0o755 : 0o644));
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, entry.size ?? size);
  writeOctal(block, 136, 12, 0o17477166640); // 1985-10-26, the date npm uses for reproducible tarballs
  block.fill(0x20, 148, 156);
  writeString(block, 156, 1, entry.type ?? "0");
  writeString(block, 157, 100, entry.linkpath ?? "");
  writeString(block, 257, 6, "ustar\0");
  writeString(block, 263, 2, "00");
  let sum = 0;
  for (const byte of block) sum += byte;
  writeString(block, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}

/** One pax extended-header record (`<len> key=value\n`), the length counting itself. */
export function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bodyLength = encoder.encode(body).length;
  let total = bodyLength + 1;
  while (total !== bodyLength + String(total).length) total = bodyLength + String(total).length;
  return `${total}${body}`;
}

/** A tar archive (not compressed) from crafted entries, closed by two zero blocks. */
export function tarArchive(entries: readonly CraftedEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const body =
      typeof entry.body === "string" ? encoder.encode(entry.body) : (entry.body ?? new Uint8Array());
    parts.push(header(entry, body.length));
    if (body.length > 0) {
      const padded = new Uint8Array(Math.ceil(body.length / BLOCK) * BLOCK);
      padded.set(body);
      parts.push(padded);
    }
  }
  parts.push(new Uint8Array(BLOCK * 2));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function gzip(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(gzipSync(bytes, { level: 9 }));
}

/** A well-formed plugin tarball: package/package.json, package/airlock.json, package/index.js. */
export function writePluginTarball(files: {
  packageJson: Uint8Array | string;
  manifest: Uint8Array | string;
  bundle: Uint8Array | string;
  /** UI files by name, written as package/ui/<name>.html after the three. */
  ui?: Record<string, Uint8Array | string>;
}): Uint8Array {
  return gzip(
    tarArchive([
      { path: "package/package.json", body: files.packageJson },
      { path: "package/airlock.json", body: files.manifest },
      { path: "package/index.js", body: files.bundle },
      ...Object.entries(files.ui ?? {}).map(([name, body]) => ({ path: `package/ui/${name}.html`, body })),
    ]),
  );
}
