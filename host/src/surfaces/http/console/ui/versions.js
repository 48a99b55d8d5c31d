// Version order for the console's words: whether a version offered by an install, an upgrade or
// a rollback is older or newer than the active one (views/plugins.js, views/registry.js).
// Invariants: pure, no imports; semver precedence on major.minor.patch, a prerelease sorts
// before its release. Enough for labels, warnings and the downgrade flag a request carries; the
// host checks versions itself when it installs.

/** semver precedence, enough for the words on a button (a prerelease sorts before its release). */
export function compareVersions(a, b) {
  const parse = (v) => {
    const [core, pre] = v.split("-", 2);
    return { nums: core.split(".").map(Number), pre: pre ?? null };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++)
    if ((x.nums[i] ?? 0) !== (y.nums[i] ?? 0)) return (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  return x.pre < y.pre ? -1 : 1;
}
