// Error catalogue of the plugin tarball reader (sdk/src/package). One code per refusal, so a
// caller (the registry, the host's installer, a test) can tell every attack apart.
import { defineErrorCodes } from "../errors.ts";

export const PACKAGE_ERRORS = defineErrorCodes({
  AIRLOCK_PACKAGE_TOO_LARGE: { status: 413, description: "The compressed tarball is larger than the cap." },
  AIRLOCK_PACKAGE_NOT_GZIP: { status: 422, description: "The tarball is not a valid gzip stream." },
  AIRLOCK_PACKAGE_INFLATED_TOO_LARGE: {
    status: 413,
    description: "The tarball inflates past the cap (a decompression bomb); nothing was kept.",
  },
  AIRLOCK_PACKAGE_TAR_INVALID: {
    status: 422,
    description:
      "The archive is not a well-formed tar (the tar parser warned or failed, or it is nested compression).",
  },
  AIRLOCK_PACKAGE_ABSOLUTE_PATH: { status: 422, description: "An entry has an absolute path." },
  AIRLOCK_PACKAGE_PATH_TRAVERSAL: { status: 422, description: "An entry path contains a `..` segment." },
  AIRLOCK_PACKAGE_SYMLINK: { status: 422, description: "The archive holds a symbolic link." },
  AIRLOCK_PACKAGE_HARDLINK: { status: 422, description: "The archive holds a hard link." },
  AIRLOCK_PACKAGE_SPECIAL_FILE: {
    status: 422,
    description: "The archive holds a device file, a FIFO or an entry type other than a regular file.",
  },
  AIRLOCK_PACKAGE_DUPLICATE_ENTRY: {
    status: 422,
    description: "The same path appears twice in the archive.",
  },
  AIRLOCK_PACKAGE_UNEXPECTED_FILE: {
    status: 422,
    description:
      "A file other than package/package.json, package/airlock.json, package/index.js or a UI file package/ui/<name>.html.",
  },
  AIRLOCK_PACKAGE_MISSING_FILE: { status: 422, description: "One of the three required files is missing." },
  AIRLOCK_PACKAGE_ENTRY_TOO_LARGE: {
    status: 413,
    description: "One file in the archive is larger than the cap.",
  },
  AIRLOCK_PACKAGE_TOO_MANY_ENTRIES: {
    status: 413,
    description: "The archive holds more entries than the cap.",
  },
  AIRLOCK_PACKAGE_JSON_INVALID: {
    status: 422,
    description: "package.json or airlock.json is not UTF-8 JSON with an object at the top.",
  },
  AIRLOCK_PACKAGE_JSON_DUPLICATE_KEY: {
    status: 422,
    description:
      "package.json or airlock.json has the same key twice in one object (details.path, details.key).",
  },
  AIRLOCK_PACKAGE_JSON_NOT_UNICODE: {
    status: 422,
    description:
      "A string or key of package.json holds a lone UTF-16 surrogate, not Unicode text (details.path); in airlock.json it is AIRLOCK_MANIFEST_NOT_UNICODE.",
  },
  AIRLOCK_PACKAGE_BUNDLE_INVALID: { status: 422, description: "index.js is not valid UTF-8." },
  AIRLOCK_PACKAGE_BUNDLE_MISMATCH: {
    status: 422,
    description: "index.js does not match the manifest's bundle integrity or size.",
  },
  AIRLOCK_PACKAGE_UI_UNLISTED: {
    status: 422,
    description: "The tarball holds a file under package/ui/ that the manifest's `ui` does not list.",
  },
  AIRLOCK_PACKAGE_UI_MISSING: {
    status: 422,
    description: "A UI the manifest lists is not in the tarball.",
  },
  AIRLOCK_PACKAGE_UI_MISMATCH: {
    status: 422,
    description:
      "A UI file's bytes do not match its sha512 integrity or size in the manifest (altered after build).",
  },
  AIRLOCK_PACKAGE_UI_CSP: {
    status: 422,
    description:
      "A UI's CSP names an origin that is not https:// or wss:// on one of the plugin's egress hosts.",
  },
  AIRLOCK_PACKAGE_UI_UNKNOWN: {
    status: 422,
    description: "A tool names a UI the manifest does not list, or two UIs share a name.",
  },
  AIRLOCK_PACKAGE_METADATA_MISMATCH: {
    status: 422,
    description: "package.json's version does not match the manifest's version.",
  },
});

export type PackageErrorCode = keyof typeof PACKAGE_ERRORS;
