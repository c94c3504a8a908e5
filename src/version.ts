/** The package version, reported by `xql --version`, `/health` and the MCP handshake. Kept equal to package.json by a test. */
export const VERSION = "0.1.0";
