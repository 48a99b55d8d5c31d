// The bootstrap's signing key: generated once per data dir, kept as PEM files (the private one
// mode 0600), used to sign the first-party packages, and trusted by the host that starts them.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { generateKeyPair, type KeyPair, keyIdOf } from "@airlock/sdk/signing";

export interface BootstrapKey extends KeyPair {
  keyId: string;
}

export async function loadOrCreateSigningKey(dir: string): Promise<BootstrapKey> {
  const privatePath = join(dir, "signing-key.pem");
  const publicPath = join(dir, "signing-key.pub.pem");
  if (existsSync(privatePath) && existsSync(publicPath)) {
    const privateKeyPem = await readFile(privatePath, "utf8");
    const publicKeyPem = await readFile(publicPath, "utf8");
    return { privateKeyPem, publicKeyPem, keyId: keyIdOf(publicKeyPem) };
  }
  await mkdir(dir, { recursive: true });
  const pair = generateKeyPair();
  await writeFile(privatePath, pair.privateKeyPem, { mode: 0o600 });
  await writeFile(publicPath, pair.publicKeyPem);
  return { ...pair, keyId: keyIdOf(pair.publicKeyPem) };
}
