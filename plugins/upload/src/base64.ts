// Base64 to bytes with the standard atob (the sandbox's Web runtime provides it, as Node,
// Workers and Deno do). Returns null for text that is not base64 (atob's InvalidCharacterError).
export function fromBase64(text: string): Uint8Array | null {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
