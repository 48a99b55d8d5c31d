// Deterministic payloads of the durability burst: the child writes them, the parent checks
// them, so any row found after a crash can be verified byte for byte from its index alone.
import { createHash } from "node:crypto";

export const AGENT = "durable";
export const CONVERSATION = "conv-1";

export function docId(i: number): string {
  return `doc-${i}`;
}

/** Text of document i: a unique marker word, then a body whose length varies with i (≤ ~24 KiB). */
export function docContent(i: number): string {
  return `marker${i}x ${"lorem ipsum dolor sit amet ".repeat(1 + ((i * 37) % 900))}end${i}`;
}

/** Bytes of artifact i: pseudo-random, length varying with i (≤ ~64 KiB). */
export function artifactBytes(i: number): Uint8Array {
  const out = new Uint8Array(1 + ((i * 7919) % 65_536));
  let x = (i + 1) * 2654435761;
  for (let k = 0; k < out.length; k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[k] = x >>> 24;
  }
  return out;
}

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
