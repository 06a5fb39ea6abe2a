import { schemaValidator } from './json-schema.js';

/** schemas/endpoint.schema.json; both src/config and dist/config sit two levels below the root. */
export const ENDPOINT_SCHEMA_URL = new URL('../../schemas/endpoint.schema.json', import.meta.url);

/** Validates parsed endpoint data in place (filling in defaults); returns every error. */
export const validateEndpointData = schemaValidator(ENDPOINT_SCHEMA_URL);
