'use strict';
// Stands in for a local store's driver (SQLite's native addon, the KurrentDB client's native bridge)
// inside the one-file CLI (scripts/build/cli.js): importing it works, using it fails with one message.
// The target is a plain function, not an arrow: only a constructible target lets `new` reach the trap.
function fail() {
  throw new Error('this command reads the local stores and needs the full installation (npm ci in a Railyard checkout)');
}
module.exports = new Proxy(fail, {
  get: (_target, key) => (key === '__esModule' ? false : key === 'default' ? module.exports : fail),
  apply: fail,
  construct: fail,
});
