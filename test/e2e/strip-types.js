// Jest's transform for the real-engine tests: Node's own type stripping, so that jest runs these files, and the
// scripts and examples they import, exactly as `node` runs them (ES modules, erasable TypeScript only).
const { stripTypeScriptTypes } = require("node:module");

module.exports = {
  process(source, filename) {
    return { code: stripTypeScriptTypes(source, { mode: "strip", sourceUrl: filename }) };
  },
};
