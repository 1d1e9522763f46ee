/** The discovery documents' schema version (/health, /capabilities, OpenAPI, pr402's seller bodies). */
export const SCHEMA_VERSION = "1.2.0";
