import { describe, expect, it } from "vitest";
import { hasCode } from "./errors.ts";
import { generateKeyPair, integrityOf, keyIdOf, signIntegrity, verifyIntegritySignature } from "./signing.ts";

describe("integrity signing", () => {
  const pair = generateKeyPair();
  const integrity = integrityOf(new TextEncoder().encode("a plugin tarball"));

  it("computes an SRI sha512 integrity", () => {
    expect(integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    expect(integrityOf(new Uint8Array())).toBe(
      "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
    );
  });

  it("derives the key id from the SPKI DER, the same from either half of the pair", () => {
    const id = keyIdOf(pair.publicKeyPem);
    expect(id).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(keyIdOf(pair.privateKeyPem)).toBe(id);
    expect(keyIdOf(generateKeyPair().publicKeyPem)).not.toBe(id);
  });

  it("verifies a signature made by the matching key", () => {
    const sig = signIntegrity(integrity, pair.privateKeyPem);
    expect(sig.keyid).toBe(keyIdOf(pair.publicKeyPem));
    expect(verifyIntegritySignature(integrity, sig, pair.publicKeyPem)).toBe(true);
  });

  it("rejects a signature over another integrity, by another key, or malformed", () => {
    const sig = signIntegrity(integrity, pair.privateKeyPem);
    const other = integrityOf(new TextEncoder().encode("another tarball"));
    expect(verifyIntegritySignature(other, sig, pair.publicKeyPem)).toBe(false);
    const stranger = generateKeyPair();
    expect(verifyIntegritySignature(integrity, sig, stranger.publicKeyPem)).toBe(false);
    const forged = signIntegrity(integrity, stranger.privateKeyPem);
    expect(verifyIntegritySignature(integrity, { ...forged, keyid: sig.keyid }, pair.publicKeyPem)).toBe(
      false,
    );
    expect(verifyIntegritySignature(integrity, { keyid: sig.keyid, sig: "AAAA" }, pair.publicKeyPem)).toBe(
      false,
    );
    expect(verifyIntegritySignature(integrity, { keyid: sig.keyid, sig: "%%%" }, pair.publicKeyPem)).toBe(
      false,
    );
  });

  it("refuses a key that is not ed25519 PEM with AIRLOCK_SDK_KEY_INVALID", () => {
    const attempt = (fn: () => unknown) => {
      try {
        fn();
        return undefined;
      } catch (err) {
        return err;
      }
    };
    expect(
      hasCode(
        attempt(() => keyIdOf("not a key")),
        "AIRLOCK_SDK_KEY_INVALID",
      ),
    ).toBe(true);
    expect(
      hasCode(
        attempt(() => signIntegrity(integrity, pair.publicKeyPem)),
        "AIRLOCK_SDK_KEY_INVALID",
      ),
    ).toBe(true);
  });
});
