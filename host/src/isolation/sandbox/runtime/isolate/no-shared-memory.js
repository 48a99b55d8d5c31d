// Injected by build.ts in place of the global SharedArrayBuffer for the bundled libraries
// (whatwg-url and webidl-conversions read SharedArrayBuffer.prototype's byteLength and growable getters at
// load, to tell shared buffers apart). The context has no SharedArrayBuffer (the bootstrap
// deletes it: its memory is not charged to the isolate's limit), so no value is one: this
// stand-in's getter throws for every receiver, which those checks read as "not shared".
class SharedArrayBufferStandIn {
  get byteLength() {
    throw new TypeError("there is no SharedArrayBuffer here");
  }
  get growable() {
    throw new TypeError("there is no SharedArrayBuffer here");
  }
  get maxByteLength() {
    throw new TypeError("there is no SharedArrayBuffer here");
  }
}
export { SharedArrayBufferStandIn as SharedArrayBuffer };
