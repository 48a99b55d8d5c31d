// Every path under a directory, relative to it and sorted: tests compare whole trees to prove
// nothing was written outside where it should be.
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export function tree(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      out.push(relative(root, p));
      if (statSync(p).isDirectory()) walk(p);
    }
  };
  walk(root);
  return out.sort();
}
