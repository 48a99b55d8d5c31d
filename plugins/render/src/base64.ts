// Base64 of bytes with the standard btoa (the sandbox's Web runtime provides it, as Node,
// Workers and Deno do): bytes become a binary string in chunks, then one btoa.
const CHUNK = 0x2000;

export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}
