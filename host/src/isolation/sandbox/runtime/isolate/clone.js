// structuredClone: @ungap/structured-clone (the HTML structured serialisation in pure JS).
// A value it cannot clone (a function, a symbol) throws a DOMException "DataCloneError".
import ungapClone from "@ungap/structured-clone";
import { DOMException } from "./events.js";

export function structuredClone(...args) {
  if (args.length === 0) throw new TypeError("structuredClone needs 1 argument");
  const [value, options] = args;
  if (options?.transfer !== undefined && [...options.transfer].length > 0) {
    throw new DOMException("transfer is not supported here", "DataCloneError");
  }
  try {
    return ungapClone(value, { lossy: false, json: false });
  } catch (error) {
    throw new DOMException(String(error?.message ?? error), "DataCloneError");
  }
}
